"""Loading PSB2: descriptions, edge cases, random cases, as tasks with typed I/O tests.

Sources, first hit wins: the data directory (``--data-dir`` / ``BEYONDPASS_DATA``) with
``psb2/tasks.txt`` and ``psb2/edge.jsonl``; the original PSB2 JSON-lines files
``<problem>-edge.json`` / ``<problem>-random.json`` (keys ``input1..``, ``output1..``) in
``psb2/`` or ``psb2/<problem>/`` of that directory, or downloaded from PSB2's canonical
location (:data:`CANONICAL_URL`). Random cases are PSB2's own when its random file is
present (10,000 drawn with the seed, as the seed paper did), else ours: generated inputs
(``generators``) with our reference outputs, cached on disk by problem, seed and count.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.sources import DataFile, cache_root, explicit_data_dir, resolve
from beyondpass.errors import DataError
from beyondpass.jsonl import parse_all, read_bytes, read_objects
from beyondpass.methods.psb2.benchmark import reference
from beyondpass.methods.psb2.benchmark.generators import generate_inputs
from beyondpass.methods.psb2.benchmark.problems import PROBLEMS, Problem

#: PSB2's canonical download location (Helmuth & Kelly 2021; also zenodo.org/record/5084812).
CANONICAL_URL = (
    "https://psb2-datasets.s3.amazonaws.com/PSB2/datasets/{problem}/{problem}-{kind}.json"
)
TASKS = DataFile("psb2/tasks.txt", "")
EDGE = DataFile("psb2/edge.jsonl", "")
#: bump when a generator or a reference solution changes what it produces
GENERATOR_VERSION = 2
DEFAULT_RANDOM = 10_000
DEFAULT_SEED = 0

#: Known quirks of PSB2's own data (docs/psb2.md): (problem, edge index) -> why.
QUIRKS: dict[tuple[str, int], str] = {
    ("bouncing_balls", 1): (
        "PSB2's output 3999.599534511501 for (100.0, 99.999, 20) was computed with a "
        "bounciness index of less than double precision; a double-precision solution gives "
        "3999.6000246989142, 4.9e-4 away (beyond the 1e-5 epsilon)"
    ),
}


@dataclass(frozen=True)
class Case:
    """One PSB2 case: typed inputs and outputs, where it came from."""

    inputs: list[Any]
    outputs: list[Any]
    kind: str  # "edge" or "random"
    index: int


def _data_file(data_file: DataFile, data_dir: str | os.PathLike[str] | None) -> Path | None:
    explicit = explicit_data_dir(data_dir)
    if explicit is not None and (explicit / data_file.relpath).is_file():
        return explicit / data_file.relpath
    return None


def load_descriptions(data_dir: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """Problem (underscore name) -> PSB2 task description, from ``psb2/tasks.txt``."""
    path = _data_file(TASKS, data_dir)
    if path is None:
        raise DataError(
            "psb2/tasks.txt not found — pass --data-dir (or set BEYONDPASS_DATA) to a folder "
            "holding psb2/tasks.txt: a problem name line, then its description line"
        )
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if len(lines) % 2:
        raise DataError(f"{path}: expected name/description line pairs, got {len(lines)} lines")
    out = {
        lines[i].strip().replace("-", "_"): lines[i + 1].strip() for i in range(0, len(lines), 2)
    }
    unknown = sorted(set(out) - set(PROBLEMS))
    if unknown:
        raise DataError(f"{path}: unknown PSB2 problems {', '.join(unknown)}")
    return out


def _from_original_row(row: dict[str, Any], problem: Problem, where: str) -> tuple[list, list]:
    try:
        inputs = [row[f"input{i + 1}"] for i in range(len(problem.inputs))]
        outputs = [row[f"output{i + 1}"] for i in range(len(problem.outputs))]
    except KeyError as exc:
        raise DataError(f"{where}: missing key {exc.args[0]!r}") from None
    return inputs, outputs


def _original_file(problem: Problem, kind: str, data_dir, download: bool) -> Path | None:
    name = problem.hyphenated
    explicit = explicit_data_dir(data_dir)
    if explicit is not None:
        for rel in (f"psb2/{name}-{kind}.json", f"psb2/{name}/{name}-{kind}.json"):
            if (explicit / rel).is_file():
                return explicit / rel
    if not download:
        return None
    url = CANONICAL_URL.format(problem=name, kind=kind)
    return resolve(DataFile(f"psb2/{name}/{name}-{kind}.json", url), data_dir)


def _read_original(path: Path, problem: Problem) -> list[tuple[list, list]]:
    # a random file holds a million lines: read in one parse
    data = read_bytes(path, "a PSB2 data file")
    rows = parse_all(str(path), data, example='{"input1": ..., "output1": ...}')
    return [_from_original_row(row, problem, f"{path}:{n}") for n, row in rows]


def load_edge_cases(data_dir: str | os.PathLike[str] | None = None) -> dict[str, list[Case]]:
    """Every problem's edge cases, from ``psb2/edge.jsonl`` or the original files."""
    path = _data_file(EDGE, data_dir)
    out: dict[str, list[Case]] = {}
    if path is not None:
        for n, row in read_objects(path, '{"problem": ..., "cases": [...]}', "psb2/edge.jsonl"):
            try:
                name = row["problem"]
                cases = [
                    Case(list(c["inputs"]), list(c["outputs"]), "edge", i)
                    for i, c in enumerate(row["cases"])
                ]
            except (KeyError, TypeError) as exc:
                raise DataError(f"{path}:{n}: not a PSB2 edge row ({exc})") from None
            if name not in PROBLEMS:
                raise DataError(f"{path}:{n}: unknown PSB2 problem {name!r}")
            out[name] = cases
        return out
    for name, problem in PROBLEMS.items():
        original = _original_file(problem, "edge", data_dir, download=True)
        assert original is not None
        rows = _read_original(original, problem)
        out[name] = [Case(i, o, "edge", k) for k, (i, o) in enumerate(rows)]
    return out


