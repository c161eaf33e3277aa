"""beyondpass: measure how well LLMs write code beyond passing tests.

The package layout follows the evaluation pipeline:

    benchmarks -> prompts (plan) -> models -> extraction -> evaluators (execution)
    -> store -> analysis -> report

``study`` wires the stages together; ``cli`` exposes them as commands.
"""

__version__ = "0.1.0"
