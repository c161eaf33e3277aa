"""PSB2 (seed 002, a methodology for comparing code LLMs): functional validity per language
on PSB2, plus technical quality (metrics and smells) of the answers.

Brings the ``psb2`` benchmark (25 problems, PSB2 edge cases plus 10,000 seeded random cases
each, typed stdin/stdout I/O) and ``psb2-edge`` (edge cases only). Answers are whole
programs run through the executor's I/O tests, in Python, C++ and Java (compiled once in
the sandbox; execution/languages.py).
This module only declares; nothing heavy is imported.
"""

from beyondpass.registry import (
    AnswerFormatSpec,
    BenchmarkSpec,
    EvaluatorSpec,
    HeadlineSpec,
    Method,
    Metric,
    PlanSpec,
)

_HERE = "beyondpass.methods.psb2"

METHOD = Method(
    name="psb2",
    description="PSB2 (seed 002): edge + random cases, exact and epsilon matching; quality",
    benchmarks=(
        BenchmarkSpec(
            "psb2",
            f"{_HERE}.benchmark.loader:load_psb2",
            "PSB2, 25 problems: edge cases + 10,000 seeded random cases each (stdin/stdout)",
        ),
        BenchmarkSpec(
            "psb2-edge",
            f"{_HERE}.benchmark.loader:load_psb2_edge",
            "PSB2, 25 problems: the 481 edge cases only (stdin/stdout)",
        ),
        BenchmarkSpec(
            "psb2-cpp",
            f"{_HERE}.benchmark.loader:load_psb2_cpp",
            "PSB2 answered in C++ (g++ -std=c++17 -O2 in the sandbox; function mode batched)",
        ),
        BenchmarkSpec(
            "psb2-java",
            f"{_HERE}.benchmark.loader:load_psb2_java",
            "PSB2 answered in Java (javac; program mode one JVM per case, function mode batched)",
        ),
        BenchmarkSpec(
            "psb2-cpp-edge",
            f"{_HERE}.benchmark.loader:load_psb2_cpp_edge",
            "PSB2 answered in C++: the 481 edge cases only",
        ),
        BenchmarkSpec(
            "psb2-java-edge",
            f"{_HERE}.benchmark.loader:load_psb2_java_edge",
            "PSB2 answered in Java: the 481 edge cases only",
        ),
        *(
            BenchmarkSpec(
                f"psb2-demo-{language}-edge",
                f"{_HERE}.benchmark.demo:load_demo_{language}",
                f"2 PSB2 problems in {label} with cases written for the demo (beyondpass demo)",
            )
            for language, label in (("python", "Python"), ("cpp", "C++"), ("java", "Java"))
        ),
    ),
    plans=(
        PlanSpec(
            "psb2-program",
            f"{_HERE}.prompts:program_plan",
            "Neutral prompt + exact stdin/stdout format; whole-program answers",
            answer_format="whole-program",
        ),
        PlanSpec(
            "psb2-function",
            f"{_HERE}.prompts:function_plan",
            "Neutral prompt + function signature; beyondpass appends the driver",
            answer_format="psb2-function",
        ),
    ),
    answer_formats=(
        AnswerFormatSpec(
            "psb2-function",
            f"{_HERE}.prompts:extract_function",
            "a function answer: its code unchanged plus the generated stdin/stdout driver",
        ),
    ),
    evaluators=(
        EvaluatorSpec(
            "psb2-quality",
            f"{_HERE}.quality:QualityEvaluator.build",
            options=f"{_HERE}.quality:QualityOptions",
            metrics=(
                Metric(
                    "lloc", "lines", "lower", "mean", "logical lines (radon; lizard for C++/Java)"
                ),
                Metric("nos", "statements", "lower", "mean", "number of statements"),
                Metric("mccabe", "paths", "lower", "mean", "McCabe complexity, whole program"),
                Metric("nesting", "levels", "lower", "mean", "deepest control-block nesting"),
            ),
            result_fields=("lloc", "nos", "mccabe", "nesting"),
            label="Quality",
            description="LLOC, NOS, McCabe and nesting level of the answer's code",
            aliases=("psb2_quality",),
        ),
        EvaluatorSpec(
            "psb2-smells",
            f"{_HERE}.smells:SmellEvaluator.build",
            options=f"{_HERE}.smells:SmellOptions",
            metrics=(
                Metric("smells", "findings", "lower", "mean", "analyser findings, all rules"),
                *(
                    Metric(f"smells_{s}", "findings", "lower", "mean", f"findings of severity {s}")
                    for s in ("fatal", "error", "warning", "refactor", "convention", "info")
                ),
            ),
            result_fields=("smells", "smells_error", "smells_warning"),
            label="Smells",
            description="findings per severity and rule (pylint, cppcheck/clang-tidy, checkstyle)",
            aliases=("psb2_smells",),
        ),
    ),
    headlines=tuple(
        HeadlineSpec(
            f"{kind}_pass_ratio",
            f"{kind} cases passed",
            "higher",
            "share",
            "task",
            f"{_HERE}.headline:{kind}_pass_ratio",
            f"share of a task's {kind} cases answered exactly",
        )
        for kind in ("edge", "random")
    ),
    report_sections=(f"{_HERE}.report:Psb2ReportSection",),
    studies=f"{_HERE}.studies",
)
