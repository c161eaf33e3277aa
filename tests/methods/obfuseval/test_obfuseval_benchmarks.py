"""A seeded sample of HumanEval and sanitized MBPP tasks at each level, checked
independently.

Each (benchmark, levels) pair is transformed and verified once (a module-scoped fixture)
and every assertion about it reads the shared result; the checks themselves are in
obfuseval_checks.py beside this file (names read back with Python's own ``tokenize``/``ast``,
not libcst, which does the renaming). Verification runs every variant in the bwrap sandbox.
The same checks over every task of both benchmarks are benchmarks/bench_obfuseval_levels.py,
with its results in docs/obfuseval.md ("Verification").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

pytest.importorskip("libcst")

from beyondpass.benchmarks import load_benchmark  # noqa: E402
from beyondpass.benchmarks.task import Benchmark, Task, TestCase  # noqa: E402
from beyondpass.benchmarks.transforms import SubsetOptions, subset  # noqa: E402
from beyondpass.execution import ExecutionLimits  # noqa: E402
from beyondpass.methods.obfuseval.transform import (  # noqa: E402
    ObfuscateOptions,
    Report,
    obfuscate_benchmark,
)
from obfuseval_checks import LEVEL_SETS, name_problems, variant_problems  # noqa: E402

#: tasks per benchmark in the sample (the ``subset`` transform, seed 0); every task of both
#: benchmarks is checked the same way by benchmarks/bench_obfuseval_levels.py
SAMPLE = 20
#: added to the sample: the task the full runs refuse (below), so the refusal is checked
ALSO = {"HumanEval/160"}
#: left out of the sample: MBPP/123's tests take 5.5 s of CPU per run (amicable numbers
#: below 9999), so verifying its variants at every level set cost CI a minute and checked
#: nothing the other tasks do not (docs/obfuseval.md has its full-run verdicts)
SLOW = {"MBPP/123"}
#: the one exclusion documented for the sample (docs/obfuseval.md): at every level set with
#: the symbol level, HumanEval/160 is refused because ``eval()`` reaches names through strings
REFUSED = {"HumanEval/160": "not obfuscated: names reached through strings or the namespace"}
#: generous: verification is about behaviour, and MBPP/123 is slow on a loaded machine
LIMITS = ExecutionLimits(timeout_s=60)
Run = tuple[Benchmark, Benchmark, Report]


def _expected_exclusions(bench: Benchmark, levels: tuple[str, ...]) -> dict[str, str]:
    return {t: why for t, why in REFUSED.items() if t in bench.tasks and "symbol" in levels}


@pytest.fixture(scope="module")
def obfuscated(data_dir: object) -> Callable[[str, tuple[str, ...]], Run]:
    """``(benchmark, levels) -> (sample, obfuscated, report)``, each computed once (seed 0,
    one variant, one sandbox batch) and shared by every assertion about it."""
    benches: dict[str, Benchmark] = {}
    runs: dict[tuple[str, tuple[str, ...]], Run] = {}

    def get(name: str, levels: tuple[str, ...]) -> Run:
        if name not in benches:
            full = load_benchmark(name, data_dir)  # type: ignore[arg-type]
            sample = subset(full, SubsetOptions(size=SAMPLE), seed=0)
            kept = {t: task for t, task in sample.tasks.items() if t not in SLOW}
            kept.update({t: full.tasks[t] for t in sorted(ALSO) if t in full.tasks})
            benches[name] = dataclasses.replace(sample, tasks=kept)
        if (name, levels) not in runs:
            options = ObfuscateOptions(levels=list(levels))  # type: ignore[arg-type]
            out, report = obfuscate_benchmark(benches[name], options, seed=0, limits=LIMITS)
            runs[name, levels] = (benches[name], out, report)
        return runs[name, levels]

    return get


@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_no_name_of_the_signature_survives_in_prompt_context_or_tests(
    name: str, obfuscated: Callable[[str, tuple[str, ...]], Run]
) -> None:
    """On every verified symbol-level variant (and the renamed tasks of all three levels):
    no identifier of the entry point or its parameters is left; refusals have a reason."""
    for levels in (("symbol",), ("symbol", "structure", "semantic")):
        bench, out, report = obfuscated(name, levels)
        assert len(bench.tasks) == SAMPLE + (name == "humaneval") - (name == "mbpp")
        assert (name != "humaneval") or set(REFUSED) <= set(bench.tasks)
        problems = name_problems(bench, out)
        assert not problems, (levels, problems)
        refused = {
            o.task_id: o.reason for o in report.excluded if o.reason.startswith("not obfuscated")
        }
        expected = _expected_exclusions(bench, levels)
        assert set(refused) <= set(expected), refused
        assert all(refused[t].startswith(expected[t]) for t in refused), refused


@pytest.mark.parametrize("levels", LEVEL_SETS, ids=["+".join(s) for s in LEVEL_SETS])
@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_every_task_at_each_level_is_verified_or_excluded_with_why(
    name: str, levels: tuple[str, ...], obfuscated: Callable[[str, tuple[str, ...]], Run]
) -> None:
    """Every sampled task, one sandbox batch: verified (passing its tests, and for the
    structure and semantic levels agreeing with the reference before the rewrites on every
    test call) unless it is the documented exclusion, each variant really changed, every
    exclusion listed with a reason."""
    bench, out, report = obfuscated(name, levels)
    excluded = {o.task_id: o.reason for o in report.excluded}
    expected = _expected_exclusions(bench, levels)
    assert set(excluded) == set(expected), excluded
    assert all(excluded[t].startswith(expected[t]) for t in excluded), excluded
    problems = variant_problems(bench, out, report, levels)
    assert not problems, problems


def _bench(*tasks: Task) -> Benchmark:
    return Benchmark("hand", "v0", {t.task_id: t for t in tasks}, source="test")


def _hand(tid: str, reference: str, test: str) -> Task:
    return Task(
        "hand",
        tid,
        "python",
        "Write f.\n",
        "f",
        reference,
        (TestCase("t0", test),),
        prompt_style="description",
    )


def test_a_variant_that_fails_is_excluded_with_the_reason_never_kept() -> None:
    bench = _bench(
        _hand("ok", "def f(x):\n    return x + 1\n", "assert f(1) == 2"),
        # the renamed function reports its new name: behaviour changes, execution sees it
        _hand("name", "def f():\n    return f.__name__\n", "assert f() == 'f'"),
        # the task was broken before obfuscation: the report says so
        _hand("broken", "def f(x):\n    return x\n", "assert f(1) == 2"),
    )
    out, report = obfuscate_benchmark(bench, ObfuscateOptions(variants=2), seed=5)
    assert sorted(out.tasks) == ["ok#v0", "ok#v1"]
    reasons = {(o.task_id, o.variant): o.reason for o in report.excluded}
    assert set(reasons) == {("name", 0), ("name", 1), ("broken", 0), ("broken", 1)}
    assert "verification failed: failed" in reasons[("name", 0)]
    assert "AssertionError" in reasons[("name", 0)]
    assert "original reference fails its tests too" not in reasons[("name", 0)]
    assert "original reference fails its tests too" in reasons[("broken", 1)]
    v0, v1 = out.tasks["ok#v0"], out.tasks["ok#v1"]
    assert v0.entry_point != v1.entry_point  # different seeds, different variants
    assert (v0.metadata["variant"], v1.metadata["variant"]) == (0, 1)
