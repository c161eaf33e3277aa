"""Checking a component's options against its own schema (a pydantic model the spec
names), so a study file's bad key is one line naming it and the valid ones."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError


def validate_options(
    model: Any, values: Mapping[str, Any], where: str, context: Mapping[str, Any] | None = None
) -> Any:
    """``values`` checked by the pydantic ``model``; one line naming the bad key on error.
    ``context`` reaches the model's validators (``{"base": folder}``: see
    :func:`evaluator_options`)."""
    import pydantic

    try:
        return model.model_validate(dict(values), context=dict(context or {}))
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first.get("loc", ())) or "(options)"
        if first.get("type") == "extra_forbidden":
            valid = ", ".join(model.model_fields) or "none"
            raise ConfigError(f"{where}: unknown key {key!r} — valid: {valid}") from None
        raise ConfigError(f"{where}.{key}: {first.get('msg', 'invalid')}") from None


def evaluator_options(
    name: str, values: Mapping[str, Any], where: str, base: Path | None = None
) -> dict[str, Any]:
    """Options for evaluator ``name``, validated by its own schema, as plain data. ``base``:
    the folder of the study file that gave them, so a schema can read a relative path in
    them as every path of a study file is read (validation context ``{"base": base}``)."""
    from beyondpass.registry import lookup, resolve

    spec, owner = lookup("evaluators", name)
    if spec.options is None:
        if values:
            raise ConfigError(f"{where}: evaluator {name} takes no options, got {sorted(values)}")
        return {}
    model = resolve(spec.options, owner, needs_extra=False)
    context = {"base": base} if base is not None else None
    return validate_options(model, values, where, context).model_dump()


__all__ = ["evaluator_options", "validate_options"]
