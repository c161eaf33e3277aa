"""RobustAPI (seed 001): API misuse in Java answers to Stack Overflow questions.

Brings the ``robustapi`` benchmark (1208 questions), the ``robustapi`` prompt plan (zero-shot,
one-shot-irrelevant, one-shot-relevant) and its ``robustapi-blocks`` answer format
(``<<<code>>>``), the misuse checker as the verdict evaluator of its tasks, the misuse report
section, the ``robustapi`` command (``check``, ``rules``) and the built-in study. Java
parsing needs the ``java`` extra. This module only declares; nothing heavy is imported.
"""

from beyondpass.registry import (
    AnswerFileSpec,
    AnswerFormatSpec,
    BenchmarkSpec,
    EvaluatorSpec,
    HeadlineSpec,
    Method,
    Metric,
    PlanSpec,
)

_HERE = "beyondpass.methods.robustapi"
BLOCKS = "robustapi-blocks"

METHOD = Method(
    name="robustapi",
    description="RobustAPI: API misuse in Java answers (rule checker, three prompt settings)",
    extra="java",
    requires=("tree_sitter", "tree_sitter_java", "lark"),
    benchmarks=(
        BenchmarkSpec(
            "robustapi",
            f"{_HERE}.benchmark:load_robustapi",
            "RobustAPI, 1208 Java API-usage questions (misuse checked)",
            answer_format=BLOCKS,
        ),
        BenchmarkSpec(
            "robustapi-demo",
            f"{_HERE}.benchmark:load_robustapi_demo",
            "4 RobustAPI-style questions written for the demo (beyondpass demo)",
            answer_format=BLOCKS,
        ),
    ),
    plans=(
        PlanSpec(
            "robustapi",
            f"{_HERE}.components:robustapi_plan",
            "RobustAPI zero-shot, one-shot-irrelevant and one-shot-relevant",
            answer_format=BLOCKS,
        ),
    ),
    answer_files=(
        AnswerFileSpec(
            "robustapi-answers",
            f"{_HERE}.check:RobustApiAnswers",
            '{"id": <question id>, "response": "<raw answer>"} lines; verdicts.jsonl exported',
        ),
    ),
    answer_formats=(
        AnswerFormatSpec(
            BLOCKS,
            f"{_HERE}.extraction.java_code:extract_java",
            "<<<api>>> / <<<code>>> / <<<explanation>>> answers; every block must parse",
        ),
    ),
    evaluators=(
        EvaluatorSpec(
            "robustapi",
            f"{_HERE}.components:misuse_evaluator",
            options=f"{_HERE}.components:MisuseOptions",
            metrics=(
                Metric("misuse", "answers", "lower", "rate", "a usage rule is violated"),
                Metric("violations", "violations", "lower", "mean"),
                Metric("api_called", "answers", "higher", "rate", "the asked API is called"),
                Metric("misuse_original", "answers", "lower", "rate", "published checker"),
            ),
            decides_verdict=True,
            description="API-usage rules checked on the answer's Java code",
        ),
    ),
    headlines=(
        HeadlineSpec(
            "misuse_rate",
            "API misuse rate",
            "lower",
            "share",
            "question",
            f"{_HERE}.headline:misuse_rate",
            "answers misusing an API among those with executable code",
        ),
        HeadlineSpec(
            "executable_rate",
            "executable answers",
            "higher",
            "share",
            "question",
            f"{_HERE}.headline:executable_rate",
            "answers with code the checker could parse",
        ),
    ),
    headline_reading=f"{_HERE}.headline:reading",
    report_sections=(f"{_HERE}.report:MisuseReportSection",),
    commands=(f"{_HERE}.cli:robustapi",),
    studies=f"{_HERE}.studies",
    task_id_fields=("id",),  # RobustAPI's own answer files say "id"
)
