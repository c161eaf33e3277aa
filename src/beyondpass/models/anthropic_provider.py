"""Anthropic's Messages API through the official ``anthropic`` SDK.

As for OpenAI, the SDK's retries are off and :class:`ModelClient` retries. System messages
go to the top-level ``system`` parameter, as the Messages API requires. The 2.x SDK has no
typed sampling arguments, so temperature/top_p/top_k travel in the request body.
"""

from __future__ import annotations

import os
from typing import Any

import anthropic

from beyondpass.errors import ConfigError, ModelError
from beyondpass.models.base import Generation, GenerationRequest, ModelProvider
from beyondpass.models.client import sdk_error

API_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_BASE_URL = "https://api.anthropic.com"
#: Sent to self-hosted or proxy endpoints when no key is set.
PLACEHOLDER_API_KEY = "no-key-needed"


class AnthropicProvider(ModelProvider):
    """``anthropic:MODEL[@BASE_URL]``."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        request_timeout: float = 120.0,
    ) -> None:
        super().__init__(model, base_url)
        key = os.environ.get(API_KEY_ENV, "").strip()
        if not key:
            if base_url is None:
                raise ConfigError(f"model anthropic:{model} needs an API key: set {API_KEY_ENV}")
            key = PLACEHOLDER_API_KEY
        self.request_timeout = float(request_timeout)
        # Explicit key and base URL: no other credential source or ANTHROPIC_BASE_URL can
        # change where calls go behind the cache's back.
        self._client = anthropic.Anthropic(
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
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": params.max_tokens,
            "messages": [
                {"role": m.role, "content": m.content}
                for m in request.messages
                if m.role != "system"
            ],
        }
        if system:
            kwargs["system"] = system
        if params.stop:
            kwargs["stop_sequences"] = list(params.stop)
        body: dict[str, Any] = {"temperature": params.temperature}
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.top_k is not None:
            body["top_k"] = params.top_k
        kwargs["extra_body"] = body  # the Messages API has no seed: params.seed is not sent
        return kwargs

    def _generate(self, request: GenerationRequest) -> Generation:
        try:
            response = self._client.messages.create(**self._request_kwargs(request))
        except anthropic.AnthropicError as exc:
            raise sdk_error(
                anthropic,
                exc,
                model=self.model,
                endpoint=self.endpoint,
                timeout=self.request_timeout,
                key_env=API_KEY_ENV,
            ) from exc
        content = getattr(response, "content", None)
        if content is None:
            raise ModelError(
                f"{self.endpoint} did not answer in the Anthropic Messages format for model "
                f"{self.model} — check the base URL (without /v1)"
            )
        text = "".join(
            getattr(block, "text", "") for block in content if getattr(block, "type", "") == "text"
        )
        usage: dict[str, int] = {}
        if response.usage is not None:
            for name in ("input_tokens", "output_tokens"):
                value = getattr(response.usage, name, None)
                if isinstance(value, int):
                    usage[name] = value
        return Generation(
            text=text,
            model_version=response.model or self.model,
            finish_reason=response.stop_reason or "",
            usage=usage,
        )

    def close(self) -> None:
        self._client.close()
