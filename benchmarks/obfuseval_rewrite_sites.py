"""How often each semantic rewrite and structure transform applies on HumanEval and
sanitized MBPP: the tasks whose original reference has at least one site where the
precondition holds (semantic), or where the transform applies (structure). Also the data
behind inline_helper: tasks whose entry point calls a module-level helper at all.

    BEYONDPASS_DATA=/work/shared/data python benchmarks/obfuseval_rewrite_sites.py

prints a Markdown table (docs/obfuseval.md, "How often each rewrite applies").
"""

from __future__ import annotations

import ast
import os
import random
import sys
from collections import Counter

from beyondpass.benchmarks import load_benchmark
from beyondpass.methods.obfuseval import semantic
from beyondpass.methods.obfuseval.names import NameMaker
from beyondpass.methods.obfuseval.rewrite_base import Context, module_facts
from beyondpass.methods.obfuseval.structure import restructure
from beyondpass.methods.obfuseval.symbol import parse


def _ctx(key: str, source: str) -> Context:
    ctx = Context(random.Random(key), NameMaker(key, set(source.split())))
    module_facts(source, ctx)
    return ctx


def _calls_helper(source: str, entry: str) -> bool:
    """The entry point calls another module-level function of the reference."""
    tree = ast.parse(source)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    target = defs.get(entry)
    if target is None:
        return False
    called = {
        n.func.id
        for n in ast.walk(target)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    return bool(called & (set(defs) - {entry}))


def count(name: str, data: str) -> tuple[int, Counter[str]]:
    bench = load_benchmark(name, data)
    tasks: Counter[str] = Counter()
    for tid, task in bench.tasks.items():
        module = parse(task.reference_solution, "reference").module
        source = module.code
        for kind in [*semantic.LIBRARY, semantic.ReturnViaVariable]:
            worker = kind(_ctx(tid, source))
            module.visit(worker)
            tasks[kind.name] += worker.sites > 0
        done = restructure(module, task.entry_point, _ctx(tid, source), set(), prompt_ends=False)
        for step in done.applied:
            tasks[step] += 1
        tasks["(entry point calls a module-level helper)"] += _calls_helper(
            source, task.entry_point
        )
        _, applied = semantic.rewrite_semantics(module, _ctx(tid, source))
        tasks["(only return_via_variable applies)"] += set(applied) == {"return_via_variable"}
    return len(bench.tasks), tasks


def main() -> None:
    data = os.environ.get("BEYONDPASS_DATA", "/work/shared/data")
    he_n, he = count("humaneval", data)
    mb_n, mb = count("mbpp", data)
    rows = [k.name for k in semantic.LIBRARY] + ["return_via_variable"]
    rows += ["inline_helper", "extract_helper", "reorder_definitions"]
    rows += sorted(k for k in he.keys() | mb.keys() if k.startswith("("))
    print(f"| rewrite | HumanEval ({he_n}) | MBPP sanitized ({mb_n}) |")
    print("|---|---|---|")
    for row in rows:
        print(f"| {row} | {he[row]} | {mb[row]} |")


if __name__ == "__main__":
    sys.exit(main())
