"""The client's cache, retry policy and concurrency; the response cache itself."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from beyondpass.errors import DataError, ModelError
from beyondpass.models.base import (
    Generation,
    GenerationRequest,
    Message,
    ModelProvider,
    SamplingParams,
)
from beyondpass.models.cache import ResponseCache, default_cache_path
from beyondpass.models.client import ModelClient, RetryableModelError, parse_retry_after
from beyondpass.models.factory import create_provider
from fake_endpoints import FakeEndpoint, bad_request, ok, server_error


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeEndpoint]:
    with FakeEndpoint() as endpoint:
        yield endpoint


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[ResponseCache]:
    with ResponseCache(tmp_path / "responses.sqlite3") as responses:
        yield responses


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _request(text: str = "Write add(a, b).", sample_index: int = 0, **params: object):
    return GenerationRequest(
        messages=(Message("user", text),),
        params=SamplingParams(**params),  # type: ignore[arg-type]
        sample_index=sample_index,
        task_id="HumanEval/0",
    )


class Scripted(ModelProvider):
    """An in-process provider failing or answering from a script (for policy tests)."""

    provider = "scripted"

    def __init__(self, *outcomes: Exception | str) -> None:
        super().__init__("m", "http://scripted.test/v1")
        self.outcomes = list(outcomes)
        self.calls = 0

    def _generate(self, request: GenerationRequest) -> Generation:
        self.calls += 1
        outcome = self.outcomes.pop(0) if self.outcomes else "done"
        if isinstance(outcome, Exception):
            raise outcome
        return Generation(outcome, model_version="m-1")


def _retryable(kind: str = "server", retry_after: float | None = None) -> RetryableModelError:
    return RetryableModelError("boom", kind=kind, reason="HTTP 503", retry_after=retry_after)  # type: ignore[arg-type]


# -- retry policy ---------------------------------------------------------------------------
def test_backoff_is_seeded_exponential_and_capped() -> None:
    def delays(seed: int) -> list[float]:
        client = ModelClient(Scripted(), backoff_base=1.0, backoff_max=5.0, rng_seed=seed)
        return [client.backoff_delay(n) for n in range(1, 7)]

    first = delays(0)
    assert first == delays(0)  # reproducible
    assert first != delays(1)
    for n, delay in enumerate(first, start=1):
        ceiling = min(5.0, 2 ** (n - 1))
        assert ceiling / 2 <= delay <= ceiling


def test_retry_after_wins_when_longer_than_backoff() -> None:
    sleeps = Sleeps()
    provider = Scripted(_retryable("rate_limit", 30.0), _retryable("rate_limit", 0.0), "ok")
    client = ModelClient(provider, sleep=sleeps, backoff_base=1.0)
    assert client.generate(_request()).text == "ok"
    assert sleeps[0] == 30.0
    assert 1.0 <= sleeps[1] <= 2.0  # backoff for the second retry, the header said 0


def test_fatal_error_is_not_retried() -> None:
    sleeps = Sleeps()
    provider = Scripted(ModelError("rejected"), "never")
    client = ModelClient(provider, sleep=sleeps)
    with pytest.raises(ModelError, match="^rejected$"):
        client.generate(_request())
    assert provider.calls == 1 and sleeps == []


def test_bug_in_provider_propagates() -> None:
    client = ModelClient(Scripted(KeyError("bug")), sleep=Sleeps())
    with pytest.raises(KeyError):
        client.generate(_request())


@pytest.mark.parametrize(
    ("kind", "start"),
    [
        ("rate_limit", "http://scripted.test/v1 kept rate-limiting requests for model m"),
        ("server", "http://scripted.test/v1 kept failing for model m"),
    ],
)
def test_give_up_message(kind: str, start: str) -> None:
    client = ModelClient(Scripted(*[_retryable(kind)] * 2), max_attempts=2, sleep=Sleeps())
    with pytest.raises(ModelError) as info:
        client.generate(_request())
    assert str(info.value).startswith(start + " (HTTP 503) after 2 attempts — ")
    assert isinstance(info.value.__cause__, RetryableModelError)


def test_parse_retry_after() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after(None) is None
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    future = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    assert 100.0 < parse_retry_after({"Retry-After": future}) <= 121.0  # type: ignore[operator]


# -- response cache through the client ------------------------------------------------------
def test_second_identical_request_makes_no_call(server: FakeEndpoint, cache: ResponseCache) -> None:
    server.push(ok("first answer", model="m-2024"))
    client = ModelClient(create_provider(f"openai:m@{server.openai_base_url}"), cache)
    first = client.generate(_request())
    second = client.generate(_request())
    assert server.request_count == 1
    assert not first.cached and second.cached
    assert (second.text, second.model_version, second.usage) == (
        first.text,
        first.model_version,
        first.usage,
    )
    assert (client.calls, client.cache_hits) == (1, 1)


@pytest.mark.parametrize(
    "variant",
    [
        _request(sample_index=1),
        _request(temperature=0.2),
        _request(text="Write sub(a, b)."),
        _request(max_tokens=512),
    ],
    ids=["sample_index", "temperature", "messages", "max_tokens"],
)
def test_cache_misses_on_any_difference(
    server: FakeEndpoint, cache: ResponseCache, variant: GenerationRequest
) -> None:
    client = ModelClient(create_provider(f"openai:m@{server.openai_base_url}"), cache)
    client.generate(_request())
    client.generate(variant)
    assert server.request_count == 2


def test_cache_misses_on_other_base_url_or_model(
    server: FakeEndpoint, cache: ResponseCache
) -> None:
    by_ip = server.openai_base_url  # http://127.0.0.1:PORT/v1
    by_name = by_ip.replace("127.0.0.1", "localhost")  # the same server, another base URL
    for spec in (f"openai:m@{by_ip}", f"openai:m@{by_name}", f"openai:n@{by_ip}"):
        ModelClient(create_provider(spec), cache).generate(_request())
    assert server.request_count == 3
    assert len(cache) == 3


def test_cache_persists_across_instances(server: FakeEndpoint, tmp_path: Path) -> None:
    path = tmp_path / "cache" / "responses.sqlite3"
    spec = f"openai:m@{server.openai_base_url}"
    with ResponseCache(path) as first:
        ModelClient(create_provider(spec), first).generate(_request())
    with ResponseCache(path) as second:
        generation = ModelClient(create_provider(spec), second).generate(_request())
    assert generation.cached and generation.text == "echo: Write add(a, b)."
    assert server.request_count == 1


def test_errors_are_not_cached(server: FakeEndpoint, cache: ResponseCache) -> None:
    server.push(bad_request("nope"))
    client = ModelClient(create_provider(f"openai:m@{server.openai_base_url}"), cache)
    with pytest.raises(ModelError):
        client.generate(_request())
    assert len(cache) == 0
    assert client.generate(_request()).text.startswith("echo:")


def test_cache_rows_are_readable(cache: ResponseCache) -> None:
    provider = Scripted("answer")
    ModelClient(provider, cache).generate(_request())
    conn = sqlite3.connect(cache.path)
    (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    key, identity, request, generation, created = conn.execute(
        "SELECT key, identity, request, generation, created_at FROM responses"
    ).fetchone()
    conn.close()
    assert mode == "wal"
    assert key == provider.cache_key(_request())
    assert '"base_url": "http://scripted.test/v1"' in identity
    assert '"task_id": "HumanEval/0"' in request and '"sample_index": 0' in request
    assert '"text": "answer"' in generation and "cached" not in generation
    assert created.startswith(str(datetime.now(UTC).year))


def test_cache_is_thread_safe(cache: ResponseCache) -> None:
    def work(n: int) -> None:
        for i in range(25):
            key = f"{n}-{i}"
            cache.put(key, Generation(text=key))
            got = cache.get(key)
            assert got is not None and got.text == key

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 200


def test_unreadable_cache_file_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(DataError, match="cannot open the response cache"):
        ResponseCache(path)


def test_default_cache_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BEYONDPASS_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_path() == tmp_path / "c" / "responses.sqlite3"
    monkeypatch.delenv("BEYONDPASS_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / ".cache" / "beyondpass" / "responses.sqlite3"


def test_replay_answers_bypass_the_cache(tmp_path: Path, cache: ResponseCache) -> None:
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"task_id": "HumanEval/0", "completion": "x"}\n')
    client = ModelClient(create_provider(f"replay:{answers}"), cache)
    assert client.generate(_request()).text == "x"
    assert len(cache) == 0


# -- many requests --------------------------------------------------------------------------
def test_generate_many_keeps_order_and_bounds_concurrency() -> None:
    with FakeEndpoint(hold_until=3) as server:
        client = ModelClient(
            create_provider(f"openai:m@{server.openai_base_url}"), None, max_concurrency=3
        )
        requests = [_request(text=f"prompt {i}") for i in range(8)]
        seen: list[int] = []
        results = client.generate_many(requests, on_result=lambda i, r: seen.append(i))
        assert [r.text for r in results if isinstance(r, Generation)] == [
            f"echo: prompt {i}" for i in range(8)
        ]
        assert sorted(seen) == list(range(8))
        assert server.max_in_flight == 3  # reached the limit, never above it
        assert server.request_count == 8


def test_generate_many_reports_failures_in_place(server: FakeEndpoint) -> None:
    server.push(bad_request("bad"))
    client = ModelClient(create_provider(f"openai:m@{server.openai_base_url}"), max_concurrency=1)
    results = client.generate_many([_request(text=f"p{i}") for i in range(3)])
    assert isinstance(results[0], ModelError) and "HTTP 400: bad" in str(results[0])
    assert [r.text for r in results[1:]] == ["echo: p1", "echo: p2"]  # type: ignore[union-attr]


def test_generate_many_stores_results_as_they_arrive(server: FakeEndpoint) -> None:
    server.push(server_error(), ok("a"), ok("b"))
    client = ModelClient(
        create_provider(f"openai:m@{server.openai_base_url}"), max_concurrency=1, sleep=Sleeps()
    )
    stored: dict[int, str] = {}
    client.generate_many(
        [_request(text="x"), _request(text="y")],
        on_result=lambda i, r: stored.__setitem__(i, r.text),  # type: ignore[union-attr]
    )
    assert stored == {0: "a", 1: "b"}
    assert client.retries == 1
    assert client.generate_many([]) == []
