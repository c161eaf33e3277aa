"""What a callable's stand-in knows of it, and the builtins that cross as themselves.

A callable crosses by reference (``_beyondpass_refs``), but code inspects what it is
handed: its names (``__name__``, ``__qualname__``...), its signature (toolz's
``is_arity`` reads it; ``inspect.signature`` of the stand-in gives the original's, or
fails as the original's does), and whether it is a particular builtin (a table of
builtins' signatures keyed by the function). So a stand-in carries the names and the
signature as data, and a builtin of a standard-library module (``all``, ``map``,
``operator.add``) crosses by name and is the receiver's own.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_callables``.
"""

import importlib
import inspect
import sys
import types

import _beyondpass_classes as classes
import _beyondpass_codec as codec

NAME_LIMIT = 100
MESSAGE_LIMIT = 2000
#: the errors a callable's ``inspect.signature`` may give, which its stand-in gives too
_SIGNATURE_ERRORS = {"ValueError": ValueError, "TypeError": TypeError}

#: what a callable's stand-in tells of it: its names and documentation, as strings
NAMES = ("__name__", "__qualname__", "__module__", "__doc__")


def names(value: object) -> dict:
    """A callable's names, as this side reads them (a non-string is left out)."""
    found = {}
    for name in NAMES:
        try:
            text = getattr(value, name, None)
        except Exception:
            continue
        if type(text) is str:
            found[name] = text[:MESSAGE_LIMIT]
    return found


def names_of(node: object) -> dict:
    if not isinstance(node, dict):
        return {}
    return {k: v[:MESSAGE_LIMIT] for k, v in node.items() if k in NAMES and type(v) is str}


def builtin_name(value: object) -> "list | None":
    """``["G", module, name]`` for a builtin of a standard-library module — a function
    (``all``, ``math.sqrt``, ``operator.add``) or a class written in C (``map``, ``range``,
    ``itertools.chain``) — found under that name; None for anything else. Such a builtin
    crosses as itself, so code that looks it up (a table of builtins' signatures, keyed
    by the function) finds it."""
    if isinstance(value, type):
        if classes.in_python(value):
            return None
        module, name = value.__module__, value.__qualname__
    elif type(value) is types.BuiltinFunctionType and isinstance(value.__self__, types.ModuleType):
        module, name = value.__self__.__name__, value.__name__
    else:
        return None
    if type(module) is not str or type(name) is not str:
        return None
    if module.split(".")[0] not in sys.stdlib_module_names:
        return None
    if getattr(sys.modules.get(module), name, None) is not value:
        return None
    return ["G", module, name]


def find_builtin(module: str, name: str) -> object:
    """The builtin ``module.name`` of a standard-library module (imported if need be);
    ``CannotCross`` when there is none."""
    if module.split(".")[0] not in sys.stdlib_module_names:
        raise codec.CannotCross("a builtin of no standard-library module")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise codec.CannotCross(f"no builtin {module[:NAME_LIMIT]}.{name[:NAME_LIMIT]}") from None
    if builtin_name(found) != ["G", module, name]:
        raise codec.CannotCross("not a builtin by that name")
    return found


def signature_from(data: object, decode) -> object:
    """A callable stand-in's ``__signature__``, from what the owner's ``inspect.signature``
    said: an ``inspect.Signature``, or the error's type and message (a tuple); None when
    not known."""
    if data is None:
        return None
    data = codec._list(data)
    if data[:1] == ["!"]:
        if len(data) != 3 or data[1] not in _SIGNATURE_ERRORS:
            raise codec.CannotCross("malformed signature")
        return (_SIGNATURE_ERRORS[data[1]], codec._str(data[2])[:MESSAGE_LIMIT])
    found = decode(data, 1)  # a codec ``signature`` value
    if type(found) is not inspect.Signature:
        raise codec.CannotCross("malformed signature")
    return found
