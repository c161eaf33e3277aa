"""Both HTTP providers through their real SDKs against a scripted local server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from beyondpass.errors import ModelError
from beyondpass.models.base import GenerationRequest, Message, SamplingParams
from beyondpass.models.client import ModelClient, RetryableModelError
from beyondpass.models.factory import create_provider
from fake_endpoints import (
    ANTHROPIC_PATH,
    OPENAI_PATH,
    FakeEndpoint,
    bad_request,
    free_port,
    ok,
    rate_limited,
    server_error,
    slow,
)


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Local endpoints need no key; make sure none leaks in from the environment."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeEndpoint]:
    with FakeEndpoint() as endpoint:
        yield endpoint


def _request(text: str = "Write add(a, b).", **params: object) -> GenerationRequest:
    return GenerationRequest(
        messages=(Message("system", "You write Python."), Message("user", text)),
        params=SamplingParams(**params),  # type: ignore[arg-type]
    )


class Sleeps(list[float]):
    """An injected ``sleep`` that records the delays it was asked for."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _client(spec: str, sleeps: Sleeps, *, timeout: float = 10.0, attempts: int = 5) -> ModelClient:
    provider = create_provider(spec, request_timeout=timeout)
    return ModelClient(provider, None, max_attempts=attempts, sleep=sleeps)


# -- success round trips -------------------------------------------------------------------
def test_openai_round_trip(server: FakeEndpoint) -> None:
    server.push(ok("def add(a, b):\n    return a + b", model="qwen2.5-coder-7b-2024-09"))
    client = _client(f"openai:qwen2.5-coder:7b@{server.openai_base_url}", Sleeps())
    generation = client.generate(_request())
    assert generation.text == "def add(a, b):\n    return a + b"
    assert generation.model_version == "qwen2.5-coder-7b-2024-09"
    assert generation.finish_reason == "stop"
    assert generation.usage == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    assert not generation.cached
    (sent,) = server.requests
    assert sent.path == OPENAI_PATH
    assert sent.body == {
        "model": "qwen2.5-coder:7b",
        "messages": [
            {"role": "system", "content": "You write Python."},
            {"role": "user", "content": "Write add(a, b)."},
        ],
        "temperature": 0.0,
        "max_tokens": 2048,
    }
    assert sent.headers["authorization"] == "Bearer sk-no-key-needed"


def test_openai_sends_optional_sampling_parameters(server: FakeEndpoint) -> None:
    client = _client(f"openai:m@{server.openai_base_url}", Sleeps())
    client.generate(_request(temperature=0.8, top_p=0.95, top_k=40, seed=7, stop=("\nclass",)))
    body = server.requests[-1].body
    assert body["temperature"] == 0.8
    assert body["top_p"] == 0.95
    assert body["top_k"] == 40  # via extra_body, for servers that support it
    assert body["seed"] == 7
    assert body["stop"] == ["\nclass"]


