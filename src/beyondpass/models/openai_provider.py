"""OpenAI chat completions, and every server that speaks the same API (vLLM, Ollama, ...).

Two ways of asking, chosen per model (``api`` option): ``chat`` (``/v1/chat/completions``,
the prompt as messages; the default) and ``completions`` (``/v1/completions``, raw text
continued by the model — how base models and completion-style prompts such as NoFunEval's
are meant to be asked; vLLM and llama.cpp serve it). Each answer records which was used
and the parameters actually sent (:attr:`Generation.sent`).

The SDK's own retries are switched off (``max_retries=0``): :class:`ModelClient` owns the
retry policy, so attempts are counted, seeded and recorded in one place. This module only
translates a request and classifies failures as retryable or fatal.

``samples_per_request = k > 1`` asks for k samples of a prompt in one request (the API's
``n``; vLLM serves them from one prefill): sample index ``i`` is choice ``i % k`` of batch
``i // k`` of the same first-step request, fetched once and handed out as each sample is
asked for, so the client still caches every choice under its own sample index. A server
that rejects ``n`` (HTTP 4xx) or answers with fewer choices is asked one sample per request
from then on.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from typing import Any, Literal

import openai

from beyondpass.errors import ConfigError, ModelError
from beyondpass.models.base import Generation, GenerationRequest, ModelProvider, SamplingParams
from beyondpass.models.client import RetryableModelError, sdk_error

API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Sent to self-hosted servers when no key is set; vLLM and Ollama ignore it.
PLACEHOLDER_API_KEY = "sk-no-key-needed"
APIS = ("chat", "completions")


def completion_prompt(request: GenerationRequest) -> str:
    """The text a completion endpoint continues: a lone message's content verbatim (the
    benchmark's own prompt, byte for byte), else every message's content joined by a blank
    line, in order (system, user, and earlier answers of a multi-step workflow)."""
    return "\n\n".join(m.content for m in request.messages)


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
        api: Literal["chat", "completions"] = "chat",
        top_k: bool | None = None,
        samples_per_request: int = 1,
    ) -> None:
        """``api``: ``chat`` or ``completions``. ``top_k``: whether the server takes the
        ``top_k`` sampling parameter (not part of the OpenAI API); by default it is sent to
        self-hosted servers (a base URL is given: vLLM, llama.cpp) and never to the official
        endpoint. A ``top_k`` not sent is recorded as such with every answer.
        ``samples_per_request``: samples asked for in one request (``n``; module docstring)."""
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
        if api not in APIS:
            raise ConfigError(
                f"api must be 'chat' or 'completions', got {api!r} (model {self.spec})"
            )
        if top_k is not None and not isinstance(top_k, bool):
            raise ConfigError(
                f"top_k must be on or off (true/false), got {top_k!r} (model {self.spec})"
            )
        if (
            not isinstance(samples_per_request, int)
            or isinstance(samples_per_request, bool)
            or samples_per_request < 1
        ):
            raise ConfigError(
                f"samples_per_request must be a positive integer, got {samples_per_request!r} "
                f"(model {self.spec})"
            )
        self.samples_per_request = samples_per_request
        #: why the server is asked one sample per request after all ("" while n is used)
        self.n_refused = ""
        self._batches: dict[str, dict[int, Generation]] = {}
        self._batch_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self.request_timeout = float(request_timeout)
        self.max_tokens_field = max_tokens_field
        self.api = api
        self.sends_top_k = top_k if top_k is not None else base_url is not None
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

    def identity(self) -> dict[str, Any]:
        """Chat identities stay as they were (old cache rows still match); a completion
        model is another identity, so its answers never mix with chat answers."""
        base = super().identity()
        return {**base, "api": self.api} if self.api != "chat" else base

    def _extra_cache_fields(self, request: GenerationRequest) -> dict[str, Any]:
        # the same parameters with top_k withheld are another request
        extra: dict[str, Any] = {"top_k_sent": False} if self._withheld(request.params) else {}
        if self.samples_per_request > 1:  # a choice of a k-sample request (old keys kept)
            extra["samples_per_request"] = self.samples_per_request
        return extra

    def _withheld(self, params: SamplingParams) -> list[str]:
        return ["top_k"] if params.top_k is not None and not self.sends_top_k else []

    def _sampling_kwargs(self, params: SamplingParams, n: int = 1) -> dict[str, Any]:
        """The sampling fields of the request body, exactly as sent."""
        body: dict[str, Any] = {
            "temperature": params.temperature,
            self.max_tokens_field: params.max_tokens,
        }
        if params.top_p is not None:
            body["top_p"] = params.top_p
        if params.seed is not None:
            body["seed"] = params.seed
        if params.stop:
            body["stop"] = list(params.stop)
        if params.top_k is not None and self.sends_top_k:
            body["top_k"] = params.top_k
        if n > 1:
            body["n"] = n  # n samples in one request: choice j is sample (batch * n + j)
        elif self.api == "completions":
            body["n"] = 1  # one sample per request: samples are told apart by sample_index
        return body

    def _request_kwargs(self, request: GenerationRequest, n: int = 1) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, **self._sampling_kwargs(request.params, n)}
        if self.api == "completions":
            kwargs["prompt"] = completion_prompt(request)
        else:
            kwargs["messages"] = [{"role": m.role, "content": m.content} for m in request.messages]
        if "top_k" in kwargs:
            # Not part of the OpenAI API; vLLM and other servers read it from the body.
            kwargs["extra_body"] = {"top_k": kwargs.pop("top_k")}
        return kwargs

    def _sent(self, request: GenerationRequest, n: int = 1) -> dict[str, Any]:
        sent: dict[str, Any] = {
            "api": self.api,
            "params": self._sampling_kwargs(request.params, n),
        }
        if self.api == "completions":
            sent["prompt"] = completion_prompt(request)
        if withheld := self._withheld(request.params):
            sent["not_sent"] = withheld
        return sent

    def _call(self, request: GenerationRequest, n: int = 1) -> Any:
        kwargs = self._request_kwargs(request, n)
        try:
            if self.api == "completions":
                return self._client.completions.create(**kwargs)
            return self._client.chat.completions.create(**kwargs)
        except openai.NotFoundError as exc:
            if self.api != "completions":
                raise self._error(exc) from exc
            raise ModelError(
                f"{self.endpoint} has no completions endpoint for model {self.model} "
                f"(HTTP 404 on /completions) — the server may serve chat only: drop "
                "api=completions, or check the model name and the base URL"
            ) from exc
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc

    def _error(self, exc: Exception) -> ModelError:
        return sdk_error(
            openai,
            exc,
            model=self.model,
            endpoint=self.endpoint,
            timeout=self.request_timeout,
            key_env=API_KEY_ENV,
        )

    def _generate(self, request: GenerationRequest) -> Generation:
        k = self.samples_per_request
        # only a first step is the same request for every sample; later steps carry each
        # sample's own code, and a k-sample request for one of them would waste k - 1
        if k > 1 and request.step == 0 and not self.n_refused:
            found = self._from_batch(request, k)
            if found is not None:
                return found
        return self._answers(request, self._call(request), 1)[0]

    def _from_batch(self, request: GenerationRequest, k: int) -> Generation | None:
        """Sample ``request.sample_index`` from its k-sample batch (fetched on first need);
        None when the server does not take ``n`` (ask for the sample alone)."""
        batch = self.cache_key(dataclasses.replace(request, sample_index=request.sample_index // k))
        choice = request.sample_index % k
        with self._lock:
            lock = self._batch_locks.setdefault(batch, threading.Lock())
        with lock:
            if self.n_refused:  # another batch found out meanwhile
                return None
            pool = self._batches.get(batch)
            if pool is None or choice not in pool:
                try:
                    response = self._call(request, k)
                except RetryableModelError:
                    raise
                except ModelError as exc:  # a 4xx: the server may not take n (vLLM greedy)
                    self.n_refused = f"rejected n={k}: {exc}"
                    return None
                answers = self._answers(request, response, k)
                if len(answers) < k:
                    self.n_refused = f"answered {len(answers)} of n={k} choices"
                    return None
                pool = self._batches[batch] = dict(enumerate(answers))
            answer = pool.pop(choice)
            if not pool:
                del self._batches[batch]
            return answer

    def _answers(self, request: GenerationRequest, response: Any, n: int) -> list[Generation]:
        """The answer's choices in index order, as Generations (the usage of the whole
        request goes with choice 0, so sums over samples stay right)."""
        choices = getattr(response, "choices", None)
        if not choices:
            if not hasattr(response, "choices"):
                kind = "completions" if self.api == "completions" else "chat"
                raise ModelError(
                    f"{self.endpoint} did not answer in the OpenAI {kind} format for model "
                    f"{self.model} — check the base URL (it usually ends in /v1)"
                )
            raise RetryableModelError(
                f"{self.endpoint} returned no choices for model {self.model}",
                kind="server",
                reason="no choices in the answer",
            )
        usage: dict[str, int] = {}
        if response.usage is not None:
            for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
                value = getattr(response.usage, name, None)
                if isinstance(value, int):
                    usage[name] = value
        ordered = sorted(choices, key=lambda c: getattr(c, "index", 0) or 0) if n > 1 else choices
        out = []
        for j, choice in enumerate(ordered[:n]):
            if self.api == "completions":
                text = getattr(choice, "text", None)
            else:
                message = getattr(choice, "message", None)
                text = getattr(message, "content", None)
            sent = self._sent(request, n)
            if n > 1:
                sent["choice"] = j
            out.append(
                Generation(
                    text=text or "",
                    model_version=response.model or self.model,
                    finish_reason=choice.finish_reason or "",
                    usage=usage if j == 0 else {},
                    sent=sent,
                )
            )
        return out

    def close(self) -> None:
        self._client.close()
