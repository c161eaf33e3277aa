"""Runs stored before function mode was typed: their call is read back from the program's
text, so they rescore as they were scored; nothing else reads such text."""

from __future__ import annotations

from beyondpass.benchmarks.task import FunctionCall, Task
from beyondpass.store.run_store import SampleRecord
from beyondpass.study.scoring import extraction_of


def _sample(program: str, function: dict | None = None) -> SampleRecord:
    extraction = {"status": "ok", "kind": "full", "error": "", "notes": []}
    if function is not None:
        extraction["function"] = function
    return SampleRecord(
        key="k", benchmark="psb2", task_id="gcd", model="m", condition="function",
        sample_index=0, raw="", code="", program=program, extraction=extraction,
    )  # fmt: skip


def _task(language: str) -> Task:
    meta = {
        "psb2_problem": "gcd",
        "inputs": [["a", "int"], ["b", "int"]],
        "outputs": [["g", "int"]],
    }
    return Task("psb2", "gcd", language, "", "gcd", "", (), metadata=meta)


def test_old_trailers_and_the_old_cpp_batch_driver_are_read_back() -> None:
    want = FunctionCall("gcd", ("int", "int"), ("int",))
    python = "def gcd(a, b): ...\n# beyondpass-python-function: gcd int,int -> int\n"
    java = "class Solution {}\n// beyondpass-java-function: gcd int,int -> int\n"
    cpp = "int gcd(int a, int b);\n// beyondpass: batched function-mode driver v1\nint main(){}\n"
    assert extraction_of(_sample(python), _task("python")).function == want
    assert extraction_of(_sample(java), _task("java")).function == want
    assert extraction_of(_sample(cpp), _task("cpp")).function == want


def test_a_recorded_call_wins_and_text_alone_decides_nothing_without_the_task() -> None:
    recorded = {"name": "other", "inputs": ["str"], "outputs": ["str"]}
    python = "def gcd(a, b): ...\n# beyondpass-python-function: gcd int,int -> int\n"
    found = extraction_of(_sample(python, recorded), _task("python")).function
    assert found == FunctionCall("other", ("str",), ("str",))
    assert extraction_of(_sample(python)).function is None  # no task: the stored record only
    # the trailer counts only as the last line, as the old release read it
    moved = python + "print(1)\n"
    assert extraction_of(_sample(moved), _task("python")).function is None
