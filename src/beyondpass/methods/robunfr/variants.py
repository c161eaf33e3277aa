"""Generate semantically equivalent prompt variants with a model, as RobuNFR did.

The seed built its Table 1 by giving a seed prompt ("Consider [NFR] and complete the
following code") to GPT-4o-mini and asking for 10 equivalent phrasings, so that the prompts
carry no bias of a human author. This module does the same with any model spec and writes the
result as a template file (the format of ``robunfr.toml``) with full provenance: the model
spec and the version the endpoint reported, the exact instruction sent, sampling parameters,
the raw answer and the time. A study then uses the file with
``[prompts] plan = "robunfr"`` and ``templates = "FILE"``.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import beyondpass
from beyondpass.errors import ConfigError, DataError
from beyondpass.methods.robunfr.prompts import templates_from_dict
from beyondpass.models.base import Generation, GenerationRequest, Message, SamplingParams
from beyondpass.models.client import ModelClient
from beyondpass.study.provenance import now_iso
from beyondpass.tomlfile import read_toml, read_toml_text

#: The instruction sent to the generating model; ``{n}`` and ``{seed}`` are filled in.
DEFAULT_INSTRUCTION = (
    "Rewrite the following instruction for a code-generation assistant in {n} different "
    "ways. Every rewrite must keep exactly the same meaning; vary only the wording. Each "
    "rewrite is one short imperative phrase.\n"
    "Answer with exactly {n} lines numbered 1. to {n}. and nothing else.\n\n"
    "Instruction: {seed}"
)

#: The frames add this tail themselves; a model that echoes it gets it stripped.
_TAILS = ("and complete the following code", "and improve the following code")
_NUMBERED = re.compile(r"^\s*(?:\*\*)?(\d+)\s*[.):\-]\s*(?:\*\*)?\s*(.*)$")
_BULLET = re.compile(r"^\s*[-*•]\s+(.*)$")


@dataclass
class GeneratedVariants:
    """Variants for one NFR and how they were made."""

    key: str
    variants: list[str]
    provenance: dict[str, Any] = field(default_factory=dict)


def instruction_for(seed: str, n: int, template: str = DEFAULT_INSTRUCTION) -> str:
    if "{seed}" not in template:
        raise ConfigError("the instruction must contain {seed} (where the seed prompt goes)")
    return template.replace("{n}", str(n)).replace("{seed}", seed)


def _clean(text: str) -> str:
    text = text.strip().strip("*").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`“”":
        text = text[1:-1].strip()
    text = text.strip("“”\"'` ").rstrip(".:;").strip()
    lowered = text.lower()
    for tail in _TAILS:
        if lowered.endswith(tail):
            text = text[: -len(tail)].rstrip(" ,;:").strip()
            break
    return text


def parse_variants(answer: str, n: int) -> list[str]:
    """The ``n`` variants in a model's answer: numbered lines 1..n, else bullet/plain lines.

    Raises DataError (naming what is wrong) when the answer does not hold exactly ``n``
    distinct non-empty variants, so a bad answer never becomes a template file.
    """
    lines = [line for line in answer.splitlines() if line.strip()]
    numbered: dict[int, str] = {}
    for line in lines:
        m = _NUMBERED.match(line)
        if m and int(m.group(1)) not in numbered:
            numbered[int(m.group(1))] = m.group(2)
    if numbered:
        missing = [i for i in range(1, n + 1) if i not in numbered]
        if missing:
            raise DataError(
                f"the model's answer has no variant numbered {missing[0]} (expected 1..{n}) — "
                "run again with another --sample-index or a clearer --instruction"
            )
        found = [_clean(numbered[i]) for i in range(1, n + 1)]
    else:
        found = [_clean(m.group(1) if (m := _BULLET.match(line)) else line) for line in lines]
        if len(found) != n:
            raise DataError(
                f"the model's answer has {len(found)} line(s), expected {n} variants — run again "
                "with another --sample-index or a clearer --instruction"
            )
    if any(not v for v in found):
        raise DataError("the model's answer has an empty variant — run again")
    dupes = sorted({v for v in found if found.count(v) > 1})
    if dupes:
        raise DataError(f"the model's answer repeats {dupes[0]!r} — run again")
    return found


def generate_variants(
    client: ModelClient,
    *,
    key: str,
    seed: str,
    n: int = 10,
    spec: str = "",
    temperature: float = 0.0,
    max_tokens: int = 1024,
    sample_index: int = 0,
    instruction: str = DEFAULT_INSTRUCTION,
) -> GeneratedVariants:
    """Ask the model once and parse ``n`` variants of ``seed``."""
    if n < 2:
        raise ConfigError("--n must be at least 2 (the point is variation)")
    text = instruction_for(seed, n, instruction)
    params = SamplingParams(temperature=temperature, max_tokens=max_tokens)
    request = GenerationRequest(
        messages=(Message("user", text),),
        params=params,
        sample_index=sample_index,
        task_id="prompt-variants",
        condition=f"variants:{key}",
    )
    generation: Generation = client.generate(request)
    variants = parse_variants(generation.text, n)
    return GeneratedVariants(
        key=key,
        variants=variants,
        provenance={
            "generator": f"beyondpass {beyondpass.__version__} prompts generate",
            "model": spec or client.provider.spec,
            "model_version": generation.model_version,
            "endpoint": json.dumps(client.provider.identity(), sort_keys=True),
            "seed_prompt": seed,
            "instruction": text,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "sample_index": sample_index,
            "cached": generation.cached,
            "created_at": now_iso(),
            "raw_answer": generation.text,
        },
    )


# -- writing template files ----------------------------------------------------------------
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a valid TOML basic string
    if isinstance(value, list | tuple):
        inner = ",\n".join(f"  {_toml_value(v)}" for v in value)
        return f"[\n{inner},\n]" if value else "[]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def nfr_table_text(
    key: str,
    *,
    name: str,
    label: str,
    metric: str,
    seed_prompt: str,
    variants: list[str],
    provenance: Mapping[str, Any],
) -> str:
    """One ``[nfrs.KEY]`` table (and its provenance) as TOML text."""
    lines = [f"[nfrs.{key}]"]
    for k, v in (
        ("name", name),
        ("label", label),
        ("metric", metric),
        ("seed_prompt", seed_prompt),
        ("variants", variants),
    ):
        lines.append(f"{k} = {_toml_value(v)}")
    lines += ["", f"[nfrs.{key}.provenance]"]
    for k, v in provenance.items():
        lines.append(f"{k} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


_HEADER = (
    '# Prompt templates for `[prompts] plan = "robunfr"` (format: beyondpass prompts list).\n'
    "# Frames not given here come from the built-in templates.\n"
)


def write_nfr_table(path: Path, key: str, table_text: str, *, force: bool = False) -> None:
    """Add (or with ``force`` replace) one NFR in a template file, creating the file.

    Adding appends, so comments and other NFRs in the file stay as they are; replacing
    rewrites the NFR's table in place. The result is validated before it is written, and
    written atomically, so a failed write never leaves a broken file.
    """
    existing = ""
    if path.exists():
        parsed, existing = read_toml_text(path, "prompt template file")
        existing = existing.replace("\r\n", "\n")  # what we append is written with \n
        if key in parsed.get("nfrs", {}):
            if not force:
                raise DataError(
                    f"{path} already has variants for {key!r} — pass --force to replace them "
                    "or write to another --out"
                )
            existing = _drop_nfr_tables(existing, key)
    text = (existing.rstrip("\n") + "\n\n" if existing.strip() else _HEADER + "\n") + table_text
    try:
        parsed_new = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - our own output
        raise DataError(f"refusing to write an invalid template file {path}: {exc}") from exc
    if "frames" in parsed_new:
        templates_from_dict(parsed_new, str(path))
    else:
        templates_from_dict({**parsed_new, "frames": {}}, str(path), _builtin_frames())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _builtin_frames() -> dict[str, Any]:
    from beyondpass.methods.robunfr.prompts import builtin_templates_path

    return dict(read_toml(builtin_templates_path(), "built-in prompt template file")["frames"])


def _drop_nfr_tables(text: str, key: str) -> str:
    """Remove ``[nfrs.KEY]`` and ``[nfrs.KEY.*]`` tables (up to the next other table)."""
    out: list[str] = []
    skipping = False
    header = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
    for line in text.splitlines():
        m = header.match(line)
        if m:
            name = m.group(1).replace(" ", "")
            skipping = name == f"nfrs.{key}" or name.startswith(f"nfrs.{key}.")
        if not skipping:
            out.append(line)
    return "\n".join(out) + "\n"


__all__ = [
    "DEFAULT_INSTRUCTION",
    "GeneratedVariants",
    "generate_variants",
    "instruction_for",
    "nfr_table_text",
    "parse_variants",
    "write_nfr_table",
]
