"""Calling a provider the way a study needs: cached, retried, bounded in concurrency.

Providers only translate one request into one HTTP call and classify failures. Everything
about *when* to call lives here, in one place: the response cache (so an interrupted study
resumes without paying twice), exponential backoff with seeded jitter (so retry schedules
are reproducible in tests), Retry-After, and a thread pool capped at ``max_concurrency``.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from beyondpass.errors import ModelError
from beyondpass.models.base import Generation, GenerationRequest, ModelProvider
from beyondpass.models.cache import ResponseCache

FailureKind = Literal["connection", "timeout", "rate_limit", "server"]


class RetryableModelError(ModelError):
    """A failure worth retrying: refused/dropped connection, timeout, HTTP 429 or 5xx.

    ``reason`` is a short parenthetical (``connection refused``, ``HTTP 503: overloaded``);
    ``retry_after`` is the server's Retry-After in seconds, when it sent one. The client turns
    the last of these into the final one-line :class:`ModelError` once attempts run out.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: FailureKind,
        reason: str,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.reason = reason
        self.retry_after = retry_after


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or HTTP-date) or ``retry-after-ms``."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def describe_transport_error(exc: BaseException) -> tuple[FailureKind, str]:
    """Classify a connection-level failure from its exception chain (refused, DNS, reset)."""
    seen: set[int] = set()
    node: BaseException | None = exc
    text = ""
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        if isinstance(node, ConnectionRefusedError):
            return "connection", "connection refused"
        if isinstance(node, TimeoutError):
            return "timeout", "timed out"
        if isinstance(node, ConnectionResetError):
            return "connection", "connection reset"
        if isinstance(node, socket.gaierror):
            return "connection", "host not found"
        text += " " + str(node)
        node = node.__cause__ or node.__context__
    lowered = text.lower()
    if "connection refused" in lowered:
        return "connection", "connection refused"
    if any(s in lowered for s in ("name or service not known", "name resolution", "nodename")):
        return "connection", "host not found"
    if "timed out" in lowered:
        return "timeout", "timed out"
    return "connection", "connection failed"


def transport_error(
    *, model: str, endpoint: str, exc: BaseException, timeout: float | None, timed_out: bool
) -> RetryableModelError:
    """A retryable error for a call that got no HTTP answer (refused, reset, timed out)."""
    kind, reason = ("timeout", "timed out") if timed_out else describe_transport_error(exc)
    if kind == "timeout" and timeout is not None:
        reason = f"timed out after {timeout:g} s"
    return RetryableModelError(f"{endpoint}: {reason} for model {model}", kind=kind, reason=reason)


