"""NoFunEval compat vs the authors' own code, on every published 1-sample generations file.

Inputs: a checkout of microsoft/NoFunEval (``--published``, or $BEYONDPASS_NOFUNEVAL_REPO)
and the values their code produced for each file (``--reference``, or
$BEYONDPASS_NOFUNEVAL_REFERENCE): ``<dir>/<subset>/<model>/<prompt>.jsonl`` lines ``{"row",
"diffbleu", "template_followed", "code"}`` — their ``post_process_generations`` and
``diff_bleu`` run once on each row (the environment is recorded in docs/nofuneval.md).
Optionally ``--pie DIR``: their PIE harness's accuracy per runtime row
(``<dir>/runtime_efficiency__<model>__<prompt>.jsonl`` lines ``{"row", "acc"}``), compared
with compat correctness from ``--table`` (the output folder of ``nofuneval table1 --run``:
each file's compat run there).

Prints the per-file agreement (Markdown, for docs/nofuneval.md) and the totals.
``--write-fixture PATH`` also writes the seeded selection of rows the tests replay
(tests/data/nofuneval_authors_rows.json.gz).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import tempfile
import time
from pathlib import Path

from _common import argument_parser

from beyondpass.errors import BeyondpassError
from beyondpass.jsonl import read_objects
from beyondpass.methods.nofuneval.benchmark import PROMPTS
from beyondpass.methods.nofuneval.files.generations import generation_lines
from beyondpass.methods.nofuneval.table1.published import (
    TABLE1_ORDER,
    published_files,
    repo_root,
)
from beyondpass.methods.nofuneval.table1.render import agreement_table
from beyondpass.methods.nofuneval.table1.score import (
    TableSettings,
    read_reference,
    reference_path,
    run_dir,
    run_table,
)

SEED = 26
#: what produced the reference values (recorded in the fixture)
ENVIRONMENT = {
    "nofuneval_commit": "c82a903259767e20be36c1a95d96e5b064587b66",
    "python": "3.11.7",
    "nltk": "3.8.1",
    "tree_sitter": "0.20.4",
    "grammars": (
        "java, c, c++, javascript, python: the builds committed in their "
        "src/evaluation/tree-sitter/build; kotlin 1.1.0, scala 0.23.4, objc 3.0.2 built "
        "from the PyPI sdists (their setup clones these repositories unpinned)"
    ),
    "git": "2.39.5",
}


def main() -> None:
    try:
        _main()
    except BeyondpassError as exc:  # bad input: one line, no traceback
        raise SystemExit(f"error: {exc}") from None


def _main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--published", default=os.environ.get("BEYONDPASS_NOFUNEVAL_REPO"))
    parser.add_argument("--reference", default=os.environ.get("BEYONDPASS_NOFUNEVAL_REFERENCE"))
    parser.add_argument("--pie", default="", help="the PIE harness's accuracy per runtime row")
    parser.add_argument("--table", default="", help="the OUT of `nofuneval table1 --run`")
    parser.add_argument("--out", default="", help="where the table's runs go (default: temp)")
    parser.add_argument("--write-fixture", default="")
    parser.add_argument("--fixture-only", action="store_true", help="write it, score nothing")
    parser.add_argument("--pie-only", action="store_true", help="only the --pie comparison")
    args = parser.parse_args()
    if not args.reference:
        parser.error("--reference (or $BEYONDPASS_NOFUNEVAL_REFERENCE) is required")
    root, ref = repo_root(args.published), Path(args.reference)
    files = [f for f in published_files(root, samples=1) if f.readable()]
    if args.write_fixture:
        _fixture(files, ref, Path(args.write_fixture))
    if args.fixture_only:
        return
    if args.pie_only:
        if not (args.pie and args.table):
            parser.error("--pie-only needs --pie and --table")
        _pie(Path(args.pie), Path(args.table), files)
        return
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-table1-") as tmp:
        settings = TableSettings(Path(args.out or tmp), data_dir=args.data_dir)
        results = run_table(files, settings, reference=ref)
    wall = time.perf_counter() - start
    print(agreement_table(results))
    rows = sum(r.agreement["rows"] for r in results if r.agreement)
    equal = sum(r.agreement["equal"] for r in results if r.agreement)
    worst = min(r.agreement["equal"] / r.agreement["rows"] for r in results if r.agreement)
    print(f"\n{len(results)} files, {rows} rows: {equal} equal ({100 * equal / rows:.2f} %), ")
    print(f"lowest per file {100 * worst:.2f} %; {wall:.0f} s")
    if args.pie and args.table:
        _pie(Path(args.pie), Path(args.table), files)


def _pie(folder: Path, table: Path, files: list) -> None:
    """Compat correctness vs the harness's verdict (accuracy 1), per runtime row, as a
    Markdown table per file. The harness stops a program at 10 s (or on an exception) and
    scores it 0 either way, so its verdict on a slow program depends on the machine's
    load: a row it stopped was run once more, alone (``again``), and that run's verdict is
    the harness's. A row stopped twice is wrong to the harness; where compat calls it
    correct, the load decided, and the row is listed apart."""
    ours: dict[tuple[str, int], bool] = {}
    for file in files:
        scores = run_dir(table, file, "compat") / "scores.jsonl"
        if file.subset != "runtime_efficiency" or not scores.is_file():
            continue
        for _, s in read_objects(scores, "{}", "a compat run's scores.jsonl"):
            if "correct" in s:
                ours[(file.key, s["row"])] = bool(s["correct"])
    print("\n| model | prompt | rows | compat correct | harness correct (first run) | "
          "harness correct (stopped rows run again alone) | equal | stopped, then ran to "
          "the end alone | stopped twice |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    totals = {"rows": 0, "equal": 0}
    load_decides: list[str] = []
    for path in sorted(folder.glob("runtime_efficiency__*.jsonl")):
        _, model, prompt = path.stem.split("__")
        key = f"runtime_efficiency/{model}/{prompt}/1"
        theirs = [h for _, h in read_objects(path, "{}", "the harness's verdicts")]
        theirs = [h for h in theirs if (key, h["row"]) in ours]
        if not theirs:
            continue
        equal, final, later, twice = 0, 0, [], []
        for h in theirs:
            mine, run = ours[(key, h["row"])], h
            if h["nan_time"] and h.get("again"):
                run = h["again"]
                (twice if run["nan_time"] else later).append(h["row"])
            verdict = run["acc"] == 1.0 and not run["nan_time"]
            final += verdict
            if verdict == mine:
                equal += 1
            elif run["nan_time"]:
                load_decides.append(f"{key} row {h['row']}")
            else:
                print(f"  differs: {key} row {h['row']} (harness {run['acc']}, compat {mine})")
        first = sum(h["acc"] == 1.0 and not h["nan_time"] for h in theirs)
        mine_correct = sum(ours[(key, h["row"])] for h in theirs)
        print(f"| {model} | {prompt} | {len(theirs)} | {mine_correct} | {first} | {final} | "
              f"{equal} | {', '.join(map(str, later)) or '—'} | "
              f"{', '.join(map(str, twice)) or '—'} |")  # fmt: skip
        totals["rows"] += len(theirs)
        totals["equal"] += equal
    print(f"\nruntime correctness: {totals['rows']} rows, {totals['equal']} equal to the "
          "harness's verdict")  # fmt: skip
    for row in load_decides:
        print(f"  stopped twice by the harness, correct in compat (the load decides): {row}")


def file_lines(path: Path) -> list[dict]:
    """A published file's lines, through the one reader of generations files."""
    return [obj for _, obj in generation_lines(path)]


