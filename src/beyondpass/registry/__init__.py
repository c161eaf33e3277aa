"""The registry: every component beyondpass knows, found by name.

A *method* (RobuNFR, RobustAPI, a third-party one) is a package that exposes one
:class:`Method`: its benchmarks, prompt plans, answer formats, evaluators with their metric
definitions, headline metrics, benchmark transforms, report sections, CLI commands, built-in
studies, model providers and executors. beyondpass's own components are declared the same
way, as the method ``core`` (:mod:`beyondpass.core`), so this is the only table of components. The
generic stages (study, extraction, evaluators, models, execution, cli, report) never import a
method; they ask this module, through one lookup for every kind: :func:`lookup` (a named
component, or a one-line error listing the known ones), :func:`find`, :func:`names`,
:func:`named` and :func:`specs` (every contribution of a kind, with its method).

Components are named lazily, as ``"package.module:attribute"`` strings (or objects), and
resolved only when used, by :func:`resolve` alone: listing methods imports nothing heavy, and
a method whose optional dependencies are missing still lists and fails with one line naming
its extra (``pip install 'beyondpass[java]'``) only when one of its components is used.

Discovery: the built-in methods (:data:`BUILTIN_METHODS`, ``core`` first), then every entry
point of the group ``beyondpass.methods`` (a :class:`Method`, or a callable returning one).
Names are unique; the first registration of a name wins, so an editable install that exposes
its distribution twice registers once, and no plugin replaces a core component.

The specs themselves are plain data in :mod:`.specs` (re-exported here: a method imports
them from ``beyondpass.registry``); option checks are in :mod:`.options`. The registry
imports no other part of beyondpass but its errors (an import-linter contract).
"""

from __future__ import annotations

import importlib
import warnings
from importlib import metadata
from typing import Any

from beyondpass.errors import ConfigError, MissingExtra
from beyondpass.registry.options import evaluator_options, validate_options
from beyondpass.registry.specs import (
    AnswerFileSpec,
    AnswerFormatSpec,
    BenchmarkSpec,
    EvaluatorContext,
    EvaluatorSpec,
    ExecutorSpec,
    HeadlineSpec,
    Method,
    Metric,
    PlanSpec,
    ProviderSpec,
    Ref,
    TransformContext,
    TransformSpec,
)

ENTRY_POINT_GROUP = "beyondpass.methods"
#: the name of the core components' method (``beyondpass.core``); no plugin may take it
CORE_NAME = "core"
#: ``module`` exposing ``METHOD`` for each method shipped with beyondpass
BUILTIN_METHODS = (
    "beyondpass.core",  # the core components, registered first like any method
    "beyondpass.methods.robunfr",
    "beyondpass.methods.robustapi",
    "beyondpass.methods.psb2",
    "beyondpass.methods.nofuneval",
    "beyondpass.methods.obfuseval",
)

#: the kinds of component found by name: how a message calls one, and its list of names
NAMED_KINDS: dict[str, tuple[str, str]] = {
    "benchmarks": ("benchmark", "known"),
    "plans": ("prompt plan", "known"),
    "answer_formats": ("answer format", "known"),
    "answer_files": ("kind of answers file", "known"),
    "evaluators": ("evaluator", "known"),
    "transforms": ("benchmark transform", "known"),
    "providers": ("model provider", "known"),
    "executors": ("executor", "available"),
}


# -- discovery --------------------------------------------------------------------------------
_methods: dict[str, Method] | None = None


def _coerce(obj: Any, where: str) -> Method:
    if callable(obj) and not isinstance(obj, Method):
        obj = obj()
    if not isinstance(obj, Method):
        raise TypeError(f"{where} is not a beyondpass.registry.Method")
    return obj


def _discover() -> dict[str, Method]:
    found: dict[str, Method] = {}
    for module in BUILTIN_METHODS:
        method = _coerce(importlib.import_module(module).METHOD, module)
        found.setdefault(method.name, method)
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            method = _coerce(ep.load(), f"entry point {ep.value}")
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the others
            warnings.warn(
                f"beyondpass: method entry point {ep.name} ({ep.value}) cannot be loaded: {exc}",
                stacklevel=2,
            )
            continue
        found.setdefault(method.name, method)  # seen twice (editable install): keep one
    return found


