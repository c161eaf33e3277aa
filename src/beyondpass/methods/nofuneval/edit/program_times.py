"""Program timings kept in a folder, so a resumed run does not time them again.

Each row's source is run and timed once per run (``nofuneval-edit``); its measurement is
appended to ``<run>/nofuneval-source-times.jsonl`` as soon as it is taken. A resumed run
reads them back and compares its new edits with the same times as the samples already
stored. Table 1 of the published files (``nofuneval table1 --run``) names its output folder
for the source times of all its runs (option ``times_dir``): the 24 published files of
runtime efficiency share one set of source times.

A record is reused only under the same conditions (compat, runs per case, timing method,
time limit, the sandbox's Python); a torn last line (a kill while writing) is ignored. Each record
keeps the node and CPU model that timed the program: an edit timed on another node than
its source is not compared with it (speedup.py), and records written before nodes were
recorded have none (unknown: compared as before).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.task import Task
from beyondpass.jsonl import json_values, read_bytes
from beyondpass.methods.nofuneval.edit.runtime import Measurement, measure_programs

SOURCE_FILE_NAME = "nofuneval-source-times.jsonl"


def program_key(code: str, task: Task) -> tuple[str, str]:
    """A program on a task's cases: (sha256 of the code, benchmark/task id)."""
    digest = hashlib.sha256(code.encode("utf-8")).hexdigest()
    return digest, f"{task.benchmark}/{task.task_id}"


def conditions(timing: dict[str, Any]) -> dict[str, Any]:
    """What must match for stored times to stand for new ones."""
    keys = ("method", "runs_per_case", "python", "compat", "time_limit")
    return {k: timing.get(k) for k in keys}


class ProgramTimes:
    """(program digest, task) -> Measurement, for one folder and one set of conditions
    (no folder: kept in memory only)."""

    def __init__(
        self, run_dir: str | Path | None, timing: dict[str, Any], file_name: str = SOURCE_FILE_NAME
    ) -> None:
        self.path = Path(run_dir) / file_name if run_dir else None
        self.when = conditions(timing)
        self.known: dict[tuple[str, str], Measurement] = {}
        self._torn = False  # the file ends inside a line: start the next one on its own
        if self.path is None or not self.path.is_file():
            return
        data = read_bytes(self.path, "the kept program timings")
        self._torn = bool(data) and not data.endswith(b"\n")
        # a torn or foreign line is passed over: that source is timed again
        for _, rec in json_values(str(self.path), data, example="{}", skip_bad=True):
            try:
                if rec["conditions"] != self.when:
                    continue
                m = rec["measurement"]
                self.known[(rec["digest"], rec["task"])] = Measurement(
                    bool(m["correct"]), str(m["status"]), str(m["message"]),
                    tuple(float(t) for t in m["times_s"]), str(m["timing_error"]),
                    str(m.get("node", "")), str(m.get("cpu_model", "")),
                )  # fmt: skip
            except (KeyError, TypeError, ValueError):
                continue

    def add(self, key: tuple[str, str], measured: Measurement) -> None:
        self.known[key] = measured
        if self.path is None:
            return
        rec = {"digest": key[0], "task": key[1], "conditions": self.when}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write("\n" if self._torn else "")
            self._torn = False
            fh.write(json.dumps({**rec, "measurement": asdict(measured)}) + "\n")

    def measure(
        self, items: Sequence[tuple[Task, str]], executor: Any, compat: bool, runs: int
    ) -> list[Measurement]:
        """Each (task, program)'s measurement: the kept one, or run and timed now (each
        distinct program once, kept as soon as it finishes)."""
        keys = [program_key(code, task) for task, code in items]
        missing: dict[tuple[str, str], tuple[Task, str]] = {}
        for key, item in zip(keys, items, strict=True):
            if key not in self.known:
                missing.setdefault(key, item)
        if missing:
            order = list(missing)
            found = measure_programs(list(missing.values()), executor, compat, runs,
                                     on_result=lambda i, m: self.add(order[i], m))  # fmt: skip
            for key, measured in zip(order, found, strict=True):
                if key not in self.known:  # an executor that did not report it as it went
                    self.add(key, measured)
        return [self.known[key] for key in keys]
