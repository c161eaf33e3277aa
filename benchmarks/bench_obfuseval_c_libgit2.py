"""C project mode on libgit2 1.8.0 (the seed's project): the seed's whole-suite setting.

    python benchmarks/bench_obfuseval_c_libgit2.py [--data-dir DIR] [--references 2]
        [--answers 4] [--model gpt-4-1106-preview] [--repeats 1] [--out F.json]

Wall-time budget: about 3 minutes to prepare (the build, one listing run of the offline
suites, one baseline run) and about 2 minutes per judged answer per repeat on this 2-core
machine; the defaults stay within 20 minutes.

libgit2's tarball and the seed's published libgit2 files come from the data directory
(``obfuseval-c/``). The project is built in the project sandbox with its bundled
dependencies (no HTTPS, no SSH: the offline suites need neither), and every judged answer
runs the two offline suites the seed runs (``util_tests`` and ``libgit2_tests -xonline``,
TAP output) with the answer spliced in. First the original functions of a seeded sample of
the generation tasks are spliced back (the machinery check: each must build and pass),
then the recorded answers of one model for another seeded sample of functions, each
beside the authors' recorded outcome: the cost per judged answer and a first look at the
agreement. The figures are in docs/performance.md and docs/obfuseval.md.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from _common import argument_parser

INSTALL = (
    "cmake -S . -B build -DUSE_HTTPS=OFF -DUSE_SSH=OFF -DBUILD_CLI=OFF "
    "-DREGEX_BACKEND=builtin -DUSE_BUNDLED_ZLIB=ON -DUSE_HTTP_PARSER=builtin "
    "-DCMAKE_BUILD_TYPE=Debug && cmake --build build -j2"
)
TESTS = "build/util_tests -t; build/libgit2_tests -t -xonline"
#: ``--gnu90``: libgit2's targets built as GNU C90 (``//`` comments and other extensions
#: allowed), a hypothesis about the authors' build, not libgit2's own setting
GNU90 = (
    "for f in src/util/CMakeLists.txt src/libgit2/CMakeLists.txt; do "
    "if grep -q 'C_EXTENSIONS OFF' $f; then sed -i 's/C_EXTENSIONS OFF/C_EXTENSIONS ON/' $f; fi; "
    "done && "
)  # edited once: an answer's copy keeps the built tree's files, so its build stays incremental


def _description(
    scratch: Path, tarball: Path, files: list[str], functions: list[str], gnu90: bool
) -> Path:
    path = scratch / "libgit2.toml"
    install = (GNU90 if gnu90 else "") + INSTALL
    path.write_text(
        f'name = "libgit2"\nlanguage = "c"\n[source]\nsdist = "{tarball}"\n'
        f"[build]\ninstall = {json.dumps(install)}\n"
        f"[test]\ncommand = {json.dumps('sh -c ' + repr(TESTS))}\n"
        "result = '^(?P<status>ok|not ok) \\d+ - (?P<name>\\S+)'\n"
        'select = "whole-suite"\ntimeout_s = 1200\n'
        f"[select]\npaths = {json.dumps(files)}\nfunctions = {json.dumps(functions)}\n"
        # every function of those names: names repeat across files (static functions)
        "max_functions = 100000\nmin_lines = 1\n"
    )
    return path


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--references", type=int, default=2)
    parser.add_argument("--answers", type=int, default=4)
    parser.add_argument("--model", default="gpt-4-1106-preview")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gnu90", action="store_true", help="build as GNU C90 (see GNU90)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    from beyondpass.execution import Sandboxes
    from beyondpass.methods.obfuseval.cproject.runner import judge, prepare
    from beyondpass.methods.obfuseval.project.spec import load_project
    from beyondpass.methods.obfuseval.published import answers, settings, tasks

    data = Path(args.data_dir) / "obfuseval-c"
    root, tarball = data / "seed", data / "libgit2-1.8.0.tar.gz"
    project, setting = settings.project("libgit2"), settings.setting("generation/original")
    listed = tasks.load(root, project, setting)
    recorded = {}
    for path, model in answers.answer_files(root, project, setting):
        if model == args.model:
            for answer in answers.read(path, model, project, setting, listed):
                recorded.setdefault(answer.function, answer)
    rng = random.Random(args.seed)
    names = sorted({t.function for t in listed})
    references = rng.sample(names, args.references)
    with_code = sorted(n for n, a in recorded.items() if a.code and n not in references)
    judged_answers = rng.sample(with_code, min(args.answers, len(with_code)))
    chosen = [t for t in listed if t.function in set(references) | set(judged_answers)]
    out: dict = {
        "model": args.model, "seed": args.seed, "repeats": args.repeats, "gnu90": args.gnu90
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="libgit2-") as scratch_dir:
        scratch = Path(scratch_dir)
        description = _description(
            scratch,
            tarball,
            sorted({t.source_file for t in chosen}),
            sorted({t.function for t in chosen}),
            args.gnu90,
        )
        spec = replace(load_project(description), repeats=args.repeats)
        started = time.perf_counter()
        prepared = prepare(spec, scratch / "prepare", Sandboxes(announce=False), args.seed)
        out["prepare_s"] = round(time.perf_counter() - started, 1)
        out["tests"] = len(prepared.tests)
        out["flaky"] = prepared.flaky
        out["compiler"] = prepared.compiler
        by_place = {(t.function.path, t.function.name): t for t in prepared.tasks}
        where = {t.function: t.source_file for t in listed}
        rows = []
        for name, kind in [(n, "reference") for n in references] + [
            (n, "answer") for n in judged_answers
        ]:
            task = by_place.get((where[name], name))
            if task is None:
                rows.append({"function": name, "kind": kind, "missing": True})
                continue
            code = task.function.text if kind == "reference" else recorded[name].code
            started = time.perf_counter()
            result = judge(prepared, task, code, scratch / "work")
            row = {
                "function": name, "kind": kind, "seconds": round(time.perf_counter() - started, 1),
                "compiled": result.compiled, "passed": result.passed,
                "category": result.category, "detail": result.detail[:300],
                "failing": dict(list(result.failing.items())[:5]),
            }  # fmt: skip
            if kind == "answer":
                row["recorded_compiled"] = recorded[name].compiled
                row["recorded_passed"] = recorded[name].passed
            rows.append(row)
            print(json.dumps(row), flush=True)
        out["judged"] = rows
    if args.out is not None:
        args.out.write_text(json.dumps(out, indent=1))
    print(json.dumps({k: v for k, v in out.items() if k != "judged"}))


if __name__ == "__main__":
    main()
