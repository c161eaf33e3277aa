"""NoFunEval (seed 004): editing code for a non-functional requirement, and judging it.

Brings the five public subsets as benchmarks (``nofuneval-latency``, ``-resource_util``,
``-runtime_efficiency``, ``-security``, ``-classify``) and the user-supplied
``nofuneval-maintainability``, and NoFunClassify as ``nofuneval-classify-<subset>``; the
``nofuneval-edit`` plan (Base, 1-Shot, CoT, CoCo: the dataset's own prompts) and
``nofuneval-classify`` (both orderings); the ``nofuneval-edit`` answer format (robust
reading) and ``nofuneval-edit-compat`` (NoFunEval's reading); the kind of answers file
``nofuneval-generations``, which ``beyondpass nofuneval score`` evaluates into a run; the
DiffBLEU, classification and oracle evaluators; the Table 1 and Table 2 report sections.
See docs/nofuneval.md.
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

_HERE = "beyondpass.methods.nofuneval"
EDIT = "nofuneval-edit"
EDIT_COMPAT = "nofuneval-edit-compat"
CHOICE = "nofuneval-choice"


def _bench(subset: str, name: str, rows: str) -> BenchmarkSpec:
    return BenchmarkSpec(
        name,
        f"{_HERE}.benchmark:load_{subset}",
        f"NoFunEval {subset.replace('_', ' ')}: {rows}",
        answer_format=CHOICE if subset.startswith("classify") else EDIT,
    )


METHOD = Method(
    name="nofuneval",
    description="NoFunEval: non-functional code edits (DiffBLEU) and classification",
    extra="nofuneval",
    requires=("nltk",),
    benchmarks=(
        _bench("latency", "nofuneval-latency", "47 edits (Java, Kotlin, JSX)"),
        _bench("resource_util", "nofuneval-resource_util", "51 edits, 10 languages"),
        _bench(
            "runtime_efficiency",
            "nofuneval-runtime_efficiency",
            "113 Python edits with CodeNet stdin/stdout cases",
        ),
        _bench("security", "nofuneval-security", "41 edits (C, Python), CodeQL query named"),
        _bench(
            "maintainability",
            "nofuneval-maintainability",
            "145 Python edits; not public — supply the file",
        ),
        BenchmarkSpec(
            "nofuneval-demo",
            f"{_HERE}.benchmark:load_demo",
            "4 latency edits of Python programs written for the demo (beyondpass demo)",
            answer_format=EDIT,
        ),
        BenchmarkSpec(
            "nofuneval-published",
            f"{_HERE}.benchmark:load_published",
            "the rows of a published generations file (nofuneval table1), by its path",
            answer_format=EDIT,
            takes_argument=True,
        ),
        _bench("classify", "nofuneval-classify", "HumanEvalClassify, 164 pairs"),
        *(
            _bench(f"classify_{sub}", f"nofuneval-classify-{sub}", f"NoFunClassify: {sub} pairs")
            for sub in ("latency", "resource_util", "runtime_efficiency", "security")
        ),
        _bench(
            "classify_maintainability",
            "nofuneval-classify-maintainability",
            "NoFunClassify: maintainability pairs; not public — supply the file",
        ),
    ),
    plans=(
        PlanSpec(
            EDIT,
            f"{_HERE}.prompts:edit_plan",
            "NoFunEdit: Base, 1-Shot, Chain-of-Thought, Coding-Concepts",
            EDIT,
        ),
        PlanSpec(
            "nofuneval-classify",
            f"{_HERE}.prompts:classify_plan",
            "NoFunClassify: both orderings of each pair",
            CHOICE,
        ),
    ),
    answer_formats=(
        AnswerFormatSpec(
            EDIT,
            f"{_HERE}.extraction.answers:extract_edit",
            "the whole edited program, read robustly (echo, prose, fences)",
        ),
        AnswerFormatSpec(
            EDIT_COMPAT,
            f"{_HERE}.extraction.answers:extract_edit_compat",
            "the edited program as NoFunEval's harness reads it (needs the prompt asked)",
            reads_condition=True,
        ),
        AnswerFormatSpec(
            CHOICE,
            f"{_HERE}.extraction.answers:extract_choice",
            "a choice between Code-A and Code-B",
        ),
    ),
    answer_files=(
        AnswerFileSpec(
            "nofuneval-generations",
            f"{_HERE}.files.answer_file:GenerationsFile",
            "NoFunEval generation files (published, or row/generation lines) of one subset",
        ),
    ),
    evaluators=(
        EvaluatorSpec(
            EDIT,
            f"{_HERE}.edit.evaluator:DiffBleuEvaluator.build",
            options=f"{_HERE}.edit.evaluator:EditOptions",
            metrics=(
                Metric("diffbleu", "", "higher", "mean", "BLEU of the edit's diff (NoFunEval)"),
                Metric(
                    "template_followed",
                    "answers",
                    "higher",
                    "rate",
                    "the answer put the program in a fenced block",
                ),
                Metric(
                    "edited",
                    "answers",
                    "higher",
                    "rate",
                    "a real edit: the program differs from the source",
                ),
                Metric("speedup", "x", "higher", "mean", "runtime rows: speed-up over the source"),
                Metric("runtime_correct", "answers", "higher", "rate", "runtime rows: all cases"),
                Metric(
                    "runtime_improved", "answers", "higher", "rate", "runtime rows: faster (Welch)"
                ),
            ),
            decides_verdict=True,
            runs_code=True,  # runtime-efficiency rows run the edit on CodeNet cases
            result_fields=(
                "diffbleu",
                "template_followed",
                "edited",
                "speedup",
                "runtime_correct",
                "runtime_improved",
            ),
            label="DiffBLEU",
            description="DiffBLEU of the edited program against the commit's edit",
        ),
        EvaluatorSpec(
            "nofuneval-classify",
            f"{_HERE}.classify.evaluator:ClassifyEvaluator.build",
            options=f"{_HERE}.classify.evaluator:ClassifyOptions",
            metrics=(
                Metric("choice_correct", "answers", "higher", "rate", "names the right program"),
                Metric("choice_parsed", "answers", "higher", "rate", "a choice could be read"),
            ),
            decides_verdict=True,
            result_fields=("choice_correct", "choice_parsed"),
            label="NoFunClassify",
            description="one ordering of a classification pair: the right program named?",
        ),
        EvaluatorSpec(
            "nofuneval-oracle",
            f"{_HERE}.oracles.evaluator:OracleEvaluator.build",
            options=f"{_HERE}.oracles.evaluator:OracleOptions",
            metrics=(
                Metric("oracle_pass", "answers", "higher", "rate", "no finding of the row's query"),
                Metric("diffbleu_x_oracle", "", "higher", "mean", "DiffBLEU x oracle, per sample"),
            ),
            result_fields=("oracle_pass", "diffbleu_x_oracle"),
            label="Oracle",
            description="static oracle of the row's CodeQL query (CodeQL or mapped analysers)",
        ),
    ),
    headlines=(
        HeadlineSpec(
            "diffbleu",
            "DiffBLEU",
            "higher",
            "points",
            "row",
            f"{_HERE}.headline:diffbleu",
            "Table 1's metric: DiffBLEU (x oracle for security, maintainability), score@1,n",
            decimals=3,
        ),
        HeadlineSpec(
            "speedup",
            "speed-up",
            "higher",
            "ratio",
            "row",
            f"{_HERE}.headline:speedup",
            "runtime efficiency: mean speed-up over the source, score@1,n",
            decimals=3,
        ),
        HeadlineSpec(
            "classify_accuracy",
            "classification accuracy",
            "higher",
            "share",
            "row",
            f"{_HERE}.headline:classify_accuracy",
            "both orderings of a pair name the right program",
        ),
    ),
    headline_reading=f"{_HERE}.headline:reading",
    report_sections=(f"{_HERE}.report:NoFunEditTable", f"{_HERE}.report:NoFunClassifyTable"),
    commands=(f"{_HERE}.cli:nofuneval",),
    studies=f"{_HERE}.studies",
)
