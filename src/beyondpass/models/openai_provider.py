"""OpenAI chat completions, and every server that speaks the same API (vLLM, Ollama, ...).

The SDK's own retries are switched off (``max_retries=0``): :class:`ModelClient` owns the
retry policy, so attempts are counted, seeded and recorded in one place. This module only
translates a request and classifies failures as retryable or fatal.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import openai

from beyondpass.errors import ConfigError, ModelError
from beyondpass.models.base import Generation, GenerationRequest, ModelProvider
from beyondpass.models.client import RetryableModelError, sdk_error

API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Sent to self-hosted servers when no key is set; vLLM and Ollama ignore it.
PLACEHOLDER_API_KEY = "sk-no-key-needed"


class OpenAIProvider(ModelProvider):
    """``openai:MODEL[@BASE_URL]`` through the official ``openai`` SDK."""

    provider = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        request_timeout: float = 120.0,
        max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
    ) -> None:
        super().__init__(model, base_url)
        key = os.environ.get(API_KEY_ENV, "").strip()
        if not key:
            if base_url is None:
                raise ConfigError(
                    f"model openai:{model} needs an API key: set {API_KEY_ENV} "
                    "(or append @http://host:port/v1 to use a local OpenAI-compatible server)"
                )
            key = PLACEHOLDER_API_KEY
        if max_tokens_field not in ("max_tokens", "max_completion_tokens"):
            raise ConfigError(
                f"max_tokens_field must be 'max_tokens' or 'max_completion_tokens', "
                f"got {max_tokens_field!r} (model {self.spec})"
            )
        self.request_timeout = float(request_timeout)
        self.max_tokens_field = max_tokens_field
        # An explicit base URL keeps OPENAI_BASE_URL from silently redirecting calls that
        # the cache and run records attribute to the official endpoint.
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.endpoint,
            max_retries=0,
            timeout=self.request_timeout,
        )

    @property
    def endpoint(self) -> str:
        """The base URL requests go to."""
        return self.base_url or DEFAULT_BASE_URL

    def _request_kwargs(self, request: GenerationRequest) -> dict[str, Any]:
        params = request.params
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": params.temperature,
            self.max_tokens_field: params.max_tokens,
        }
        if params.top_p is not None:
            kwargs["top_p"] = params.top_p
        if params.seed is not None:
            kwargs["seed"] = params.seed
        if params.stop:
            kwargs["stop"] = list(params.stop)
        if params.top_k is not None:
            # Not part of the OpenAI API; vLLM and other servers read it from the body.
            kwargs["extra_body"] = {"top_k": params.top_k}
        return kwargs

    def _generate(self, request: GenerationRequest) -> Generation:
        try:
            response = self._client.chat.completions.create(**self._request_kwargs(request))
        except openai.OpenAIError as exc:
            raise sdk_error(
                openai,
                exc,
                model=self.model,
                endpoint=self.endpoint,
                timeout=self.request_timeout,
                key_env=API_KEY_ENV,
            ) from exc
        choices = getattr(response, "choices", None)
        if not choices:
            if not hasattr(response, "choices"):
                raise ModelError(
                    f"{self.endpoint} did not answer in the OpenAI chat format for model "
                    f"{self.model} — check the base URL (it usually ends in /v1)"
                )
            raise RetryableModelError(
                f"{self.endpoint} returned no choices for model {self.model}",
                kind="server",
                reason="no choices in the answer",
            )
        choice = choices[0]
        usage: dict[str, int] = {}
        if response.usage is not None:
            for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
                value = getattr(response.usage, name, None)
                if isinstance(value, int):
                    usage[name] = value
        return Generation(
            text=choice.message.content or "",
            model_version=response.model or self.model,
            finish_reason=choice.finish_reason or "",
            usage=usage,
        )

    def close(self) -> None:
        self._client.close()
