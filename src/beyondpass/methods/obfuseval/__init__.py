"""ObfusEval (seed 003): contamination-resistant scores by verified obfuscation.

Brings the ``obfuscate`` benchmark transform (symbol, structure and semantic levels with
libcst, every variant verified by execution) and the ``obfuscate`` command. Declarations only.
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
            description="symbol/structure/semantic obfuscation, verified by execution",
        ),
    ),
    commands=(f"{_HERE}.cli:obfuscate", f"{_HERE}.cli:obfuseval"),
    report_sections=(f"{_HERE}.report:ObfuscationSection",),
    studies=f"{_HERE}.studies",
)
