"""ObfusEval (seed 003): contamination-resistant scores by verified obfuscation.

Brings the ``obfuscate`` benchmark transform (symbol level: scope-aware renaming with libcst,
every variant verified by execution) and the ``obfuscate`` command; the project-level mode
(``obfuseval project``) regenerates functions of real projects. Declarations only.
"""

from beyondpass.registry import Method, TransformSpec

_HERE = "beyondpass.methods.obfuseval"

METHOD = Method(
    name="obfuseval",
    description="ObfusEval: tasks renamed consistently, each variant verified by execution",
    extra="obfuseval",
    requires=("libcst",),
    transforms=(
        TransformSpec(
            "obfuscate",
            f"{_HERE}.transform:apply",
            options=f"{_HERE}.transform:ObfuscateOptions",
            description="symbol obfuscation of Python tasks, verified in the sandbox",
        ),
    ),
    commands=(f"{_HERE}.cli:obfuscate", f"{_HERE}.project.cli:obfuseval"),
    studies=f"{_HERE}.studies",
)
