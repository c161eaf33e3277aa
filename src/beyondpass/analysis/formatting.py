"""Numbers for people: percentages, fixed decimals, signed differences, benchmark names.

One formatter per kind, so every table, report and command shows a number the same way;
the variants callers need (digits, the text for a missing value, a sign, a unit) are
parameters, not copies.
"""

from __future__ import annotations

import math

#: Shown for a value that does not exist (no samples, undefined ratio).
MISSING = "—"
#: Appended to a Δ when the difference is significant (Holm-adjusted, within the table).
SIG_MARK = "*"


def percent(
    fraction: float | None,
    digits: int = 2,
    *,
    missing: str = MISSING,
    sign: bool = False,
    unit: str = "",
) -> str:
    """A fraction as a percentage (``0.5`` -> ``50.00``); ``missing`` for None or NaN,
    ``sign`` for differences (``+12.50``), ``unit`` appended (``"%"`` where no header
    says so)."""
    if fraction is None or not math.isfinite(fraction):
        return missing
    return f"{fraction * 100:{'+' if sign else ''}.{digits}f}{unit}"


def fmt_num(value: float | None, decimals: int) -> str:
    """A number with fixed decimals; :data:`MISSING` for None or NaN."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value:.{decimals}f}"


def fmt_delta(delta_pct: float | None, significant: bool = False, decimals: int = 2) -> str:
    """A signed Δ% already in percent, with :data:`SIG_MARK` when significant."""
    if delta_pct is None or not math.isfinite(delta_pct):
        return MISSING
    return f"{delta_pct:+.{decimals}f}" + (SIG_MARK if significant else "")


#: Display names of the benchmarks several methods share.
BENCHMARK_LABELS = {
    "humaneval": "HumanEval",
    "humaneval-et": "HumanEval-ET",
    "mbpp": "MBPP",
    "mbpp-et": "MBPP-ET",
}


def bench_label(name: str) -> str:
    return BENCHMARK_LABELS.get(name, name)


__all__ = [
    "BENCHMARK_LABELS",
    "MISSING",
    "SIG_MARK",
    "bench_label",
    "fmt_delta",
    "fmt_num",
    "percent",
]
