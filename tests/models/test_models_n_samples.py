"""Several samples of a prompt in one request (the OpenAI API's ``n``), through the real
openai SDK against the local scripted server: requests counted, each choice cached as its own
sample, retries, and the fallback to one sample per request when a server does not take n."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from beyondpass.errors import ConfigError
from beyondpass.models.base import GenerationRequest, Message, SamplingParams
from beyondpass.models.cache import ResponseCache
from beyondpass.models.client import ModelClient
from beyondpass.models.factory import create_provider
from fake_endpoints import COMPLETIONS_PATH, OPENAI_PATH, FakeEndpoint, ok, server_error

PROMPT = "### Instruction:\nMake it faster.\n### Response:\n```python\n"
SAMPLED = SamplingParams(temperature=0.8, top_p=0.95, max_tokens=64)


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeEndpoint]:
    with FakeEndpoint() as endpoint:
        yield endpoint


def _requests(count: int, step: int = 0) -> list[GenerationRequest]:
    return [
        GenerationRequest((Message("user", PROMPT),), SAMPLED, sample_index=i, step=step)
        for i in range(count)
    ]


def _client(spec: str, cache: ResponseCache | None = None) -> ModelClient:
    # one request at a time: the order the server sees, and so its scripted answers, is fixed
    return ModelClient(create_provider(spec), cache, max_concurrency=1, sleep=lambda s: None)


def _texts(results: list) -> list[str]:
    assert all(not isinstance(r, Exception) for r in results), results
    return [r.text for r in results]


@pytest.mark.parametrize(
    ("api", "path"), [("chat", OPENAI_PATH), ("completions", COMPLETIONS_PATH)]
)
def test_k_samples_per_request(server: FakeEndpoint, api: str, path: str) -> None:
    server.push(ok("first"), ok("second"))
    spec = f"openai:m@{server.openai_base_url}#api={api},samples_per_request=4"
    got = _client(spec).generate_many(_requests(8))
    assert [r.path for r in server.requests] == [path, path]  # 8 samples, 2 requests
    assert [r.body["n"] for r in server.requests] == [4, 4]
    # sample i is choice i % 4 of batch i // 4 (the server marks choice j > 0)
    want = [f"{t}{f' [choice {j}]' if j else ''}" for t in ("first", "second") for j in range(4)]
    assert _texts(got) == want
    assert [g.sent["choice"] for g in got] == [0, 1, 2, 3] * 2
    assert all(g.sent["params"]["n"] == 4 for g in got)
    # the request's token usage is counted once, with choice 0
    assert [bool(g.usage) for g in got] == [True, False, False, False] * 2


def test_each_choice_is_cached_as_its_own_sample(server: FakeEndpoint, tmp_path) -> None:
    spec = f"openai:m@{server.openai_base_url}#api=completions,samples_per_request=4"
    server.push(ok("a"), ok("b"), ok("c"))
    with ResponseCache(tmp_path / "cache.sqlite3") as cache:
        first = _texts(_client(spec, cache).generate_many(_requests(8)))
        assert server.request_count == 2 and len(cache) == 8
        # a new client (a resumed run): the 8 cached samples are not asked again; the two new
        # ones come from one more 4-sample request, as choices 0 and 1 of batch 2
        again = _client(spec, cache)
        second = _texts(again.generate_many(_requests(10)))
        assert second[:8] == first
        assert second[8:] == ["c", "c [choice 1]"]
        assert server.request_count == 3 and again.cache_hits == 8
        # a provider asking one sample per request keys its answers apart
        single = _client(f"openai:m@{server.openai_base_url}#api=completions", cache)
        single.generate_many(_requests(1))
        assert server.request_count == 4 and single.cache_hits == 0


def test_a_failed_batch_is_retried(server: FakeEndpoint) -> None:
    server.push(server_error(503), ok("x"))
    client = _client(f"openai:m@{server.openai_base_url}#samples_per_request=3")
    got = _texts(client.generate_many(_requests(3)))
    assert got == ["x", "x [choice 1]", "x [choice 2]"]
    assert server.request_count == 2 and client.retries == 1


@pytest.mark.parametrize(
    ("mode", "why"), [("reject", "rejected n=4"), ("one", "answered 1 of n=4 choices")]
)
def test_a_server_without_n_is_asked_one_sample_per_request(mode: str, why: str) -> None:
    with FakeEndpoint(n_choices=mode) as server:
        client = _client(f"openai:m@{server.openai_base_url}#samples_per_request=4")
        got = client.generate_many(_requests(4))
        bodies = [r.body for r in server.requests]
    assert len(_texts(got)) == 4
    # one request with n = 4, refused or answered with one choice; then one per sample
    assert [b.get("n") for b in bodies] == [4, None, None, None, None]
    assert client.provider.n_refused.startswith(why)
    assert all("n" not in g.sent["params"] and "choice" not in g.sent for g in got)


def test_later_workflow_steps_are_asked_alone(server: FakeEndpoint) -> None:
    client = _client(f"openai:m@{server.openai_base_url}#samples_per_request=4")
    _texts(client.generate_many(_requests(2, step=1)))
    assert [r.body.get("n") for r in server.requests] == [None, None]


def test_samples_per_request_must_be_positive(server: FakeEndpoint) -> None:
    with pytest.raises(ConfigError, match="samples_per_request must be a positive integer"):
        create_provider(f"openai:m@{server.openai_base_url}#samples_per_request=0")


def test_sampled_study_asks_each_prompt_once(tmp_path, data_dir) -> None:
    """A NoFunEval study with n = 4 samples per task: one request per prompt, not four."""
    from beyondpass.store.run_store import RunStore
    from nofuneval_helpers import run_study

    with FakeEndpoint() as server:
        run_study(
            tmp_path,
            'name = "n"\n[[benchmarks]]\nname = "nofuneval-latency"\nlimit = 3\n'
            '[prompts]\nplan = "nofuneval-edit"\nselect = ["base_prompt"]\n'
            f'[[models]]\nspec = "openai:m@{server.openai_base_url}'
            '#api=completions,samples_per_request=4"\n'
            "[sampling]\nn = 4\ntemperature = 0.8\nmax_tokens = 16\n",
            data_dir,
        )
        assert server.request_count == 3 and {r.body["n"] for r in server.requests} == {4}
    with RunStore(tmp_path / "run", create=False) as store:
        rows = list(store.rows())
    assert len(rows) == 12
    by_task: dict[str, set[int]] = {}
    for r in rows:
        by_task.setdefault(r.sample.task_id, set()).add(r.sample.generation["sent"]["choice"])
        assert r.sample.generation["sent"]["choice"] == r.sample.sample_index % 4
    assert by_task == {t: {0, 1, 2, 3} for t in ("0", "1", "2")}
