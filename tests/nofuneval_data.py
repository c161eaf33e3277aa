"""Where the NoFunEval data lives for the tests; missing data fails on CI, skips elsewhere."""

from __future__ import annotations

import json
import os
import pathlib

from shared_data import require

PROMPT_KINDS = ("base_prompt", "one_shot", "chain_of_thought", "coding_concepts")
EDIT_SUBSETS = ("latency", "resource_util", "runtime_efficiency", "security")


def nofuneval_dir() -> pathlib.Path:
    env = os.environ.get("BEYONDPASS_DATA")
    root = pathlib.Path(env) if env else pathlib.Path(__file__).parents[2] / "shared" / "data"
    path = root / "nofuneval"
    require(path / "latency.jsonl", "NoFunEval data")
    return path


def rows(name: str) -> list[dict]:
    with (nofuneval_dir() / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