def test_openai_key_from_environment(server: FakeEndpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    _client(f"openai:m@{server.openai_base_url}", Sleeps()).generate(_request())
    assert server.requests[-1].headers["authorization"] == "Bearer sk-from-env"


def test_anthropic_round_trip(server: FakeEndpoint) -> None:
    server.push(ok("return a + b", model="claude-3-5-haiku-20241022"))
    client = _client(f"anthropic:claude-3-5-haiku@{server.anthropic_base_url}", Sleeps())
    generation = client.generate(_request(stop=("```",)))
    assert generation.text == "return a + b"
    assert generation.model_version == "claude-3-5-haiku-20241022"
    assert generation.finish_reason == "end_turn"
    assert generation.usage == {"input_tokens": 11, "output_tokens": 7}
    (sent,) = server.requests
    assert sent.path == ANTHROPIC_PATH
    assert sent.body == {
        "model": "claude-3-5-haiku",
        "max_tokens": 2048,
        "system": "You write Python.",
        "messages": [{"role": "user", "content": "Write add(a, b)."}],
        "temperature": 0.0,
        "stop_sequences": ["```"],
    }


def test_anthropic_sends_optional_sampling_parameters(server: FakeEndpoint) -> None:
    client = _client(f"anthropic:c@{server.anthropic_base_url}", Sleeps())
    params = SamplingParams(temperature=1.0, top_p=0.9, top_k=5)
    request = GenerationRequest(messages=(Message("user", "hi"),), params=params)
    assert client.generate(request).text == "echo: hi"
    body = server.requests[-1].body
    assert (body["temperature"], body["top_p"], body["top_k"]) == (1.0, 0.9, 5)
    assert "system" not in body


# -- retries --------------------------------------------------------------------------------
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_rate_limit_honours_retry_after(server: FakeEndpoint, provider: str) -> None:
    server.push(rate_limited(retry_after="7"), ok("fine"))
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    sleeps = Sleeps()
    client = _client(f"{provider}:m@{base}", sleeps)
    assert client.generate(_request()).text == "fine"
    assert server.request_count == 2
    assert len(sleeps) == 1 and sleeps[0] >= 7.0
    assert (client.calls, client.retries) == (2, 1)


def test_rate_limit_with_http_date(server: FakeEndpoint) -> None:
    server.push(rate_limited(retry_after="Wed, 21 Oct 2015 07:28:00 GMT"), ok("fine"))
    sleeps = Sleeps()
    client = _client(f"openai:m@{server.openai_base_url}", sleeps)
    assert client.generate(_request()).text == "fine"
    assert len(sleeps) == 1  # a date in the past: plain backoff, no error


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_server_error_is_retried(server: FakeEndpoint, provider: str) -> None:
    server.push(server_error(500), server_error(529, "Overloaded"), ok("after two failures"))
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    sleeps = Sleeps()
    client = _client(f"{provider}:m@{base}", sleeps)
    assert client.generate(_request()).text == "after two failures"
    assert server.request_count == 3
    assert len(sleeps) == 2


def test_timeout_then_success(server: FakeEndpoint) -> None:
    server.push(slow(2.0, "too late"), ok("in time"))
    sleeps = Sleeps()
    client = _client(f"openai:m@{server.openai_base_url}", sleeps, timeout=0.5)
    assert client.generate(_request()).text == "in time"
    assert server.request_count == 2
    assert len(sleeps) == 1


def test_persistent_timeout_gives_up(server: FakeEndpoint) -> None:
    server.push(slow(2.0), slow(2.0))
    client = _client(f"openai:m@{server.openai_base_url}", Sleeps(), timeout=0.3, attempts=2)
    with pytest.raises(ModelError) as info:
        client.generate(_request())
    assert str(info.value).startswith(
        f"no answer from {server.openai_base_url} for model m (timed out after 0.3 s) "
        "after 2 attempts — "
    )


def test_persistent_server_error_gives_up_with_one_line(server: FakeEndpoint) -> None:
    server.push(*[server_error(500, "The server had an error")] * 3)
    sleeps = Sleeps()
    client = _client(f"openai:m@{server.openai_base_url}", sleeps, attempts=3)
    with pytest.raises(ModelError) as info:
        client.generate(_request())
    assert not isinstance(info.value, RetryableModelError)
    assert str(info.value) == (
        f"{server.openai_base_url} kept failing for model m (HTTP 500: The server had an error) "
        "after 3 attempts — check the server, then run again (cached answers are kept)"
    )
    assert server.request_count == 3
    assert len(sleeps) == 2
    assert client.stats.failures == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_bad_request_is_fatal(server: FakeEndpoint, provider: str) -> None:
    server.push(bad_request("Invalid value for 'temperature'"), ok("never reached"))
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    sleeps = Sleeps()
    client = _client(f"{provider}:m@{base}", sleeps)
    with pytest.raises(ModelError) as info:
        client.generate(_request())
    assert not isinstance(info.value, RetryableModelError)
    assert str(info.value) == (
        f"{base} rejected the request for model m "
        "(HTTP 400: Invalid value for 'temperature') — check the model name and the sampling "
        "parameters"
    )
    assert server.request_count == 1
    assert sleeps == []


def test_unknown_model_404_hint(server: FakeEndpoint) -> None:
    server.push(bad_request("model 'nope' not found", status=404))
    with pytest.raises(ModelError, match=r"HTTP 404: model 'nope' not found\) — check the model"):
        _client(f"openai:nope@{server.openai_base_url}", Sleeps()).generate(_request())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_refused_connection(provider: str) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}" + ("/v1" if provider == "openai" else "")
    sleeps = Sleeps()
    client = _client(f"{provider}:m@{base}", sleeps)
    with pytest.raises(ModelError) as info:
        client.generate(_request())
    assert str(info.value) == (
        f"cannot reach {base} for model m (connection refused) after 5 attempts "
        "— is the server running?"
    )
    assert len(sleeps) == 4
    assert client.calls == 5


def test_backoff_grows_between_attempts() -> None:
    sleeps = Sleeps()
    client = _client(f"openai:m@http://127.0.0.1:{free_port()}/v1", sleeps)
    with pytest.raises(ModelError):
        client.generate(_request())
    # equal jitter: each delay lies in [ceiling/2, ceiling] for ceilings 1, 2, 4, 8
    for attempt, delay in enumerate(sleeps, start=1):
        ceiling = 2 ** (attempt - 1)
        assert ceiling / 2 <= delay <= ceiling
