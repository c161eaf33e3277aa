"""Turning a model spec string into a provider, importing SDKs only when used.

A spec is ``provider:model[@base_url][#option=value,...]``; the options after ``#`` are
provider options (``openai:m@http://host/v1#api=completions,top_k=on``), the same ones a
study gives in its ``[[models]]`` table, so a ``--model`` spec alone can say how to ask. The
registry maps provider names to
``"module:Class"`` strings, so ``beyondpass`` starts without the ``openai``/``anthropic``
packages installed and only the provider a study names pulls its SDK in.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any

from beyondpass.errors import ConfigError
from beyondpass.models.base import ModelProvider

#: provider name -> ("module:Class", the pip package its SDK comes from, or None)
PROVIDERS: dict[str, tuple[str, str | None]] = {
    "openai": ("beyondpass.models.openai_provider:OpenAIProvider", "openai"),
    "anthropic": ("beyondpass.models.anthropic_provider:AnthropicProvider", "anthropic"),
    "replay": ("beyondpass.models.replay:ReplayProvider", None),
}

#: providers whose spec may end in ``@http(s)://...``
_URL_PROVIDERS = {"openai", "anthropic"}

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
    return ", ".join(sorted(PROVIDERS))


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
    if provider not in PROVIDERS:
        raise ConfigError(
            f"model spec {spec!r} has unknown provider {provider!r} — use one of: {_valid()}"
        )
    base_url: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    if provider in _URL_PROVIDERS:
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


def _load_class(provider: str) -> type[ModelProvider]:
    target, package = PROVIDERS[provider]
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if package is not None and missing == package:
            raise ConfigError(
                f"the {provider} provider needs the {package!r} package: "
                f"pip install 'beyondpass[{package}]'"
            ) from exc
        raise
    cls: type[ModelProvider] = getattr(module, class_name)
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
    cls = _load_class(parsed.provider)
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
