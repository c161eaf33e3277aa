"""Turning a model spec string into a provider, importing SDKs only when used.

A spec is ``provider:model[@base_url][#option=value,...]``; the options after ``#`` are
provider options (``openai:m@http://host/v1#api=completions,top_k=on``), the same ones a
study gives in its ``[[models]]`` table, so a ``--model`` spec alone can say how to ask.
Providers are registry components (``ProviderSpec``: core's in :mod:`beyondpass.core`, a
method may add its own) named as ``"module:Class"`` strings, so ``beyondpass`` starts
without the ``openai``/``anthropic`` packages installed and only the provider a study names
pulls its SDK in.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from beyondpass import registry
from beyondpass.errors import ConfigError
from beyondpass.models.base import ModelProvider

DEFAULT_REQUEST_TIMEOUT = 120.0


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: ``openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1``."""

    provider: str
    model: str
    base_url: str | None = None
    #: provider options written after ``#`` in the spec, as (name, value) pairs
    options: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        text = f"{self.provider}:{self.model}" + (f"@{self.base_url}" if self.base_url else "")
        if self.options:
            text += "#" + ",".join(f"{k}={_show(v)}" for k, v in self.options)
        return text


def _show(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


_TRUE, _FALSE = {"on", "true", "yes"}, {"off", "false", "no"}


def _option_value(text: str) -> Any:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def _split_options(spec: str, rest: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``model@url#a=1,b`` -> (``model@url``, ((a, 1), (b, True)))."""
    rest, sep, text = rest.partition("#")
    if not sep:
        return rest, ()
    options: dict[str, Any] = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        name = name.strip()
        if not name.isidentifier() or (eq and not value.strip()):
            raise ConfigError(
                f"model spec {spec!r} has a malformed option {item.strip()!r} after '#' — "
                "write NAME=VALUE pairs separated by commas, e.g. #api=completions,top_k=on"
            )
        if name in options:
            raise ConfigError(f"model spec {spec!r} gives option {name!r} twice")
        options[name] = _option_value(value) if eq else True
    return rest, tuple(options.items())


def _valid() -> str:
    return ", ".join(sorted(registry.names("providers")))


def _split_base_url(rest: str) -> tuple[str, str | None]:
    """Split ``model@http(s)://...`` on the last ``@`` that starts a URL."""
    pos = len(rest)
    while True:
        pos = rest.rfind("@", 0, pos)
        if pos < 0:
            return rest, None
        tail = rest[pos + 1 :]
        if tail.lower().startswith(("http://", "https://")):
            return rest[:pos], tail


def parse_spec(spec: str) -> ModelSpec:
    """Parse ``provider:model[@base_url]``; model names may contain ``:`` and ``@``."""
    text = spec.strip()
    provider, sep, rest = text.partition(":")
    provider = provider.strip().lower()
    if not sep or not provider:
        raise ConfigError(
            f"model spec {spec!r} names no provider — write provider:model, e.g. openai:gpt-4o "
            f"(providers: {_valid()})"
        )
    found = registry.find("providers", provider)
    if found is None:
        raise ConfigError(
            f"model spec {spec!r} has unknown provider {provider!r} — use one of: {_valid()}"
        )
    base_url: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    if found[0].takes_url:
        rest, options = _split_options(spec, rest)
        rest, base_url = _split_base_url(rest)
        if base_url is not None:
            base_url = base_url.strip().rstrip("/")
            if not base_url.partition("://")[2]:
                raise ConfigError(
                    f"model spec {spec!r} has an empty base URL — write e.g. "
                    f"{provider}:MODEL@http://localhost:8000/v1"
                )
    model = rest.strip()
    if not model:
        what = "a replay file path" if provider == "replay" else "a model name"
        raise ConfigError(
            f"model spec {spec!r} has no model — give {what} after '{provider}:' "
            f"(providers: {_valid()})"
        )
    return ModelSpec(provider=provider, model=model, base_url=base_url, options=options)


def _provider_class(name: str) -> type[ModelProvider]:
    """The provider class the registry names; a missing SDK is one line naming its extra."""
    found = registry.find("providers", name)
    if found is None:  # a ModelSpec built by hand, not parsed
        raise ConfigError(f"unknown provider {name!r} — use one of: {_valid()}")
    spec, owner = found
    try:
        cls: type[ModelProvider] = registry.resolve(spec.factory, owner)
    except ModuleNotFoundError as exc:
        if spec.sdk is not None and (exc.name or "").split(".")[0] == spec.sdk:
            raise ConfigError(
                f"the {name} provider needs the {spec.sdk!r} package: "
                f"pip install 'beyondpass[{spec.sdk}]'"
            ) from exc
        raise
    return cls


def create_provider(spec: str | ModelSpec, **options: Any) -> ModelProvider:
    """Build the provider a spec names.

    Options: ``request_timeout`` (seconds per HTTP call, default 120) and any keyword the
    provider class accepts; an option it does not accept is a ConfigError. Options written
    in the spec (``#name=value``) count as given here; giving one both ways with different
    values is a ConfigError.
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_spec(spec)
    for name, value in parsed.options:
        if name in options and options[name] != value:
            raise ConfigError(
                f"model {parsed} sets option {name} in the spec ({value!r}) and again as "
                f"{options[name]!r} — keep one"
            )
        options[name] = value
    cls = _provider_class(parsed.provider)
    options.setdefault("request_timeout", DEFAULT_REQUEST_TIMEOUT)
    timeout = options["request_timeout"]
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError(
            f"request_timeout must be a positive number of seconds, got {timeout!r} "
            f"(model {parsed})"
        )
    accepted = inspect.signature(cls.__init__).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    unknown = sorted(k for k in options if k not in accepted and not takes_any)
    if unknown:
        raise ConfigError(
            f"the {parsed.provider} provider has no option {', '.join(unknown)} "
            f"(model {parsed}) — remove it"
        )
    return cls(parsed.model, parsed.base_url, **options)
