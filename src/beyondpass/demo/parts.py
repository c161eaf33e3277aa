"""Which parts of the demo study this machine can run; the others are left out, one line each.

The demo study has one arm per method. An arm needs the optional dependencies of the methods
whose components it names (each method declares its extra to the registry) and whatever
``data/needs.toml`` lists: more modules, and commands such as a compiler, for the arm or for
one of its benchmarks. :func:`runnable_study` reads the study, drops what cannot run here
and says why, so ``beyondpass demo`` shows what it can instead of stopping on a missing tool
halfway through.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass import registry
from beyondpass.tomlfile import read_toml

#: the one install that brings every Python module the demo's parts need
EVERY_PART = "pip install 'beyondpass[demo]'"


@dataclass(frozen=True)
class LeftOut:
    """A part of the demo that cannot run here, and what would let it."""

    arm: str
    benchmark: str | None
    what: str
    missing: tuple[str, ...]
    install: str

    def line(self) -> str:
        """The one line ``beyondpass demo`` prints for it."""
        part = f"the {self.arm} arm" if self.benchmark is None else self.benchmark
        named = []
        for kind in ("module", "command", "data file"):
            names = [m[len(kind) + 1 :] for m in self.missing if m.startswith(f"{kind} ")]
            if names:
                named.append(f"{kind}{'s' if len(names) > 1 else ''} {', '.join(names)}")
        verb = "is" if len(self.missing) == 1 else "are"
        return (
            f"demo: left out {part} ({self.what}): {' and '.join(named)} {verb} missing — "
            f"{self.install}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "arm": self.arm,
            "benchmark": self.benchmark,
            "what": self.what,
            "missing": list(self.missing),
            "install": self.install,
        }


def runnable_study(study_file: Path) -> tuple[dict[str, Any], list[LeftOut]]:
    """The study's tables without the arms and benchmarks this machine cannot run, and what
    was left out; ``needs.toml`` beside the study says what each part needs."""
    raw = read_toml(study_file, "study file")
    needs_file = study_file.parent / "needs.toml"
    needs = read_toml(needs_file, "demo needs file").get("part", []) if needs_file.is_file() else []
    left_out: list[LeftOut] = []
    arms = []
    for arm in raw.get("arms", []):
        name = str(arm.get("name", ""))
        gone = _missing_extra(arm) or _missing_needs(name, None, needs)
        if gone is not None:
            left_out.append(gone)
            continue
        kept = []
        for bench in arm.get("benchmarks", []):
            lost = _missing_needs(name, str(bench.get("name", "")), needs)
            if lost is None:
                kept.append(bench)
            else:
                left_out.append(lost)
        if kept:
            arms.append({**arm, "benchmarks": kept})
    return {**raw, "arms": arms}, left_out


def _missing_extra(arm: Mapping[str, Any]) -> LeftOut | None:
    """The first method the arm uses whose extra is not installed (the registry's rule)."""
    name = str(arm.get("name", ""))
    for kind, component in _components(arm):
        found = registry.find(kind, component)
        if found is None:
            continue  # an unknown name: loading the study says so, in one line
        owner = found[1]
        absent = owner.missing()
        if absent is not None:
            install = f"pip install 'beyondpass[{owner.extra}]'" if owner.extra else ""
            return LeftOut(
                name,
                None,
                f"method {owner.name}",
                (f"module {absent}",),
                f"{install or 'install ' + ', '.join(owner.requires)}, or {EVERY_PART} for "
                "every part",
            )
    return None


def _components(arm: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(kind, name) of every component the arm's tables name."""
    for bench in arm.get("benchmarks", []):
        yield "benchmarks", str(bench.get("name", ""))
        transform = bench.get("transform")
        if isinstance(transform, Mapping):
            yield "transforms", str(transform.get("name", ""))
    prompts = arm.get("prompts", {})
    if isinstance(prompts, Mapping) and prompts.get("plan"):
        yield "plans", str(prompts["plan"])
    evaluation = arm.get("evaluation", {})
    if isinstance(evaluation, Mapping):
        for item in evaluation.get("evaluators", []):
            yield "evaluators", str(item.get("name", "") if isinstance(item, Mapping) else item)
        for key, value in evaluation.items():
            if key not in ("evaluators", "timing_repeats") and value is not False:
                yield "evaluators", str(key)


def _missing_needs(arm: str, bench: str | None, needs: list[Any]) -> LeftOut | None:
    """What ``needs.toml`` asks for the arm (``bench`` None) or for one of its benchmarks,
    and is not here."""
    for part in needs:
        if part.get("arm") != arm or part.get("benchmark") != bench:
            continue
        missing = [f"module {m}" for m in part.get("modules", []) if not _importable(m)]
        missing += [f"command {c}" for c in part.get("commands", []) if shutil.which(c) is None]
        missing += [f"data file {d}" for d in part.get("data", []) if not _data_here(str(d))]
        if missing:
            what = str(part.get("what") or "")
            return LeftOut(arm, bench, what, tuple(missing), str(part.get("install", "")))
    return None


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _data_here(relpath: str) -> bool:
    """Whether a data file is in the user's data directory (``BEYONDPASS_DATA``) or the
    download cache: the demo reads datasets' files from there and never downloads."""
    from beyondpass.benchmarks.sources import cache_root, explicit_data_dir

    places = (explicit_data_dir(None), cache_root() / "data")
    return any(place is not None and (place / relpath).is_file() for place in places)
