"""RobuNFR analysis: the seed's Tables 2-6 with confidence intervals and paired tests.

Modules: ``metrics`` (what is measured), ``data`` (a run indexed by role and group), ``run``
(the cells and comparisons of one run), ``tables`` (Tables 2, 3, 5, 6, workflows,
statistics), ``versions`` (two model versions, Table 4), ``failures`` (failure analysis).

Vocabulary. A *group* is what one table row aggregates: Function-Only, or one (workflow,
NFR) pair such as NFR-Integrated x Readability. A group's *units* are what its STDEV is
taken across: the 10 prompt variants of an NFR group, or the repeated runs of Function-Only
(``function_only_repeats``; a single run has no STDEV). For one benchmark, model, group and
metric:

* per (unit, task): the mean of the metric over that unit's samples of the task;
* unit value: the mean over tasks (Pass@1 of one prompt, in %, or e.g. its mean smell density);
* AVG: the mean of the unit values; STDEV: their sample standard deviation (ddof = 1);
* 95% CI of AVG: percentile bootstrap over tasks (seeded), the same task draw for every unit;
* per-task value: the mean over units — what paired tests compare, task by task.

Metric definitions follow the seed (section 3.2): Pass@1 over evaluated samples; the static
densities over samples that have them (code that could be analysed); execution time over
*passing* samples only (a failing sample's time measures a crash, not the algorithm), so
a paired time comparison uses the tasks both sides pass.

Significance: a difference is marked when its primary paired test (Wilcoxon signed-rank on
per-task values; McNemar's exact test when both sides are a single pass/fail verdict per
task) has a Holm-adjusted p below alpha, Holm being applied within each (workflow, metric)
family of a table. The seed's t-test (Welch, on unit values) and the paired t-test are
reported alongside, with effect sizes.
"""

from beyondpass.analysis.cells import (
    CellStats,
    Comparison,
    cell_stats,
    compare_cells,
    pct_change,
)
from beyondpass.analysis.formatting import bench_label
from beyondpass.analysis.metrics import MetricDef
from beyondpass.methods.robunfr.analysis.data import Group, RunData
from beyondpass.methods.robunfr.analysis.failures import failure_counts, failure_table
from beyondpass.methods.robunfr.analysis.metrics import (
    ALL_METRICS,
    METRICS,
    NFR_METRICS,
    PASS,
    metric_def,
    sample_value,
)
from beyondpass.methods.robunfr.analysis.run import Analysis, analyse
from beyondpass.methods.robunfr.analysis.tables import (
    robunfr_tables,
    statistics_table,
    table2,
    table3,
    table5,
    workflow_table,
)
from beyondpass.methods.robunfr.analysis.versions import (
    VersionComparison,
    VersionPair,
    compare_versions,
    table4,
)

__all__ = [
    "ALL_METRICS",
    "METRICS",
    "NFR_METRICS",
    "PASS",
    "Analysis",
    "CellStats",
    "Comparison",
    "Group",
    "MetricDef",
    "RunData",
    "VersionComparison",
    "VersionPair",
    "analyse",
    "bench_label",
    "cell_stats",
    "compare_cells",
    "compare_versions",
    "failure_counts",
    "failure_table",
    "metric_def",
    "pct_change",
    "robunfr_tables",
    "sample_value",
    "statistics_table",
    "table2",
    "table3",
    "table4",
    "table5",
    "workflow_table",
]
