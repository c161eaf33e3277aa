"""The core components, declared as one method (``core``) and registered first.

Everything beyondpass ships outside a method — the shared benchmarks, the generic prompt
plans, answer formats, the functional verdict, the ``subset`` transform, the model
providers, the executors and the core commands — is named here exactly as a method names its
own (``"module:attribute"`` strings resolved on first use), so the registry is the one table
of components and listing them imports nothing heavy.
"""

from __future__ import annotations

from beyondpass.registry import (
    AnswerFileSpec,
    AnswerFormatSpec,
    BenchmarkSpec,
    EvaluatorSpec,
    ExecutorSpec,
    HeadlineSpec,
    Method,
    Metric,
    PlanSpec,
    ProviderSpec,
    TransformSpec,
)

_SANDBOX = "beyondpass.execution.sandbox_executor:SandboxExecutor"

CORE = Method(
    name="core",
    description="generic components: shared benchmarks, functional verdict, answer formats",
    benchmarks=(
        BenchmarkSpec(
            "humaneval",
            "beyondpass.benchmarks.humaneval:load_humaneval",
            "HumanEval, 164 Python function-completion tasks",
        ),
        BenchmarkSpec(
            "humaneval-et",
            "beyondpass.benchmarks.humaneval:load_humaneval_et",
            "HumanEval with ~100 extended tests per task",
        ),
        BenchmarkSpec(
            "mbpp",
            "beyondpass.benchmarks.mbpp:load_mbpp",
            "MBPP sanitized, 427 Python tasks from prose",
        ),
        BenchmarkSpec(
            "mbpp-et",
            "beyondpass.benchmarks.mbpp:load_mbpp_et",
            "MBPP-ET: 397 sanitized MBPP tasks with ~100 extended tests",
        ),
        BenchmarkSpec(
            "demo",
            "beyondpass.demo:load_demo",
            "8 small tasks shipped with beyondpass for the demo (no data needed)",
        ),
        BenchmarkSpec(
            "demo-nfr",
            "beyondpass.demo:load_demo_nfr",
            "4 small tasks of the demo's RobuNFR arm, where readability and error handling show",
        ),
    ),
    plans=(
        PlanSpec(
            "function-only",
            "beyondpass.prompts.plan:function_only_plan",
            "RobuNFR Function-Only: the functional requirement alone",
        ),
        PlanSpec(
            "neutral",
            "beyondpass.prompts.plan:neutral_plan",
            "Neutral methodology prompt over the benchmark task text",
        ),
    ),
    answer_files=(
        AnswerFileSpec(
            "answers",
            "beyondpass.study.answer_files:AnswerFile",
            "one answer per line: task_id and completion, solution, response, ...",
        ),
    ),
    answer_formats=(
        AnswerFormatSpec(
            "fenced-code",
            "beyondpass.extraction.python_code:extract_python",
            "Python code, fenced or bare, completed against the task prompt",
        ),
        AnswerFormatSpec(
            "whole-program",
            "beyondpass.extraction.program:extract_program",
            "a whole program in the task's language (its fenced block, else the answer)",
        ),
        AnswerFormatSpec(
            "edited-program",
            "beyondpass.extraction.program:extract_program",
            "the whole program after an edit (as whole-program; evaluators compare it)",
        ),
    ),
    evaluators=(
        EvaluatorSpec(
            "functional",
            "beyondpass.evaluators.select:functional_evaluator",
            options="beyondpass.evaluators.select:FunctionalOptions",
            metrics=(
                Metric("tests_passed", "tests", "higher", "sum"),
                Metric("tests_run", "tests", "none", "sum"),
                Metric("exec_time_ms", "ms", "lower", "mean", "all tests, mean of timed runs"),
                Metric("exec_time_stdev_ms", "ms", "lower", "mean"),
                Metric("exec_time_ref", "reference units", "lower", "mean"),
            ),
            decides_verdict=True,
            runs_code=True,
            # per answer with several candidate blocks: the other reading's verdict
            result_fields=("block_choice",),
            summary="beyondpass.evaluators.functional:block_choice_summary",
            description="runs the task's tests in the sandbox; decides the verdict",
        ),
    ),
    headlines=(
        HeadlineSpec(
            "pass@1",
            "Pass@1",
            "higher",
            "share",
            "task",
            "beyondpass.analysis.headline:pass_observations",
            "share of a task's samples that pass, averaged over tasks",
        ),
    ),
    transforms=(
        TransformSpec(
            "subset",
            "beyondpass.benchmarks.transforms:subset",
            options="beyondpass.benchmarks.transforms:SubsetOptions",
            description="a seeded random subset of the tasks (the trivial transform)",
        ),
    ),
    # in ``--help`` order
    # the profile study: every method on one model, in one run (studies/profile.toml)
    studies="beyondpass.study.studies",
    # the profile (every method's headline metrics, first) and the blind review's section
    report_sections=(
        "beyondpass.report.profile:ProfileSection",
        "beyondpass.review.section:ReviewReportSection",
        # answers with several candidate blocks: would the other reading change the verdict
        "beyondpass.report.block_choice:BlockChoiceSection",
    ),
    commands=(
        "beyondpass.cli.benchmarks:benchmarks",
        "beyondpass.cli.evaluate:evaluate",
        "beyondpass.cli.run:run",
        "beyondpass.cli.report:report",
        "beyondpass.cli.demo:demo",
        "beyondpass.cli.compare:compare",
        "beyondpass.cli.rescore:rescore",
        "beyondpass.cli.studies:studies",
        # the blind side-by-side human review of any run (docs/review.md)
        "beyondpass.review.cli:review",
    ),
    providers=(
        ProviderSpec(
            "openai",
            "beyondpass.models.openai_provider:OpenAIProvider",
            sdk="openai",
            description="OpenAI and OpenAI-compatible endpoints (vLLM, Ollama, ...)",
        ),
        ProviderSpec(
            "anthropic",
            "beyondpass.models.anthropic_provider:AnthropicProvider",
            sdk="anthropic",
            description="the Anthropic Messages API",
        ),
        ProviderSpec(
            "replay",
            "beyondpass.models.replay:ReplayProvider",
            takes_url=False,
            description="answers recorded in a JSONL file",
        ),
    ),
    executors=(
        ExecutorSpec("sandbox", _SANDBOX, description="sandboxed worker pool (the default)"),
        ExecutorSpec(
            "subprocess",
            _SANDBOX,
            defaults={"fresh_workers": True},
            description="the process-per-sample baseline: a fresh worker per sample",
        ),
        ExecutorSpec(
            "ray",
            "beyondpass.execution.ray_executor:RayExecutor",
            description="batches fanned out to Ray, each worker sandboxed",
        ),
    ),
)

#: what the registry reads of every built-in method
METHOD = CORE