def _as_published(answers: object) -> str:
    """The first ``generated_answers`` entry as the file holds it (a string stays whole: the
    tests replay it through the reader of published answers)."""
    return answers if isinstance(answers, str) else str(answers[0])  # type: ignore[index]


def _fixture(files: list, ref: Path, out: Path) -> None:
    """Per model and prompt: one row of a subset in turn, and one row the authors read
    without the template (their fallback paths); plus one such row per language."""
    rng = random.Random(SEED)
    picked: dict[tuple[str, str, str, int], str] = {}
    fallback_by_lang: dict[str, list[tuple[str, str, str, int]]] = {}
    models = sorted({f.model for f in files})
    by_key = {(f.subset, f.model, f.prompt): f for f in files}
    theirs: dict[tuple[str, str, str], list[dict]] = {}
    for f in files:
        theirs[(f.subset, f.model, f.prompt)] = read_reference(reference_path(ref, f))
    for mi, model in enumerate(models):
        for pi, prompt in enumerate(PROMPTS):
            subset = TABLE1_ORDER[(mi + pi) % len(TABLE1_ORDER)]
            values = theirs[(subset, model, prompt)]
            picked[(subset, model, prompt, rng.randrange(len(values)))] = "random"
            fallback = [
                (s, model, prompt, x["row"])
                for s in TABLE1_ORDER
                for x in theirs[(s, model, prompt)]
                if not x["template_followed"]
            ]
            if fallback:
                picked[rng.choice(fallback)] = "template not followed"
    for (s, m, p), values in sorted(theirs.items()):
        for x in values:
            if not x["template_followed"]:
                fallback_by_lang.setdefault(x["pl"].lower(), []).append((s, m, p, x["row"]))
    for _lang, keys in sorted(fallback_by_lang.items()):
        picked.setdefault(rng.choice(keys), "language")
    lines = []
    for (s, m, p, row), why in sorted(picked.items()):
        r = file_lines(by_key[(s, m, p)].path)[row]
        x = theirs[(s, m, p)][row]
        lines.append(
            {
                "subset": s, "model": m, "prompt": p, "row": row, "pl": r["pl"], "why": why,
                "answer": _as_published(r["generated_answers"]),
                "source_code": r["source_code"], "target_code": r["target_code"],
                "authors": {k: x[k] for k in ("diffbleu", "template_followed", "code")},
            }
        )  # fmt: skip
    doc = {"seed": SEED, "environment": ENVIRONMENT, "rows": lines}
    out.write_bytes(gzip.compress(json.dumps(doc).encode("utf-8"), mtime=0))
    print(f"fixture: {len(lines)} rows, {out.stat().st_size} bytes -> {out}")


if __name__ == "__main__":
    main()