def one_line(text: object, limit: int = 200) -> str:
    """Collapse a server message to one short line for an error message."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def server_message(body: object, fallback: str = "") -> str:
    """The human part of an error body (``{"error": {"message": ...}}`` and variants)."""
    if isinstance(body, Mapping):
        for candidate in (body.get("error"), body):
            if isinstance(candidate, Mapping):
                for name in ("message", "detail", "msg"):
                    value = candidate.get(name)
                    if isinstance(value, str) and value.strip():
                        return one_line(value)
            elif isinstance(candidate, str) and candidate.strip():
                return one_line(candidate)
        return one_line(json.dumps(body, ensure_ascii=False)) if body else one_line(fallback)
    if isinstance(body, str) and body.strip():
        return one_line(body)
    return one_line(fallback)


_STATUS_HINTS = {
    401: "check the API key in {key_env}",
    403: "check that the API key may use this model",
    404: "check the model name and the base URL",
}


def status_error(
    *,
    model: str,
    endpoint: str,
    status: int,
    message: str,
    headers: Mapping[str, str] | None = None,
    key_env: str = "",
) -> ModelError:
    """Map an HTTP error status to a retryable or a fatal error (SDK-independent).

    429, 408, 409 and 5xx are retried; any other 4xx means the request itself is wrong and
    retrying would only repeat the rejection.
    """
    reason = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status in (408, 409, 429) or status >= 500:
        kind: FailureKind = "rate_limit" if status == 429 else "server"
        return RetryableModelError(
            f"{endpoint} answered {reason} for model {model}",
            kind=kind,
            reason=reason,
            retry_after=parse_retry_after(headers),
        )
    hint = _STATUS_HINTS.get(status, "check the model name and the sampling parameters")
    hint = hint.format(key_env=key_env or "the environment")
    return ModelError(f"{endpoint} rejected the request for model {model} ({reason}) — {hint}")


@dataclass
class ClientStats:
    """Counters recorded in run metadata."""

    calls: int = 0  # provider calls attempted (every retry counts)
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0  # requests that ended in a ModelError

    def as_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
            "failures": self.failures,
        }


class ModelClient:
    """Cache + retries + bounded concurrency around one provider."""

    def __init__(
        self,
        provider: ModelProvider,
        cache: ResponseCache | None = None,
        *,
        max_concurrency: int = 4,
        max_attempts: int = 5,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        rng_seed: int = 0,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.provider = provider
        self.cache = cache
        self.max_concurrency = max_concurrency
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._sleep = sleep
        self._rng = random.Random(rng_seed)
        self._lock = threading.Lock()
        self.stats = ClientStats()

    # -- counters (read by the runner for metadata) -----------------------------------------
    @property
    def calls(self) -> int:
        return self.stats.calls

    @property
    def cache_hits(self) -> int:
        return self.stats.cache_hits

    @property
    def retries(self) -> int:
        return self.stats.retries

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages (the base URL, else the spec)."""
        where = getattr(self.provider, "endpoint", None) or self.provider.base_url
        return str(where) if where else self.provider.spec

    # -- one request ------------------------------------------------------------------------
    def generate(self, request: GenerationRequest) -> Generation:
        """Answer one request: from the cache if present, else from the provider (retried)."""
        use_cache = self.cache is not None and self.provider.cacheable
        key = self.provider.cache_key(request) if use_cache else ""
        if use_cache:
            assert self.cache is not None
            hit = self.cache.get(key)
            if hit is not None:
                with self._lock:
                    self.stats.cache_hits += 1
                return hit
        try:
            generation = self._call_with_retries(request)
        except ModelError:
            with self._lock:
                self.stats.failures += 1
            raise
        if use_cache:
            assert self.cache is not None
            self.cache.put(key, generation, identity=self.provider.identity(), request=request)
        return generation

    def backoff_delay(self, attempt: int) -> float:
        """Delay before retry number ``attempt`` (1-based): capped exponential, equal jitter."""
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** (attempt - 1)))
        with self._lock:
            jitter = self._rng.random()
        return ceiling / 2 + jitter * ceiling / 2

    def _call_with_retries(self, request: GenerationRequest) -> Generation:
        last: RetryableModelError | None = None
        for attempt in range(1, self.max_attempts + 1):
            with self._lock:
                self.stats.calls += 1
                if attempt > 1:
                    self.stats.retries += 1
            try:
                return self.provider.generate(request)
            except RetryableModelError as exc:
                last = exc
                if attempt == self.max_attempts:
                    break
                delay = self.backoff_delay(attempt)
                if exc.retry_after is not None:
                    delay = max(exc.retry_after, delay)
                self._sleep(delay)
        assert last is not None
        raise ModelError(self._give_up_message(last)) from last

    def _give_up_message(self, exc: RetryableModelError) -> str:
        where, model, n = self.endpoint, self.provider.model, self.max_attempts
        tail = f"for model {model} ({exc.reason}) after {n} attempt{'s' if n != 1 else ''}"
        if exc.kind == "connection":
            return f"cannot reach {where} {tail} — is the server running?"
        if exc.kind == "timeout":
            return (
                f"no answer from {where} {tail} — the server is overloaded or the request "
                "timeout is too short; raise it or lower the concurrency"
            )
        if exc.kind == "rate_limit":
            return (
                f"{where} kept rate-limiting requests {tail} — lower the concurrency or "
                "wait and run again (cached answers are kept)"
            )
        return (
            f"{where} kept failing {tail} — check the server, then run again "
            "(cached answers are kept)"
        )

    # -- many requests ----------------------------------------------------------------------
    def generate_many(
        self,
        requests: Sequence[GenerationRequest],
        on_result: Callable[[int, Generation | ModelError], Any] | None = None,
    ) -> list[Generation | ModelError]:
        """Answer all requests, at most ``max_concurrency`` at once; output in input order.

        A request that fails yields its :class:`ModelError` in its slot instead of stopping
        the others. ``on_result(i, result)`` is called in the calling thread as each request
        finishes, so callers can store results as they arrive. Any other exception is a bug:
        pending requests are cancelled and it propagates.
        """
        results: list[Generation | ModelError | None] = [None] * len(requests)
        if not requests:
            return []

        def run(i: int) -> tuple[int, Generation | ModelError]:
            try:
                return i, self.generate(requests[i])
            except ModelError as exc:
                return i, exc

        with ThreadPoolExecutor(
            max_workers=min(self.max_concurrency, len(requests)),
            thread_name_prefix="beyondpass-model",
        ) as pool:
            pending: set[Future[tuple[int, Generation | ModelError]]] = {
                pool.submit(run, i) for i in range(len(requests))
            }
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        i, result = future.result()
                        results[i] = result
                        if on_result is not None:
                            on_result(i, result)
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
        return [r for r in results if r is not None]


def sdk_error(
    sdk: Any, exc: Exception, *, model: str, endpoint: str, timeout: float, key_env: str
) -> ModelError:
    """Translate an exception of the openai or anthropic SDK (same hierarchy) into ours.

    Timeouts, connection failures, 408/409/429/5xx and unreadable answers are retryable;
    other statuses and SDK misuse are fatal.
    """
    if isinstance(exc, sdk.APITimeoutError | sdk.APIConnectionError):
        timed_out = isinstance(exc, sdk.APITimeoutError)
        return transport_error(
            model=model, endpoint=endpoint, exc=exc, timeout=timeout, timed_out=timed_out
        )
    if isinstance(exc, sdk.APIStatusError):
        return status_error(
            model=model,
            endpoint=endpoint,
            status=exc.status_code,
            message=server_message(exc.body, exc.message),
            headers=exc.response.headers,
            key_env=key_env,
        )
    if isinstance(exc, sdk.APIError):  # e.g. a body that is not in the expected format
        reason = server_message(None, exc.message)
        return RetryableModelError(
            f"{endpoint} sent an unreadable answer for model {model}: {reason}",
            kind="server",
            reason=f"unreadable answer: {reason}",
        )
    return ModelError(
        f"the {sdk.__name__} SDK failed for model {model} "
        f"({server_message(None, exc)}) — check the model spec and the SDK version"
    )
