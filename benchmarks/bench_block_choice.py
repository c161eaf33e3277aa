"""Which block of a multi-block answer is the answer: what each choice decides, on real answers.

Usage::

    python benchmarks/bench_block_choice.py [--data-dir ../shared/data] [--workers 2]
        [--json]

Reads every recorded model answer under the data directory that holds two or more fenced
blocks. The Python answers with tests (``recorded/multi-block-answers.jsonl``: gpt-5.4 on
HumanEval) are extracted under each choice:

- ``first block`` / ``last block``: the answer's first / last fenced Python block alone,
  completed against the prompt as ``fenced-code`` completes any block;
- ``first candidate`` / ``last candidate``: among the blocks that define the entry point
  (rule 5(a) of docs/extraction.md), the first / the last (``last candidate``: the rule
  before this measurement);
- ``named``: the last candidate whose lead-in names it the answer, else the first
  (``extraction/blocks.py``).

Each distinct program runs once on the task's tests in the sandbox (the ``functional``
evaluator). Printed per model: answers, multi-block and multi-candidate answers, passes and
agreement with the authors' recorded verdict under each choice, the answers whose verdict
depends on the choice, and which ones. The other recorded answers (gpt-3.5-turbo's
HumanEval/MBPP solutions, gpt-4's NoFunEval edits, gpt-4's RobustAPI answers, ObfusEval's
four models) are counted: how many hold several blocks, and for ObfusEval how many of those
hold candidates that differ (their C tests need the project built, so they are not run
here). Record the figures in docs/extraction.md.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from _common import argument_parser

from beyondpass.benchmarks.humaneval import load_humaneval, read_jsonl
from beyondpass.benchmarks.task import Task
from beyondpass.evaluators.base import Candidate
from beyondpass.evaluators.functional import FunctionalEvaluator
from beyondpass.execution import ExecutorChoice
from beyondpass.extraction.blocks import Rule
from beyondpass.extraction.program import LANGUAGE_TAGS, candidates, fenced
from beyondpass.extraction.python_code import extract_python
from beyondpass.extraction.result import Extraction

CHOICES = ("first block", "last block", "first candidate", "last candidate", "named")
CANDIDATE_CHOICES = ("first candidate", "last candidate", "named")
RULE_CHOICE = "named"
PREVIOUS_CHOICE = "last candidate"
_FENCE_COUNT = re.compile(r"^[ \t]*(?:```|~~~)", re.M)


def python_blocks(answer: str) -> list[str]:
    """The answer's fenced blocks tagged Python or untagged."""
    return [b.text for b in fenced(answer) if not b.tag or b.tag in LANGUAGE_TAGS["python"]]


def choices(answer: str, task: Task) -> dict[str, Extraction]:
    """The extraction of ``answer`` under every choice."""
    blocks = python_blocks(answer)
    out = {}
    for name, block in (("first block", blocks[0]), ("last block", blocks[-1])):
        out[name] = extract_python(f"```python\n{block}\n```\n", task)
    rules: dict[str, Rule] = {
        "first candidate": "first",
        "last candidate": "last",
        "named": "named",
    }
    for name, rule in rules.items():
        out[name] = extract_python(answer, task, rule)
    return out


def verdicts(jobs: list[tuple[Task, Extraction]], workers: int) -> list[bool]:
    """Whether each program passes its task's tests; each distinct program runs once."""
    unique: dict[tuple[str, str], int] = {}
    runnable: list[Candidate] = []
    for task, ext in jobs:
        key = (task.task_id, ext.program)
        if ext.ok and key not in unique:
            unique[key] = len(runnable)
            runnable.append(Candidate(task, replace(ext, alternative=None)))  # run it alone
    executor = ExecutorChoice().build(workers=workers)
    try:
        results = FunctionalEvaluator(executor).evaluate(runnable)
    finally:
        executor.close()
    out = []
    for task, ext in jobs:
        out.append(bool(ext.ok and results[unique[(task.task_id, ext.program)]].passed))
    return out


def humaneval_evidence(data_dir: Path, workers: int) -> dict[str, Any]:
    """The gpt-5.4 HumanEval answers: every choice's program run on the tests."""
    rows = read_jsonl(data_dir / "recorded" / "multi-block-answers.jsonl")
    bench = load_humaneval(data_dir)
    per_row = [choices(r["response"], bench.tasks[r["task_id"]]) for r in rows]
    jobs = [
        (bench.tasks[r["task_id"]], c[name])
        for r, c in zip(rows, per_row, strict=True)
        for name in CHOICES
    ]
    flat = iter(verdicts(jobs, workers))
    passed = [{name: next(flat) for name in CHOICES} for _ in rows]
    multi = [c["named"].candidates > 1 for c in per_row]
    depends, disagree = [], []
    for r, v, c in zip(rows, passed, per_row, strict=True):
        row = {
            "task_id": r["task_id"],
            "prompt_style": r["prompt_style"],
            "authors_passed": r["authors_passed"],
            "candidates": c["named"].candidates,
            "passed": v,
        }
        if len({v[n] for n in CANDIDATE_CHOICES}) > 1:
            depends.append(row)
        if v[RULE_CHOICE] != bool(r["authors_passed"]):
            disagree.append(row)
    return {
        "model": "gpt-5.4-2026-03-05",
        "source": "recorded/multi-block-answers.jsonl (HumanEval)",
        "answers": len(rows),
        "multi_block": sum(len(python_blocks(r["response"])) > 1 for r in rows),
        "multi_candidate": sum(multi),
        "passed": {n: sum(v[n] for v in passed) for n in CHOICES},
        "agree_with_authors": {
            n: sum(v[n] == bool(r["authors_passed"]) for v, r in zip(passed, rows, strict=True))
            for n in CHOICES
        },
        "changed_vs_rule": {n: sum(v[n] != v[RULE_CHOICE] for v in passed) for n in CHOICES},
        "changed_vs_previous": {
            n: sum(v[n] != v[PREVIOUS_CHOICE] for v in passed) for n in CHOICES
        },
        "verdict_depends_on_candidate_choice": depends,
        "rule_disagrees_with_authors": disagree,
    }