def _expected(problem: Problem, inputs: Sequence[Any]) -> list[Any]:
    result = getattr(reference, problem.name)(*inputs)
    if len(problem.outputs) == 1:
        result = (result,)
    return [list(v) if isinstance(v, tuple | list) else v for v in result]


def random_cases(
    name: str,
    n: int = DEFAULT_RANDOM,
    seed: int = DEFAULT_SEED,
    data_dir: str | os.PathLike[str] | None = None,
    cache_dir: Path | None = None,
) -> tuple[list[Case], str]:
    """``n`` random cases of a problem and where they came from.

    PSB2's own ``<problem>-random.json`` in the data directory is sampled when present;
    otherwise our generator and reference make them, cached as JSON lines under
    ``<cache>/psb2-random/`` (the cache is only ever a copy: a damaged file is rebuilt).
    """
    problem = PROBLEMS[name]
    original = _original_file(problem, "random", data_dir, download=False)
    if original is not None:
        rows = _read_original(original, problem)
        picked = random.Random(f"psb2-sample:{name}:{seed}").sample(rows, min(n, len(rows)))
        return [Case(i, o, "random", k) for k, (i, o) in enumerate(picked)], str(original)
    cache = (cache_dir or cache_root()) / "psb2-random"
    path = cache / f"{problem.hyphenated}-v{GENERATOR_VERSION}-seed{seed}-n{n}.jsonl"
    if path.is_file():
        try:
            rows = [r for _, r in parse_all(str(path), read_bytes(path))]  # one parse: faster
            if len(rows) == n:
                return [Case(r[0], r[1], "random", k) for k, r in enumerate(rows)], str(path)
        except (DataError, IndexError, TypeError, KeyError):
            pass  # damaged: made again
    cases = [
        Case(inputs, _expected(problem, inputs), "random", k)
        for k, inputs in enumerate(generate_inputs(name, n, seed))
    ]
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text("".join(json.dumps([c.inputs, c.outputs]) + "\n" for c in cases), "utf-8")
    os.replace(tmp, path)
    return cases, f"generated (generator v{GENERATOR_VERSION}, seed {seed})"
