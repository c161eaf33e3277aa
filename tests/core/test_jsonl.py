"""The one JSONL reader: files, lines, the one-parse path and its line-by-line fallback."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from beyondpass import jsonl
from beyondpass.errors import DataError
from beyondpass.jsonl import json_objects, json_values, parse_all, read_bytes, read_objects

EXAMPLE = '{"task_id": ..., "completion": ...}'


def _error(call) -> str:
    with pytest.raises(DataError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- files -------------------------------------------------------------------------------------
def test_a_missing_unreadable_or_damaged_file_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    assert _error(lambda: read_bytes(missing, "the answers file")) == (
        f"{missing} does not exist — check the path of the answers file"
    )
    assert _error(lambda: read_bytes(tmp_path, "the answers file")) == (
        f"{tmp_path} is a directory — give the path of the answers file"
    )
    under_a_file = tmp_path / "a.jsonl"
    under_a_file.write_text("{}\n")
    message = _error(lambda: read_bytes(under_a_file / "b.jsonl"))
    assert message.startswith(f"cannot read {under_a_file / 'b.jsonl'} (")
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(b'{"a": 1}\n' * 100)[:-12])
    assert _error(lambda: read_bytes(cut)).startswith(f"{cut}: not a complete gzip file (")
    # the path as given, even relative
    assert _error(lambda: read_bytes("relative/nope.jsonl")).startswith("relative/nope.jsonl ")


def test_gzipped_files_are_read_decompressed(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"task_id": "a"}\n{"task_id": "b"}\n'))
    assert read_bytes(path) == b'{"task_id": "a"}\n{"task_id": "b"}\n'
    assert list(read_objects(path, EXAMPLE)) == [(1, {"task_id": "a"}), (2, {"task_id": "b"})]


def test_read_objects_fails_on_a_missing_file_before_the_first_line(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nope\.jsonl does not exist"):
        read_objects(tmp_path / "nope.jsonl", EXAMPLE)  # not iterated


# -- line by line ------------------------------------------------------------------------------
BAD = {
    # content: the error's start
    "bad JSON": (b'{"a": 1}\n{"a": \n{"a": 3}\n', "f.jsonl:2: invalid JSON (Expecting value"),
    "cut-off last line": (b'{"a": 1}\n\n{"a": "tw', "f.jsonl:3: invalid JSON (Unterminated"),
    "not UTF-8": (b'{"a": 1}\n{"a": "caf\xe9"}\n', "f.jsonl:2: not valid UTF-8 (byte 0xe9"),
    "two values on a line": (b'{"a": 1}\n{"a": 2}, {"a": 3}\n', "f.jsonl:2: invalid JSON (Extra"),
    "a value over two lines": (b'{"a": [1,\n2]}\n{"a": 3}\n', "f.jsonl:1: invalid JSON"),
    # joined with a comma these two lines would make one good value
    "a list cut in two": (b'{"a": [1\n2]}\n', "f.jsonl:1: invalid JSON (Expecting ','"),
    "nested too deeply": (b"[" * 100_000 + b"]" * 100_000 + b"\n", "f.jsonl:1: JSON nested"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_first_bad_line_is_named(case: str) -> None:
    content, start = BAD[case]
    message = _error(lambda: list(json_values("f.jsonl", content)))
    assert message.startswith(start)
    assert " — " in message  # and says what to do


def test_objects_must_be_objects_and_say_what_a_line_looks_like() -> None:
    content = b'{"a": 1}\n["a", 2]\n'
    assert list(json_values("f.jsonl", content)) == [(1, {"a": 1}), (2, ["a", 2])]
    message = _error(lambda: list(json_objects("f.jsonl", content, EXAMPLE)))
    assert message == (
        f"f.jsonl:2: expected a JSON object, got a list — each line must be one object like "
        f"{EXAMPLE}"
    )


def test_blank_lines_a_byte_order_mark_and_crlf_are_read() -> None:
    content = b'\xef\xbb\xbf{"a": 1}\r\n\r\n  \n{"a": "\xc3\xa9"}\r\n'
    assert list(json_objects("f.jsonl", content, EXAMPLE)) == [(1, {"a": 1}), (4, {"a": "é"})]


def test_skip_bad_passes_over_every_bad_line_and_keeps_the_rest() -> None:
    content = b'{"a": 1}\nnoise\n\xff\xfe\n[2]\n{"a": 5}\n{"a": "cut'
    assert list(json_values("f", content, skip_bad=True)) == [
        (1, {"a": 1}),
        (4, [2]),
        (5, {"a": 5}),
    ]
    assert list(json_values("f", content, example=EXAMPLE, skip_bad=True)) == [
        (1, {"a": 1}),
        (5, {"a": 5}),
    ]


def test_the_first_error_in_the_file_wins_over_later_bad_lines() -> None:
    """Read lazily: a caller's complaint about line 1 comes before line 3's bad JSON."""
    rows = json_objects("f.jsonl", b'{"no": "id"}\n{"task_id": 2}\n{broken\n', EXAMPLE)
    assert next(rows) == (1, {"no": "id"})


# -- all at once -------------------------------------------------------------------------------
GOOD = {
    "plain": b'{"a": 1}\n{"a": [1, 2]}\n{"a": null}\n',
    "no final newline": b'{"a": 1}\n{"a": 2}',
    "blank lines": b'\n{"a": 1}\n\n  \t\n{"a": 2}\n\n',
    "bom and crlf": b'\xef\xbb\xbf{"a": 1}\r\n{"a": "\xe2\x82\xac"}\r\n',
    "empty": b"",
    "only blank": b"\n \n",
    "escapes": b'{"a": "line\\nbreak, \\"quoted\\", \\u00e9"}\n{"b": [1.5e3, -0.0, true]}\n',
}


@pytest.mark.parametrize("case", sorted(GOOD))
def test_one_parse_gives_what_line_by_line_gives(case: str, monkeypatch) -> None:
    content = GOOD[case]
    slow = list(json_values("f.jsonl", content, example=EXAMPLE))

    def no_fallback(*args, **kwargs):
        raise AssertionError("a good file is parsed in one go")

    monkeypatch.setattr(jsonl, "json_values", no_fallback)
    assert list(parse_all("f.jsonl", content, example=EXAMPLE)) == slow
    assert list(parse_all("f.jsonl", content)) == slow


def test_one_parse_of_lists_and_scalars_keeps_line_numbers() -> None:
    content = b'[1, [2]]\n\n3\n"x"\n'
    assert list(parse_all("f", content)) == [(1, [1, [2]]), (3, 3), (4, "x")]
    assert list(parse_all("f", content)) == list(json_values("f", content))


@pytest.mark.parametrize("case", sorted(BAD))
def test_one_parse_falls_back_to_name_the_bad_line(case: str) -> None:
    content, _ = BAD[case]
    slow = _error(lambda: list(json_values("f.jsonl", content, example=EXAMPLE)))
    assert _error(lambda: parse_all("f.jsonl", content, example=EXAMPLE)) == slow


def test_one_parse_checks_every_line_is_an_object() -> None:
    content = b'{"a": 1}\n["a", 2]\n'
    assert list(parse_all("f.jsonl", content)) == [(1, {"a": 1}), (2, ["a", 2])]
    assert _error(lambda: parse_all("f.jsonl", content, example=EXAMPLE)).startswith(
        "f.jsonl:2: expected a JSON object, got a list"
    )


def test_one_parse_of_a_large_file(tmp_path: Path) -> None:
    rows = [[[i, f"s{i}"], [i * 0.5]] for i in range(10_000)]
    path = tmp_path / "cache.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = list(parse_all(str(path), read_bytes(path)))
    assert got == list(enumerate(rows, start=1))
    damaged = path.read_bytes()[:-9]  # cut off mid-line, as an interrupted write leaves it
    assert _error(lambda: parse_all(str(path), damaged)).startswith(f"{path}:10000: invalid JSON")
