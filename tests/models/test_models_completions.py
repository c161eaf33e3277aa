"""Raw text completion (``/v1/completions``) through the real openai SDK against the local
scripted server: the request body as sent, what each answer records, retries, the cache,
and the error of a chat-only server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from beyondpass.errors import ConfigError, ModelError
from beyondpass.models.base import GenerationRequest, Message, SamplingParams
from beyondpass.models.cache import ResponseCache
from beyondpass.models.client import ModelClient
from beyondpass.models.factory import ModelSpec, create_provider, parse_spec
from fake_endpoints import (
    COMPLETIONS_PATH,
    OPENAI_PATH,
    FakeEndpoint,
    ok,
    rate_limited,
    server_error,
)

PROMPT = "### Instruction:\nMake it faster.\n### Response:\n```python\n"
GREEDY = SamplingParams()
NOFUNEVAL_SAMPLING = SamplingParams(temperature=0.8, top_p=0.95, top_k=50, max_tokens=1200)


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeEndpoint]:
    with FakeEndpoint() as endpoint:
        yield endpoint


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _request(params: SamplingParams = GREEDY, **kw: object) -> GenerationRequest:
    return GenerationRequest(messages=(Message("user", PROMPT),), params=params, **kw)  # type: ignore[arg-type]


def _client(
    spec: str, cache: ResponseCache | None = None, sleeps: Sleeps | None = None
) -> ModelClient:
    return ModelClient(
        create_provider(spec), cache, sleep=sleeps if sleeps is not None else Sleeps()
    )


def test_sampled_completion_body_and_record(server: FakeEndpoint) -> None:
    server.push(ok("print(sum(map(int, input().split())))\n```", model="qwen-base-2024"))
    client = _client(f"openai:qwen-base@{server.openai_base_url}#api=completions")
    generation = client.generate(_request(NOFUNEVAL_SAMPLING, sample_index=3))
    (sent,) = server.requests
    assert sent.path == COMPLETIONS_PATH
    assert sent.body == {
        "model": "qwen-base",
        "prompt": PROMPT,
        "max_tokens": 1200,
        "temperature": 0.8,
        "top_p": 0.95,
        "top_k": 50,
        "n": 1,
    }
    assert generation.text == "print(sum(map(int, input().split())))\n```"
    assert (generation.model_version, generation.finish_reason) == ("qwen-base-2024", "stop")
    assert generation.usage["completion_tokens"] == 5
    assert generation.sent == {
        "api": "completions",
        "prompt": PROMPT,
        "params": {k: v for k, v in sent.body.items() if k not in ("model", "prompt")},
    }


def test_greedy_completion_sends_no_sampling_extras(server: FakeEndpoint) -> None:
    client = _client(f"openai:m@{server.openai_base_url}#api=completions")
    generation = client.generate(_request())
    body = server.requests[-1].body
    assert body == {"model": "m", "prompt": PROMPT, "max_tokens": 2048, "temperature": 0.0, "n": 1}
    assert generation.text == "echo: " + PROMPT  # the server continued exactly this text


def test_several_messages_are_joined_in_order(server: FakeEndpoint) -> None:
    request = GenerationRequest(
        messages=(Message("system", "You edit code."), Message("user", "def f(): pass"))
    )
    _client(f"openai:m@{server.openai_base_url}#api=completions").generate(request)
    assert server.requests[-1].body["prompt"] == "You edit code.\n\ndef f(): pass"


def test_top_k_is_withheld_where_the_server_does_not_take_it(server: FakeEndpoint) -> None:
    client = _client(f"openai:m@{server.openai_base_url}#api=completions,top_k=off")
    generation = client.generate(_request(NOFUNEVAL_SAMPLING))
    body = server.requests[-1].body
    assert "top_k" not in body and body["top_p"] == 0.95
    assert generation.sent["not_sent"] == ["top_k"]
    assert "top_k" not in generation.sent["params"]


def test_chat_models_still_get_the_prompt_as_a_user_message(server: FakeEndpoint) -> None:
    generation = _client(f"openai:m@{server.openai_base_url}").generate(_request())
    sent = server.requests[-1]
    assert sent.path == OPENAI_PATH
    assert sent.body["messages"] == [{"role": "user", "content": PROMPT}]
    assert "n" not in sent.body  # the chat body is unchanged
    assert generation.sent["api"] == "chat" and "prompt" not in generation.sent


def test_server_errors_and_rate_limits_are_retried(server: FakeEndpoint) -> None:
    server.push(server_error(500), rate_limited("7"), ok("x = 1"))
    sleeps = Sleeps()
    client = _client(f"openai:m@{server.openai_base_url}#api=completions", sleeps=sleeps)
    generation = client.generate(_request())
    assert generation.text == "x = 1"
    assert [r.path for r in server.requests] == [COMPLETIONS_PATH] * 3
    assert len(sleeps) == 2 and sleeps[1] >= 7.0  # Retry-After honoured
    assert (client.calls, client.retries) == (3, 2)


def test_persistent_failure_gives_one_line(server: FakeEndpoint) -> None:
    server.push(*[server_error(503, "overloaded")] * 5)
    client = _client(f"openai:m@{server.openai_base_url}#api=completions")
    with pytest.raises(ModelError) as info:
        client.generate(_request())
    message = str(info.value)
    assert "\n" not in message and "HTTP 503: overloaded" in message and "5 attempts" in message


def test_rerun_is_a_cache_hit_and_chat_never_shares_it(
    server: FakeEndpoint, tmp_path: Path
) -> None:
    path = tmp_path / "responses.sqlite3"
    spec = f"openai:m@{server.openai_base_url}#api=completions"
    with ResponseCache(path) as cache:
        first = _client(spec, cache).generate(_request(NOFUNEVAL_SAMPLING))
    with ResponseCache(path) as cache:
        again = _client(spec, cache).generate(_request(NOFUNEVAL_SAMPLING))
        assert server.request_count == 1
        assert again.cached and again.text == first.text and again.sent == first.sent
        # same messages and parameters through chat: another request
        _client(f"openai:m@{server.openai_base_url}", cache).generate(_request(NOFUNEVAL_SAMPLING))
        # top_k withheld: another request too
        _client(spec + ",top_k=off", cache).generate(_request(NOFUNEVAL_SAMPLING))
        # another sample of the same prompt: another request
        _client(spec, cache).generate(_request(NOFUNEVAL_SAMPLING, sample_index=1))
        assert server.request_count == 4
        assert len(cache) == 4
    assert [r.path for r in server.requests] == [
        COMPLETIONS_PATH,
        OPENAI_PATH,
        COMPLETIONS_PATH,
        COMPLETIONS_PATH,
    ]


def test_chat_only_server_gives_a_one_line_error() -> None:
    with FakeEndpoint(chat_only=True) as server:
        client = _client(f"openai:m@{server.openai_base_url}#api=completions")
        with pytest.raises(ModelError) as info:
            client.generate(_request())
        assert server.request_count == 1  # a 404 is not retried
    message = str(info.value)
    assert "\n" not in message
    assert "no completions endpoint" in message and "api=completions" in message


def test_spec_options() -> None:
    spec = "openai:qwen:7b@http://127.0.0.1:8000/v1#api=completions,top_k=on"
    parsed = parse_spec(spec)
    assert parsed == ModelSpec(
        "openai", "qwen:7b", "http://127.0.0.1:8000/v1", (("api", "completions"), ("top_k", True))
    )
    assert str(parsed) == spec
    provider = create_provider(spec)
    assert provider.identity()["api"] == "completions"
    assert "api" not in create_provider("openai:qwen:7b@http://127.0.0.1:8000/v1").identity()


@pytest.mark.parametrize(
    ("spec", "options", "fragment"),
    [
        ("openai:m@http://h/v1#api=", {}, "malformed option"),
        ("openai:m@http://h/v1#api=chat,api=chat", {}, "twice"),
        ("openai:m@http://h/v1#api=text", {}, "api must be 'chat' or 'completions'"),
        ("openai:m@http://h/v1#top_k=5", {}, "top_k must be on or off"),
        ("openai:m@http://h/v1#api=completions", {"api": "chat"}, "keep one"),
        ("openai:m@http://h/v1#colour=red", {}, "has no option colour"),
    ],
)
def test_bad_spec_options(spec: str, options: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        create_provider(spec, **options)
