"""RobuNFR's prompt design (seed 000) as data: NFR templates, workflows, and the plan they make.

The 40 templates of the seed's Table 1 (10 semantically equivalent phrasings per NFR) and the
workflow frames of Figure 4 live in ``data/robunfr.toml`` beside this module, so a researcher
can edit or replace them without touching code (``[prompts] templates = "file.toml"``). A plan
crosses them into conditions:

* ``function-only`` — the functional requirement alone (optionally repeated, see below);
* ``integrated.<nfr>.pNN`` — NFR-Integrated: the NFR phrase and the task in one prompt;
* ``enhanced.<nfr>.pNN`` — NFR-Enhanced: step 1 *is* the Function-Only answer (reused, not
  asked again, so every refinement starts from exactly the code the baseline was scored on),
  step 2 asks the model to improve that code (``{code}``) with the NFR phrase.

Every condition records its workflow, NFR, variant index and verbatim variant text in its
metadata, which is what the analysis groups by. ``function_only_repeats`` asks Function-Only
that many times per task (distinct sample indices, so distinct API calls even at temperature
0): the spread across repeats is the baseline's own STDEV in the seed's Table 2, the noise
floor against which the spread across NFR prompts is judged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.prompts.plan import PLACEHOLDERS, Condition, PromptPlan, PromptTemplate
from beyondpass.tomlfile import read_toml_text

#: Workflow names as recorded in every condition (and shown in tables).
FUNCTION_ONLY = "function-only"
INTEGRATED = "nfr-integrated"
ENHANCED = "nfr-enhanced"
WORKFLOWS = (INTEGRATED, ENHANCED)
WORKFLOW_LABELS = {
    FUNCTION_ONLY: "Function-Only",
    INTEGRATED: "NFR-Integrated",
    ENHANCED: "NFR-Enhanced",
}
_WORKFLOW_ALIASES = {
    "integrated": INTEGRATED,
    "nfr-integrated": INTEGRATED,
    "enhanced": ENHANCED,
    "nfr-enhanced": ENHANCED,
}
_CONDITION_PREFIX = {INTEGRATED: "integrated", ENHANCED: "enhanced"}
FUNCTION_ONLY_ID = "function-only"

_FRAME_KEYS = ("function_only", "integrated", "enhanced")
_NFR_KEYS = {"name", "label", "metric", "seed_prompt", "variants", "provenance"}
_KEY_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
_TASK_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


@dataclass(frozen=True)
class NfrTemplates:
    """The phrasings of one NFR dimension."""

    key: str  # short id used in condition ids: design, readability, reliability, performance
    name: str  # noun for prose ("code design")
    label: str  # table label ("Code Design")
    metric: str  # the metric this NFR targets (smell_density, ...)
    seed_prompt: str  # what the variants rephrase
    variants: tuple[str, ...]
    provenance: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TemplateSet:
    """Frames plus NFR templates, read from one TOML file."""

    frames: Mapping[str, str]
    nfrs: Mapping[str, NfrTemplates]
    source: str  # the file, for error messages
    label: str = "built-in"  # what conditions record: "built-in" or the file path
    sha256: str = ""  # of the file's bytes, so a run records exactly which templates it used

    def nfr(self, key: str) -> NfrTemplates:
        try:
            return self.nfrs[key]
        except KeyError:
            raise ConfigError(
                f"{self.source}: no NFR {key!r} — it has {', '.join(self.nfrs) or 'none'}"
            ) from None


def builtin_templates_path() -> Path:
    return Path(str(resources.files("beyondpass.methods.robunfr") / "data" / "robunfr.toml"))


def load_templates(path: str | Path | None = None) -> TemplateSet:
    """Read a template file; frames missing from it come from the built-in file."""
    builtin = builtin_templates_path()
    file = Path(path) if path is not None else builtin
    raw, digest = _read_toml(file)
    frames_raw = raw.get("frames", {})
    is_builtin = file.resolve() == builtin.resolve()
    if not is_builtin:
        defaults = _read_toml(builtin)[0].get("frames", {})
        frames_raw = {**defaults, **(frames_raw if isinstance(frames_raw, dict) else {})}
    loaded = templates_from_dict(raw, str(file), frames_raw)
    return replace(loaded, label="built-in" if is_builtin else str(file.resolve()), sha256=digest)


def _read_toml(file: Path) -> tuple[dict[str, Any], str]:
    raw, text = read_toml_text(file, "prompt template file")
    return raw, hashlib.sha256(text.encode("utf-8")).hexdigest()


def templates_from_dict(
    raw: Mapping[str, Any], source: str, frames_raw: Any | None = None
) -> TemplateSet:
    """Validate the parsed TOML of a template file; errors name the file and the key."""
    unknown = sorted(set(raw) - {"frames", "nfrs"})
    if unknown:
        raise ConfigError(
            f"{source}: unknown key(s) {unknown} — a template file has [frames] "
            "and [nfrs.KEY] tables"
        )
    frames_raw = raw.get("frames", {}) if frames_raw is None else frames_raw
    if not isinstance(frames_raw, Mapping):
        raise ConfigError(f"{source}: [frames] must be a table")
    frames: dict[str, str] = {}
    for key in _FRAME_KEYS:
        value = frames_raw.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{source}: frames.{key} must be a non-empty string")
        frames[key] = value
    extra = sorted(set(frames_raw) - set(_FRAME_KEYS))
    if extra:
        raise ConfigError(f"{source}: unknown frame(s) {extra} — valid: {list(_FRAME_KEYS)}")
    if "{prompt}" not in frames["function_only"] or "{prompt}" not in frames["integrated"]:
        raise ConfigError(f"{source}: frames.function_only and frames.integrated need {{prompt}}")
    if "{code}" not in frames["enhanced"]:
        raise ConfigError(
            f"{source}: frames.enhanced needs {{code}} (the code of the Function-Only answer)"
        )
    for key in ("integrated", "enhanced"):
        if "{nfr}" not in frames[key] and "{nfr_name}" not in frames[key]:
            raise ConfigError(f"{source}: frames.{key} needs {{nfr}} or {{nfr_name}}")

    nfrs_raw = raw.get("nfrs", {})
    if not isinstance(nfrs_raw, Mapping) or not nfrs_raw:
        raise ConfigError(f"{source}: no [nfrs.KEY] tables — add at least one NFR")
    nfrs: dict[str, NfrTemplates] = {}
    for key, table in nfrs_raw.items():
        where = f"{source}: nfrs.{key}"
        if not _KEY_RE.match(key) or "." in key:
            raise ConfigError(f"{where}: keys are lower-case words (letters, digits, - and _)")
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where} must be a table")
        bad = sorted(set(table) - _NFR_KEYS)
        if bad:
            raise ConfigError(f"{where}: unknown key(s) {bad} — valid: {sorted(_NFR_KEYS)}")
        variants = table.get("variants")
        if (
            not isinstance(variants, list)
            or not variants
            or not all(isinstance(v, str) and v.strip() for v in variants)
        ):
            raise ConfigError(f"{where}.variants must be a non-empty list of strings")
        cleaned = tuple(v.strip() for v in variants)
        dupes = sorted({v for v in cleaned if cleaned.count(v) > 1})
        if dupes:
            raise ConfigError(f"{where}.variants repeats {dupes}")
        for v in cleaned:
            if _TASK_PLACEHOLDER.search(v):
                raise ConfigError(f"{where}.variants: {v!r} contains a task placeholder")
        provenance = table.get("provenance", {})
        if not isinstance(provenance, Mapping):
            raise ConfigError(f"{where}.provenance must be a table")
        name = str(table.get("name") or key)
        nfrs[key] = NfrTemplates(
            key=key,
            name=name,
            label=str(table.get("label") or name.title()),
            metric=str(table.get("metric") or ""),
            seed_prompt=str(table.get("seed_prompt") or f"Consider {name}"),
            variants=cleaned,
            provenance=dict(provenance),
        )
    return TemplateSet(frames=frames, nfrs=nfrs, source=source)


def _fill(frame: str, nfr: NfrTemplates, variant: str) -> str:
    # Replace only the NFR slots; the task placeholders stay for render().
    return frame.replace("{nfr_name}", nfr.name).replace("{nfr}", variant)


def _indices(raw: Any, count: int, where: str) -> list[int]:
    """1-based variant numbers to use: all, or a list like [1, 2, 3]."""
    if raw is None:
        return list(range(1, count + 1))
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = list(range(1, raw + 1))
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: variants must be a count or a list of 1-based numbers")
    out = []
    for v in raw:
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= count:
            raise ConfigError(f"{where}: variant {v!r} is not between 1 and {count}")
        out.append(v)
    return sorted(set(out))


def robunfr_plan(
    templates: TemplateSet,
    *,
    nfrs: Sequence[str] | None = None,
    workflows: Sequence[str] = WORKFLOWS,
    variants: Any = None,
    function_only_repeats: int = 1,
    name: str = "robunfr",
    where: str = "prompts",
) -> PromptPlan:
    """Function-Only plus every (workflow x NFR x variant) condition."""
    if not isinstance(function_only_repeats, int) or function_only_repeats < 1:
        raise ConfigError(f"{where}: function_only_repeats must be a positive integer")
    chosen_workflows = []
    for w in workflows:
        canonical = _WORKFLOW_ALIASES.get(str(w).lower())
        if canonical is None:
            raise ConfigError(
                f"{where}: unknown workflow {w!r} — use 'integrated' and/or 'enhanced'"
            )
        if canonical not in chosen_workflows:
            chosen_workflows.append(canonical)
    keys = list(nfrs) if nfrs is not None else list(templates.nfrs)
    fo_frame = templates.frames["function_only"]
    function_only = Condition(
        id=FUNCTION_ONLY_ID,
        steps=(PromptTemplate(user=fo_frame),),
        workflow=FUNCTION_ONLY,
        description="Function-Only: the functional requirement alone (RobuNFR Figure 4)",
        metadata={
            "method": "robunfr",
            "templates": templates.label,
            "templates_sha256": templates.sha256,
        },
        repeats=function_only_repeats,
    )
    conditions = [function_only]
    for workflow in chosen_workflows:
        for key in keys:
            nfr = templates.nfr(key)
            for number in _indices(variants, len(nfr.variants), where):
                variant = nfr.variants[number - 1]
                meta = {
                    "method": "robunfr",
                    "nfr": nfr.key,
                    "nfr_label": nfr.label,
                    "variant": number,
                    "variant_text": variant,
                    "templates": templates.label,
                    "templates_sha256": templates.sha256,
                    "variant_provenance": dict(nfr.provenance),
                }
                cid = f"{_CONDITION_PREFIX[workflow]}.{nfr.key}.p{number:02d}"
                if workflow == INTEGRATED:
                    steps: tuple[PromptTemplate, ...] = (
                        PromptTemplate(user=_fill(templates.frames["integrated"], nfr, variant)),
                    )
                    description = f"NFR-Integrated, {nfr.label}, prompt {number}: {variant}"
                else:
                    steps = (
                        PromptTemplate(user=fo_frame, reuse=FUNCTION_ONLY_ID),
                        PromptTemplate(user=_fill(templates.frames["enhanced"], nfr, variant)),
                    )
                    description = (
                        f"NFR-Enhanced, {nfr.label}, prompt {number}: refine the Function-Only "
                        f"code — {variant}"
                    )
                conditions.append(
                    Condition(
                        id=cid,
                        steps=steps,
                        workflow=workflow,
                        description=description,
                        metadata=meta,
                    )
                )
    return PromptPlan(name, tuple(conditions))


_PLAN_KEYS = {"plan", "templates", "nfrs", "workflows", "variants", "function_only_repeats"}


def plan_from_prompts_table(prompts: Mapping[str, Any], base: Path, where: str) -> PromptPlan:
    """The ``[prompts]`` table of a study with ``plan = "robunfr"``.

    Keys: ``templates`` (a template file, relative to the study file; default: the built-in
    Table 1), ``nfrs`` (subset and order), ``workflows`` (``integrated``, ``enhanced``),
    ``variants`` (a count or a list of 1-based numbers), ``function_only_repeats``.
    """
    unknown = sorted(set(prompts) - _PLAN_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown} — valid: {sorted(_PLAN_KEYS)}")
    path = prompts.get("templates")
    if path is not None:
        if not isinstance(path, str):
            raise ConfigError(f"{where}.templates must be a path string")
        file = Path(path).expanduser()
        path = file if file.is_absolute() else base / file
    templates = load_templates(path)
    nfrs = prompts.get("nfrs")
    if nfrs is not None and (
        not isinstance(nfrs, list) or not all(isinstance(n, str) for n in nfrs)
    ):
        raise ConfigError(f'{where}.nfrs must be a list of NFR keys like ["readability"]')
    workflows = prompts.get("workflows", list(WORKFLOWS))
    if not isinstance(workflows, list) or not workflows:
        raise ConfigError(f'{where}.workflows must be a list like ["integrated", "enhanced"]')
    return robunfr_plan(
        templates,
        nfrs=nfrs,
        workflows=workflows,
        variants=prompts.get("variants"),
        function_only_repeats=prompts.get("function_only_repeats", 1),
        where=where,
    )


__all__ = [
    "ENHANCED",
    "FUNCTION_ONLY",
    "INTEGRATED",
    "WORKFLOWS",
    "WORKFLOW_LABELS",
    "NfrTemplates",
    "TemplateSet",
    "builtin_templates_path",
    "load_templates",
    "plan_from_prompts_table",
    "robunfr_plan",
    "templates_from_dict",
]
