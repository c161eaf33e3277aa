"""An example method: counts the lines of each answer's code (docs/adding-a-method.md).

Only declarations here; the components are named as ``module:attribute`` and imported
when used.
"""

from beyondpass.registry import EvaluatorSpec, Method, Metric

METHOD = Method(
    name="example",
    description="Example method: lines of code per answer",
    evaluators=(
        EvaluatorSpec(
            "answer_lines",
            "beyondpass_example.evaluator:LinesEvaluator.build",
            options="beyondpass_example.evaluator:LinesOptions",
            metrics=(Metric("code_lines", "lines", "none", "mean", "lines of extracted code"),),
            result_fields=("code_lines",),
            summary="beyondpass_example.evaluator:summary",
            label="Lines",
        ),
    ),
    report_sections=("beyondpass_example.section:LinesSection",),
    commands=("beyondpass_example.cli:example",),
)
