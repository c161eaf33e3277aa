"""Source timings kept in a study run's folder, so a resumed run does not time them again.

Each row's source is run and timed once per run (``nofuneval-edit``); its measurement is
appended to ``<run>/nofuneval-source-times.jsonl`` as soon as it is taken. A resumed run
reads them back and compares its new edits with the same times as the samples already
stored. A record is reused only under the same conditions (compat, runs per case, timing
method, the sandbox's Python); a torn last line (a kill while writing) is ignored. Each
record keeps the node and CPU model that timed the source: an edit timed on another node
is not compared with it (speedup.py), and records written before nodes were recorded
have none (unknown: compared as before).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from beyondpass.methods.nofuneval.runtime import Measurement

FILE_NAME = "nofuneval-source-times.jsonl"


def conditions(timing: dict[str, Any]) -> dict[str, Any]:
    """What must match for stored times to stand for new ones."""
    return {k: timing.get(k) for k in ("method", "runs_per_case", "python", "compat")}


class SourceTimes:
    """(source digest, task) -> Measurement, for one run and one set of conditions."""

    def __init__(self, run_dir: str | None, timing: dict[str, Any]) -> None:
        self.path = Path(run_dir) / FILE_NAME if run_dir else None
        self.when = conditions(timing)
        self.known: dict[tuple[str, str], Measurement] = {}
        self._torn = False  # the file ends inside a line: start the next one on its own
        if self.path is None or not self.path.is_file():
            return
        text = self.path.read_text("utf-8")
        self._torn = bool(text) and not text.endswith("\n")
        for line in text.splitlines():
            try:
                rec = json.loads(line)
                if rec["conditions"] != self.when:
                    continue
                m = rec["measurement"]
                self.known[(rec["digest"], rec["task"])] = Measurement(
                    bool(m["correct"]), str(m["status"]), str(m["message"]),
                    tuple(float(t) for t in m["times_s"]), str(m["timing_error"]),
                    str(m.get("node", "")), str(m.get("cpu_model", "")),
                )  # fmt: skip
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a torn or foreign line: that source is timed again

    def add(self, key: tuple[str, str], measured: Measurement) -> None:
        self.known[key] = measured
        if self.path is None:
            return
        rec = {"digest": key[0], "task": key[1], "conditions": self.when}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write("\n" if self._torn else "")
            self._torn = False
            fh.write(json.dumps({**rec, "measurement": asdict(measured)}) + "\n")
