"""Model specs and the lazy provider registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from beyondpass.errors import ConfigError
from beyondpass.models.factory import ModelSpec, create_provider, parse_spec

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai:gpt-4o", ModelSpec("openai", "gpt-4o", None)),
        (
            "openai:qwen2.5-coder@http://localhost:8000/v1",
            ModelSpec("openai", "qwen2.5-coder", "http://localhost:8000/v1"),
        ),
        (
            "openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1",
            ModelSpec("openai", "qwen2.5-coder:7b", "http://127.0.0.1:11434/v1"),
        ),
        (
            "openai:org/model@v2@https://example.com/v1/",
            ModelSpec("openai", "org/model@v2", "https://example.com/v1"),
        ),
        ("openai:name@latest", ModelSpec("openai", "name@latest", None)),
        (
            "anthropic:claude-3-5-haiku-20241022",
            ModelSpec("anthropic", "claude-3-5-haiku-20241022", None),
        ),
        (
            "anthropic:claude-3-5-haiku-20241022@http://127.0.0.1:9000",
            ModelSpec("anthropic", "claude-3-5-haiku-20241022", "http://127.0.0.1:9000"),
        ),
        ("OpenAI:gpt-4o", ModelSpec("openai", "gpt-4o", None)),
        ("  openai:gpt-4o  ", ModelSpec("openai", "gpt-4o", None)),
        ("replay:runs/samples.jsonl", ModelSpec("replay", "runs/samples.jsonl", None)),
        ("replay:C:\\data\\a@http://x.jsonl", ModelSpec("replay", "C:\\data\\a@http://x.jsonl")),
    ],
)
def test_parse_spec(spec: str, expected: ModelSpec) -> None:
    assert parse_spec(spec) == expected


def test_spec_round_trips_to_string() -> None:
    spec = "openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1"
    assert str(parse_spec(spec)) == spec


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("gpt-4o", "names no provider"),
        (":gpt-4o", "names no provider"),
        ("mistral:large", "unknown provider 'mistral'"),
        ("openai:", "has no model"),
        ("openai:   ", "has no model"),
        ("openai:@http://localhost:8000/v1", "has no model"),
        ("replay:", "replay file path"),
        ("openai:m@http://", "empty base URL"),
    ],
)
def test_bad_specs_name_the_spec_and_the_providers(spec: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_spec(spec)
    message = str(info.value)
    assert fragment in message
    assert repr(spec) in message
    assert "\n" not in message
    if "provider" in fragment:
        assert "anthropic, openai, replay" in message


def test_missing_openai_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY"):
        create_provider("openai:gpt-4o")


def test_missing_anthropic_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        create_provider("anthropic:claude-3-5-haiku-20241022")


def test_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = create_provider("openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1")
    assert provider.model == "qwen2.5-coder:7b"
    assert provider.base_url == "http://127.0.0.1:11434/v1"
    assert provider.identity() == {
        "provider": "openai",
        "model": "qwen2.5-coder:7b",
        "base_url": "http://127.0.0.1:11434/v1",
    }


def test_options_reach_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    provider = create_provider("openai:gpt-4o", request_timeout=7)
    assert provider.request_timeout == 7.0  # type: ignore[attr-defined]
    assert create_provider("openai:gpt-4o").request_timeout == 120.0  # type: ignore[attr-defined]


def test_unknown_option_and_bad_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ConfigError, match="has no option temprature"):
        create_provider("openai:gpt-4o", temprature=0)
    with pytest.raises(ConfigError, match="request_timeout must be a positive number"):
        create_provider("openai:gpt-4o", request_timeout=0)


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "beyondpass.models.openai_provider", raising=False)
    monkeypatch.setitem(sys.modules, "openai", None)  # makes `import openai` fail
    with pytest.raises(ConfigError) as info:
        create_provider("openai:gpt-4o")
    assert str(info.value) == (
        "the openai provider needs the 'openai' package: pip install 'beyondpass[openai]'"
    )


def test_sdks_are_imported_only_when_used(tmp_path: Path) -> None:
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"task_id": "t", "completion": "x"}\n')
    code = (
        "import sys\n"
        "from beyondpass.models.factory import create_provider\n"
        f"create_provider('replay:' + {str(answers)!r})\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
        "assert 'anthropic' not in sys.modules, 'anthropic imported'\n"
        "create_provider('openai:m@http://127.0.0.1:1/v1')\n"
        "assert 'openai' in sys.modules and 'anthropic' not in sys.modules\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": SRC, "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
