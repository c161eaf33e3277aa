"""Samples stored by releases that wrote function mode into the program's text.

Function mode is now a typed part of the sample (``extraction["function"]``) and of its
execution request. Runs made before recorded it as text in the stored program: a last line
``# beyondpass-python-function: NAME INPUTS -> OUTPUTS`` (Python) or ``//
beyondpass-java-function: ...`` (Java), or, for C++, the batch driver's first line. So that
such runs rescore exactly as they were scored, their call is read back from that text here,
and only here; nothing writes it any more.
"""

from __future__ import annotations

import re

from beyondpass.benchmarks.task import FunctionCall, Task

_TRAILERS = ("# beyondpass-python-function:", "// beyondpass-java-function:")
_CPP_BATCH_DRIVER = "// beyondpass: batched function-mode driver v1"
_CALL = re.compile(r"([A-Za-z_$][\w$]*) ([a-z_,]+|-) -> ([a-z_,]+)")


def legacy_function_call(program: str, task: Task) -> FunctionCall | None:
    """The call an older release's stored ``program`` carries as text (``None``: none)."""
    last = program.rstrip().rpartition("\n")[2].strip()
    for trailer in _TRAILERS:
        if last.startswith(trailer):
            found = _CALL.fullmatch(last[len(trailer) :].strip())
            if found is None:
                return None
            name, ins, outs = found.groups()
            return FunctionCall(
                name, tuple(ins.split(",")) if ins != "-" else (), tuple(outs.split(","))
            )
    if task.language == "cpp" and _CPP_BATCH_DRIVER in program:
        meta = task.metadata
        return FunctionCall(
            str(meta.get("psb2_problem", task.entry_point or "")),
            tuple(str(t) for _, t in meta.get("inputs", ())),
            tuple(str(t) for _, t in meta.get("outputs", ())),
        )
    return None
