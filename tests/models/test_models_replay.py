"""Replaying answers from JSONL files, and reading those files strictly."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from beyondpass.errors import DataError, ModelError
from beyondpass.models.base import GenerationRequest, Message
from beyondpass.models.factory import create_provider
from beyondpass.models.replay import ANSWER_FIELDS, ReplayProvider, read_answer_rows


def _write(tmp_path: Path, *rows: object, name: str = "samples.jsonl") -> Path:
    path = tmp_path / name
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _ask(
    provider: ReplayProvider, task_id: str, condition: str = "", sample: int = 0, step: int = 0
) -> str:
    request = GenerationRequest(
        messages=(Message("user", "ignored"),),
        sample_index=sample,
        task_id=task_id,
        condition=condition,
        step=step,
    )
    return provider.generate(request).text


def _replay(path: Path) -> ReplayProvider:
    provider = create_provider(f"replay:{path}")
    assert isinstance(provider, ReplayProvider)
    return provider


# -- reading ------------------------------------------------------------------------------------
@pytest.mark.parametrize("field", ANSWER_FIELDS)
def test_each_answer_field(tmp_path: Path, field: str) -> None:
    path = _write(tmp_path, {"task_id": "HumanEval/0", field: "code"})
    (row,) = read_answer_rows(path)
    assert (row.task_id, row.text, row.field) == ("HumanEval/0", "code", field)


def test_field_precedence_and_row_metadata(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "",
        {
            "task_id": 11,
            "response": "raw",
            "completion": "preferred",
            "prompt_id": "p1",
            "sample_index": 2,
            "step": "1",
            "model": "gpt-4o-2024-08-06",
        },
        "   ",
        {"task_id": "Mbpp/12", "solution": "s", "condition": "c", "prompt_id": "ignored"},
    )
    first, second = read_answer_rows(path)
    assert (first.line, first.index, first.task_id) == (2, 0, "11")
    assert (first.text, first.field, first.condition) == ("preferred", "completion", "p1")
    assert (first.sample_index, first.step, first.model) == (2, 1, "gpt-4o-2024-08-06")
    assert first.extra["response"] == "raw"
    assert (second.line, second.index, second.condition) == (4, 1, "c")
    assert (second.sample_index, second.step, second.model) == (None, None, None)


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    row_a, row_b = b'{"task_id": "a", "completion": "x"}', b'{"task_id": "b", "completion": "y"}'
    path.write_bytes(b"\xef\xbb\xbf" + row_a + b"\r\n" + row_b + b"\r\n")
    assert [r.task_id for r in read_answer_rows(path)] == ["a", "b"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b'{"task_id": "a", "completion": "x"}\n{"task_id": "b" "completion": "y"}\n',
            "samples.jsonl:2: invalid JSON (Expecting ',' delimiter: column 17) — the line may "
            "be truncated; fix or remove it",
        ),
        (
            b'{"task_id": "a", "completion": "x"}\n\n{"task_id": "b", "completion": "y',
            "samples.jsonl:3: invalid JSON (Unterminated string starting at: column 32) — the "
            "line may be truncated; fix or remove it",
        ),
        (
            b'{"task_id": "a", "completion": "x"}\n\n{"task_id": "\xff"}\n',
            "samples.jsonl:3: not valid UTF-8 (byte 0xff at column 14) — re-save the file as UTF-8",
        ),
        (
            b'["task_id", "completion"]\n',
            "samples.jsonl:1: expected a JSON object, got a list — each line must be one object "
            'like {"task_id": ..., "completion": ...}',
        ),
        (
            b'{"completion": "x"}\n',
            "samples.jsonl:1: no task_id — every line must name the task it answers",
        ),
        (
            b'{"task_id": ["a"], "completion": "x"}\n',
            "samples.jsonl:1: task_id is a list — write it as a string or integer",
        ),
        (
            b'{"task_id": "a", "completion": "x"}\n{"task_id": "a", "code": "x"}\n',
            "samples.jsonl:2: has none of the answer fields completion, solution, response, "
            "raw_response, answer, output, generation — add the model's answer under one of them",
        ),
        (
            b'{"task_id": "a", "completion": null}\n',
            "samples.jsonl:1: completion is null, not a string — store the answer as text",
        ),
        (
            b'{"task_id": "a", "solution": ["x"]}\n',
            "samples.jsonl:1: solution is a list, not a string — store the answer as text",
        ),
        (
            b'{"task_id": "a", "completion": "x", "sample_index": -1}\n',
            "samples.jsonl:1: sample_index is -1, not a non-negative integer — fix or remove the "
            "field",
        ),
        (b"", "samples.jsonl is empty: no samples"),
        (b"\n  \n\n", "samples.jsonl is empty: no samples"),
    ],
)
def test_malformed_files_name_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes, message: str
) -> None:
    (tmp_path / "samples.jsonl").write_bytes(content)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataError) as info:
        read_answer_rows("samples.jsonl")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nope\.jsonl does not exist — check the path"):
        read_answer_rows(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match="is a directory"):
        read_answer_rows(tmp_path)
    with pytest.raises(DataError, match="does not exist"):
        create_provider(f"replay:{tmp_path / 'nope.jsonl'}")


def test_error_names_path_as_given(tmp_path: Path) -> None:
    path = _write(tmp_path, {"task_id": "a"})
    with pytest.raises(DataError, match=f"^{path}:1: has none of the answer fields"):
        read_answer_rows(path)


# -- replaying -----------------------------------------------------------------------------------
def test_replay_keys_condition_sample_and_step(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "t", "completion": "base-0"},
        {"task_id": "t", "completion": "base-1"},
        {"task_id": "t", "completion": "cot-0", "condition": "cot"},
        {"task_id": "t", "completion": "cot-explicit-5", "condition": "cot", "sample_index": 5},
        {"task_id": "t", "completion": "base-step1", "step": 1},
        {"task_id": "t", "completion": "cot-1", "condition": "cot"},
    )
    provider = _replay(path)
    assert _ask(provider, "t") == "base-0"
    assert _ask(provider, "t", sample=1) == "base-1"
    assert _ask(provider, "t", "cot") == "cot-0"  # the exact condition wins
    assert _ask(provider, "t", "cot", sample=1) == "cot-1"  # numbered per condition
    assert _ask(provider, "t", "cot", sample=5) == "cot-explicit-5"
    assert _ask(provider, "t", "plain", sample=1) == "base-1"  # no condition: serves any
    assert _ask(provider, "t", step=1) == "base-step1"
    assert _ask(provider, "t", "cot", step=1) == "base-step1"


def test_replay_generation_fields(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "a", "completion": "x", "model": "gpt-4o-0806", "finish_reason": "length"},
        {"task_id": "b", "completion": "y"},
    )
    provider = _replay(path)
    request = GenerationRequest(messages=(), task_id="a")
    generation = provider.generate(request)
    assert (generation.model_version, generation.finish_reason) == ("gpt-4o-0806", "length")
    assert provider.generate(GenerationRequest(messages=(), task_id="b")).model_version == "replay"


@pytest.mark.parametrize(
    ("in_file", "asked"),
    [
        ("MBPP/11", "Mbpp/11"),
        ("Mbpp/11", "11"),
        (11, "Mbpp/11"),
        ("11", "MBPP/11"),
        ("HumanEval/0", "humaneval/0"),
    ],
)
def test_task_id_variants_find_each_other(tmp_path: Path, in_file: object, asked: str) -> None:
    provider = _replay(_write(tmp_path, {"task_id": in_file, "completion": "found"}))
    assert _ask(provider, asked) == "found"


def test_exact_task_id_beats_fuzzy_match(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "Mbpp/11", "completion": "mbpp"},
        {"task_id": "Other/11", "completion": "other"},
        {"task_id": "mbpp/12", "completion": "lower"},
    )
    provider = _replay(path)
    assert _ask(provider, "Other/11") == "other"
    assert _ask(provider, "MBPP/12") == "lower"
    with pytest.raises(ModelError) as info:
        _ask(provider, "11")
    assert str(info.value) == (
        f"replay file {path} has several task ids matching 11 (Mbpp/11, Other/11) — use the "
        "exact task id in the file"
    )


def test_missing_answer_is_a_model_error(tmp_path: Path) -> None:
    path = _write(tmp_path, {"task_id": "t", "completion": "x", "condition": "c"})
    provider = _replay(path)
    with pytest.raises(ModelError) as info:
        _ask(provider, "t", "c", sample=1)
    assert str(info.value).startswith(
        f"replay file {path} has no answer for task t (condition c, sample 1, step 0) — "
    )
    with pytest.raises(ModelError, match="no answer for task u "):
        _ask(provider, "u", "c")
    with pytest.raises(ModelError, match=r"no answer for task t \(condition -, sample 0"):
        _ask(provider, "t")  # a row with a condition does not serve other conditions


def test_duplicates_name_both_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {"task_id": "t", "completion": "x", "sample_index": 0},
        {"task_id": "u", "completion": "y"},
        {"task_id": "t", "completion": "z"},  # implicit sample 0 again
    )
    with pytest.raises(DataError) as info:
        _replay(path)
    assert str(info.value) == (
        f"{path}:3: duplicate answer for task t (condition -, sample 0, step 0); line 1 has the "
        "same key — remove one or add sample_index"
    )


def test_identity_records_file_and_hash(tmp_path: Path) -> None:
    path = _write(tmp_path, {"task_id": "t", "completion": "x"})
    provider = _replay(path)
    identity = provider.identity()
    assert identity["provider"] == "replay"
    assert identity["path"] == str(path.resolve())
    assert identity["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert provider.cacheable is False