def _several(text: str) -> bool:
    return len(_FENCE_COUNT.findall(text or "")) >= 4  # two opening and two closing fences


def counted_sources(data_dir: Path) -> list[dict[str, Any]]:
    """Recorded answers whose block choice is counted, not run."""
    out = []
    for name in ("humaneval", "mbpp"):
        rows = read_jsonl(data_dir / "recorded" / f"{name}-gpt-3.5-turbo-0613.jsonl")
        out.append(
            {
                "model": "gpt-3.5-turbo-0613",
                "source": f"recorded/{name}-gpt-3.5-turbo-0613.jsonl (solution)",
                "answers": len(rows),
                "multi_block": sum(_several(r.get("solution", "")) for r in rows),
            }
        )
    out += nofuneval_counts(data_dir)
    rows = read_jsonl(data_dir / "recorded" / "robustapi-gpt-4-0613-zero_shot.jsonl")
    out.append(
        {
            "model": "gpt-4-0613",
            "source": "recorded/robustapi-gpt-4-0613-zero_shot.jsonl (robustapi-blocks: "
            "every block of the code section is read, no choice)",
            "answers": len(rows),
            "multi_block": sum(_several(r["response"]) for r in rows),
        }
    )
    return out + obfuseval_counts(data_dir)


def nofuneval_counts(data_dir: Path) -> list[dict[str, Any]]:
    """gpt-4's published NoFunEdit generations: blocks in the answer after its echoed prompt."""
    from beyondpass.methods.nofuneval import benchmark
    from beyondpass.methods.nofuneval.extraction.echo import echoed
    from beyondpass.methods.nofuneval.extraction.readers import published_answer

    out = []
    for subset in ("latency", "runtime_efficiency"):
        tasks = list(getattr(benchmark, f"load_{subset}")(data_dir).tasks.values())
        root = data_dir / "nofuneval" / "generations" / subset / "gpt-4"
        n = multi = 0
        for path in sorted(root.glob("*/generated_outputs.jsonl")):
            for task, row in zip(tasks, read_jsonl(path), strict=True):
                text = published_answer(row["generated_answers"])
                prompts = dict(enumerate(map(str, task.metadata["prompt_fields"].values())))
                key = echoed(text, prompts)
                text = text[len(prompts[key]) :] if key is not None else text
                n += 1
                multi += len(fenced(text.split("\n### Instruction:")[0])) > 1
        out.append(
            {
                "model": "gpt-4",
                "source": f"nofuneval/generations/{subset}/gpt-4 (4 prompts, after the echo)",
                "answers": n,
                "multi_block": multi,
            }
        )
    return out


def obfuseval_counts(data_dir: Path) -> list[dict[str, Any]]:
    """ObfusEval's published answers (C), per model: several blocks, differing candidates."""
    from beyondpass.methods.obfuseval.published import answers, settings, tasks

    root = data_dir / "obfuseval-c" / "seed"
    seen: Counter[str] = Counter()
    multi: Counter[str] = Counter()
    differ: Counter[str] = Counter()
    differ_passed: Counter[str] = Counter()
    for project in settings.available(root):
        for setting in settings.SETTINGS:
            listed = tasks.load(root, project, setting)
            for path, model in answers.answer_files(root, project, setting):
                for a in answers.read(path, model, project, setting, listed):
                    seen[model] += 1
                    found = candidates(fenced(a.response), "c")
                    multi[model] += len(fenced(a.response)) > 1
                    texts = {" ".join(b.text.split()) for b in found}
                    differ[model] += len(texts) > 1
                    differ_passed[model] += len(texts) > 1 and a.passed
    return [
        {
            "model": model,
            "source": "obfuseval-c/seed (libgit2, every setting; C tests not run here)",
            "answers": seen[model],
            "multi_block": multi[model],
            "differing_candidates": differ[model],
            "differing_authors_passed": differ_passed[model],
        }
        for model in sorted(seen)
    ]


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    data_dir = Path(args.data_dir)
    result = {
        "run": humaneval_evidence(data_dir, args.workers),
        "counted": counted_sources(data_dir),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    run = result["run"]
    print(f"{run['model']}: {run['source']}")
    print(f"  answers {run['answers']}, multi-block {run['multi_block']}, "
          f"multi-candidate {run['multi_candidate']}")  # fmt: skip
    for name in CHOICES:
        print(
            f"  {name:16} passed {run['passed'][name]:3}  agree with authors "
            f"{run['agree_with_authors'][name]:3}  changed vs rule {run['changed_vs_rule'][name]:2}"
            f"  vs previous {run['changed_vs_previous'][name]:2}"
        )
    for key in ("verdict_depends_on_candidate_choice", "rule_disagrees_with_authors"):
        for d in run[key]:
            print(f"  {key}: {d['task_id']} {d['prompt_style']} "
                  f"authors={d['authors_passed']} {d['passed']}")  # fmt: skip
    for c in result["counted"]:
        extra = ""
        if "differing_candidates" in c:
            extra = (
                f", differing candidates {c['differing_candidates']} (authors' recorded "
                f"outcome of the first: {c['differing_authors_passed']} passed)"
            )
        print(f"{c['model']}: {c['source']}")
        print(f"  answers {c['answers']}, multi-block {c['multi_block']}{extra}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
