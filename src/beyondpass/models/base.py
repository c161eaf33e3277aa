"""The provider interface every model backend implements.

A provider turns one :class:`GenerationRequest` (chat messages + sampling parameters +
sample index) into one :class:`Generation`. It is synchronous on purpose: the study runner
bounds concurrency with a thread pool, so providers stay simple and SDK-agnostic.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Message:
    """One chat message. ``role`` is ``system``, ``user`` or ``assistant``."""

    role: str
    content: str


@dataclass(frozen=True)
class SamplingParams:
    """Sampling parameters; temperature 0 (greedy) by default, as the seeds prescribe."""

    temperature: float = 0.0
    top_p: float | None = None
    top_k: int | None = None
    max_tokens: int = 2048
    seed: int | None = None
    stop: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class GenerationRequest:
    """What to ask a model, plus the keys a replay file is indexed by.

    ``task_id``/``condition``/``step`` never reach a live model; they let the replay
    provider find the recorded answer and make cache rows readable.
    """

    messages: tuple[Message, ...]
    params: SamplingParams = field(default_factory=SamplingParams)
    sample_index: int = 0
    task_id: str = ""
    condition: str = ""
    step: int = 0


@dataclass(frozen=True)
class Generation:
    """A model's answer and what the endpoint said about it."""

    text: str
    model_version: str = ""  # the model string the endpoint reports (e.g. a dated snapshot)
    finish_reason: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    cached: bool = False
    #: How the model was asked, as sent: ``api`` (``chat`` or ``completions``), the
    #: completion ``prompt`` text, the sampling ``params`` in the request body, and
    #: ``not_sent`` (parameters set but withheld because the server does not take them).
    sent: dict[str, Any] = field(default_factory=dict)


#: finish reasons that mean the answer stopped at the token budget, not where the model
#: ended it: ``length`` (OpenAI's APIs and the servers that speak them), ``max_tokens``
#: (Anthropic's Messages API)
TOKEN_LIMIT_REASONS = frozenset({"length", "max_tokens"})


def cut_off(generation: Any) -> bool:
    """Whether a stored generation record (``finish_reason`` in a dict) was cut at the token
    budget, so what the model meant to write was never seen."""
    return isinstance(generation, dict) and generation.get("finish_reason") in TOKEN_LIMIT_REASONS


class ModelProvider(ABC):
    """Base class of all providers.

    Subclasses set ``provider`` (the spec prefix, e.g. ``"openai"``) and implement
    :meth:`_generate`. Callers use :meth:`generate`, which is where the response cache and
    the retry policy of :mod:`beyondpass.models.client` hook in.
    """

    provider: str = ""

    def __init__(self, model: str, base_url: str | None = None) -> None:
        self.model = model
        self.base_url = base_url

    @property
    def spec(self) -> str:
        """The spec string this provider was built from (``provider:model[@base_url]``)."""
        return f"{self.provider}:{self.model}" + (f"@{self.base_url}" if self.base_url else "")

    def identity(self) -> dict[str, Any]:
        """What identifies this endpoint in cache keys and run records."""
        return {"provider": self.provider, "model": self.model, "base_url": self.base_url or ""}

    def cache_key(self, request: GenerationRequest) -> str:
        """Content hash of everything that determines an answer."""
        payload = {
            **self.identity(),
            "messages": [asdict(m) for m in request.messages],
            "params": request.params.as_dict(),
            "sample_index": request.sample_index,
            **self._extra_cache_fields(request),
        }
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(blob).hexdigest()

    def _extra_cache_fields(self, request: GenerationRequest) -> dict[str, Any]:
        """Fields beyond the messages that select an answer (replay keys by task id)."""
        return {}

    #: Whether answers should go through the response cache (replay reads a file: no).
    cacheable: bool = True

    def generate(self, request: GenerationRequest) -> Generation:
        return self._generate(request)

    @abstractmethod
    def _generate(self, request: GenerationRequest) -> Generation:
        """Produce one answer. Raise :class:`beyondpass.errors.ModelError` on failure."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release network clients."""
