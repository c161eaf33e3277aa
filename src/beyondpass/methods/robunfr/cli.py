"""``beyondpass prompts``: inspect RobuNFR templates and generate new variants with a model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from beyondpass.cli.base import emit_json
from beyondpass.cli.options import json_option

if TYPE_CHECKING:
    from beyondpass.methods.robunfr.variants import GeneratedVariants


@click.group()
def prompts() -> None:
    """RobuNFR prompt templates: list them, generate new variants."""


def _templates_payload(templates: Any) -> dict[str, Any]:
    return {
        "source": templates.label,
        "sha256": templates.sha256,
        "frames": dict(templates.frames),
        "nfrs": {
            key: {
                "name": nfr.name,
                "label": nfr.label,
                "metric": nfr.metric,
                "seed_prompt": nfr.seed_prompt,
                "variants": list(nfr.variants),
                "provenance": dict(nfr.provenance),
            }
            for key, nfr in templates.nfrs.items()
        },
    }


@prompts.command("list")
@click.option(
    "--templates",
    "templates_path",
    type=click.Path(dir_okay=False),
    help="A template file (default: the built-in Table 1 of RobuNFR).",
)
@json_option("Machine-readable output.")
def prompts_list(templates_path: str | None, as_json: bool) -> None:
    """Show the workflow frames and every NFR's prompt variants."""
    from beyondpass.methods.robunfr.prompts import load_templates

    templates = load_templates(templates_path)
    payload = _templates_payload(templates)
    if as_json:
        emit_json(payload)
        return
    click.echo(f"templates: {payload['source']} (sha256 {payload['sha256'][:12]})")
    for name, frame in payload["frames"].items():
        click.echo(f"frame {name}: {frame!r}")
    for key, nfr in payload["nfrs"].items():
        click.echo(f"\n{key} — {nfr['label']} (metric {nfr['metric'] or '-'})")
        click.echo(f"  seed prompt: {nfr['seed_prompt']}")
        for i, v in enumerate(nfr["variants"], 1):
            click.echo(f"  {i:2d}. {v}")
        source = nfr["provenance"].get("source") or nfr["provenance"].get("model")
        if source:
            click.echo(f"  provenance: {source}")


@prompts.command("generate")
@click.option("--nfr", "key", required=True, help="NFR key, e.g. readability or security.")
@click.option("--model", "spec", required=True, help="Model spec that writes the variants.")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False),
    help="Template file to add the NFR to (created if missing).",
)
@click.option("--n", "n", type=int, default=10, show_default=True, help="Variants to generate.")
@click.option("--seed-prompt", help="What to rephrase (default for built-in NFRs: theirs).")
@click.option("--name", help="The NFR as a noun (default: built-in or the key).")
@click.option("--label", help="Table label (default: built-in or the name, title-cased).")
@click.option("--metric", help="Metric the NFR targets (default: built-in, else none).")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option(
    "--sample-index",
    type=int,
    default=0,
    show_default=True,
    help="Ask again without reusing a cached answer by choosing another index.",
)
@click.option("--instruction", help="Instruction sent to the model ({n} and {seed} filled in).")
@click.option("--force", is_flag=True, help="Replace the NFR if --out already has it.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help="Response cache directory (default: $BEYONDPASS_CACHE_DIR or ~/.cache/beyondpass).",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the response cache.")
@json_option("Print the result as JSON.")
def prompts_generate(
    key: str,
    spec: str,
    out: str,
    n: int,
    seed_prompt: str | None,
    name: str | None,
    label: str | None,
    metric: str | None,
    temperature: float,
    sample_index: int,
    instruction: str | None,
    force: bool,
    cache_dir: str | None,
    no_cache: bool,
    as_json: bool,
) -> None:
    """Ask a model for N semantically equivalent variants of an NFR's seed prompt.

    The variants, the exact instruction, the model and its reported version, the raw answer
    and the time are written to --out as an [nfrs.KEY] table; use the file in a study with
    `[prompts] plan = "robunfr"` and `templates = "FILE"`.
    """
    from beyondpass.methods.robunfr.variants import (
        DEFAULT_INSTRUCTION,
        nfr_table_text,
        write_nfr_table,
    )

    nfr = _nfr_fields(key, seed_prompt, name, label, metric)
    result = _ask_for_variants(
        spec,
        cache_dir=cache_dir,
        no_cache=no_cache,
        key=key,
        seed=nfr["seed_prompt"],
        n=n,
        temperature=temperature,
        sample_index=sample_index,
        instruction=instruction or DEFAULT_INSTRUCTION,
    )
    text = nfr_table_text(key, **nfr, variants=result.variants, provenance=result.provenance)
    write_nfr_table(Path(out), key, text, force=force)
    if as_json:
        emit_json({"out": out, "nfr": key, "variants": result.variants, **result.provenance})
        return
    _echo_variants(result, nfr["seed_prompt"], key, out)


def _nfr_fields(
    key: str, seed_prompt: str | None, name: str | None, label: str | None, metric: str | None
) -> dict[str, str]:
    """The NFR's name, label, metric and seed prompt: as given, else the built-in NFR's."""
    from beyondpass.errors import ConfigError
    from beyondpass.methods.robunfr.prompts import load_templates

    builtin = load_templates().nfrs.get(key)
    seed = seed_prompt or (builtin.seed_prompt if builtin else None)
    if not seed:
        raise ConfigError(f"NFR {key!r} is not built in: give its --seed-prompt")
    nfr_name = name or (builtin.name if builtin else key.replace("_", " "))
    return {
        "name": nfr_name,
        "label": label or (builtin.label if builtin and not name else nfr_name.title()),
        "metric": metric if metric is not None else (builtin.metric if builtin else ""),
        "seed_prompt": seed,
    }


def _ask_for_variants(
    spec: str,
    *,
    cache_dir: str | None,
    no_cache: bool,
    key: str,
    seed: str,
    n: int,
    temperature: float,
    sample_index: int,
    instruction: str,
) -> GeneratedVariants:
    """One request to the model ``spec`` names, through the response cache unless
    ``no_cache``; the provider and the cache are closed whatever happens."""
    from beyondpass.methods.robunfr.variants import generate_variants
    from beyondpass.models.cache import CACHE_FILENAME, ResponseCache, default_cache_path
    from beyondpass.models.client import ModelClient
    from beyondpass.models.factory import create_provider

    provider = create_provider(spec)
    cache = None
    if not no_cache:
        cache = ResponseCache(
            Path(cache_dir) / CACHE_FILENAME if cache_dir else default_cache_path()
        )
    try:
        client = ModelClient(provider, cache, max_concurrency=1)
        return generate_variants(
            client,
            key=key,
            seed=seed,
            n=n,
            spec=spec,
            temperature=temperature,
            sample_index=sample_index,
            instruction=instruction,
        )
    finally:
        provider.close()
        if cache is not None:
            cache.close()


def _echo_variants(result: GeneratedVariants, seed: str, key: str, out: str) -> None:
    """The generated variants and the model that wrote them, for people."""
    click.echo(f"{len(result.variants)} variants of {seed!r} for {key} -> {out}")
    for i, v in enumerate(result.variants, 1):
        click.echo(f"  {i:2d}. {v}")
    click.echo(
        f"model {result.provenance['model']} (reported version "
        f"{result.provenance['model_version'] or 'unknown'})"
    )