def methods() -> dict[str, Method]:
    """Every registered method by name (built-ins first), discovered once."""
    global _methods
    if _methods is None:
        _methods = _discover()
    return _methods


def register(method: Method) -> None:
    """Register ``method`` (what an entry point does); a name registers only once."""
    if method.name == CORE_NAME:
        raise ConfigError(f"method name {CORE_NAME!r} is reserved")
    methods().setdefault(method.name, method)


def reset() -> None:
    """Forget discovered methods (the next lookup discovers again)."""
    global _methods
    _methods = None


def method(name: str) -> Method:
    try:
        return methods()[name]
    except KeyError:
        raise ConfigError(
            f"unknown method {name!r} — installed methods: {', '.join(methods())}"
        ) from None


# -- resolution -------------------------------------------------------------------------------
def resolve(ref: Ref, owner: Method | None = None, *, needs_extra: bool = True) -> Any:
    """The object ``ref`` names; with ``needs_extra``, first check ``owner``'s extra."""
    if owner is not None and needs_extra:
        absent = owner.missing()
        if absent is not None:
            hint = (
                f"pip install 'beyondpass[{owner.extra}]'"
                if owner.extra
                else f"install {', '.join(owner.requires)}"
            )
            raise MissingExtra(
                f"method {owner.name} needs its optional dependencies (module {absent} is "
                f"missing) — {hint}"
            )
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


# -- the one lookup ---------------------------------------------------------------------------
def specs(kind: str) -> list[tuple[Any, Method]]:
    """Every contribution of ``kind`` (a field of :class:`Method`: ``"evaluators"``,
    ``"commands"``, ``"headline_reading"``, ...) with its method, in registration order;
    a field holding one value contributes it unless it is ``None``."""
    if kind not in Method.__dataclass_fields__:
        raise ValueError(f"{kind!r} is not a kind of component (a field of Method)")
    out: list[tuple[Any, Method]] = []
    for m in methods().values():
        value = getattr(m, kind)
        if isinstance(value, tuple):
            out.extend((item, m) for item in value)
        elif value is not None:
            out.append((value, m))
    return out


def named(kind: str) -> dict[str, tuple[Any, Method]]:
    """The components of a named kind by name (the first registration of a name wins)."""
    out: dict[str, tuple[Any, Method]] = {}
    for spec, m in specs(kind):
        out.setdefault(spec.name, (spec, m))
    return out


def names(kind: str, *, former: bool = False) -> list[str]:
    """The names of a kind's components; with ``former``, then the names they had before
    (``aliases``)."""
    found = list(named(kind))
    if former:
        found += [a for spec, _ in specs(kind) for a in getattr(spec, "aliases", ())]
    return found


def find(kind: str, name: str) -> tuple[Any, Method] | None:
    """The component ``name`` of ``kind`` (or the one that had that name before), if any."""
    found = named(kind).get(name)
    if found is not None:
        return found
    return next(((s, m) for s, m in specs(kind) if name in getattr(s, "aliases", ())), None)


def lookup(kind: str, name: str) -> tuple[Any, Method]:
    """The component ``name`` of ``kind`` with its method, or a one-line error naming it
    and listing the known ones (``unknown evaluator 'x' — known: functional, ...``)."""
    found = find(kind, name)
    if found is None:
        what, listed = NAMED_KINDS.get(kind, (kind, "known"))
        raise ConfigError(f"unknown {what} {name!r} — {listed}: {', '.join(names(kind))}")
    return found


__all__ = [
    "BUILTIN_METHODS",
    "CORE_NAME",
    "ENTRY_POINT_GROUP",
    "NAMED_KINDS",
    "AnswerFileSpec",
    "AnswerFormatSpec",
    "BenchmarkSpec",
    "EvaluatorContext",
    "EvaluatorSpec",
    "ExecutorSpec",
    "HeadlineSpec",
    "Method",
    "Metric",
    "MissingExtra",
    "PlanSpec",
    "ProviderSpec",
    "Ref",
    "TransformContext",
    "TransformSpec",
    "evaluator_options",
    "find",
    "lookup",
    "method",
    "methods",
    "named",
    "names",
    "register",
    "reset",
    "resolve",
    "specs",
    "validate_options",
]
