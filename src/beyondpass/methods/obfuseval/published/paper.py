"""The paper's CPR/TPR tables (Tables IV and V), as published in ``LLMs_Performance.xlsx``.

One sheet per scenario (``Generation``, ``Completion``); a row per project and model (and
each project's ``Average``); columns ``<Setting> CPR`` and ``<Setting> TPR`` in percent.
The ``dec`` columns are formulas (``=1-E2/C2``) and are computed, not read; the rows under
the table are the authors' scratch averages and are not read.
"""

from __future__ import annotations

from pathlib import Path

from beyondpass.errors import DataError
from beyondpass.methods.obfuseval.published.location import DATA
from beyondpass.methods.obfuseval.published.settings import COMPLETION, GENERATION
from beyondpass.methods.obfuseval.published.workbook import sheets

FILE = "LLMs_Performance.xlsx"
_SHEETS = {"Generation": GENERATION, "Completion": COMPLETION}

#: (scenario, project label, model label, column label) -> percent
Cells = dict[tuple[str, str, str, str], float]


def cells(root: Path) -> Cells:
    path = root / DATA / FILE
    if not path.is_file():
        raise DataError(f"{path}: the paper's tables are missing from the checkout")
    found: Cells = {}
    for sheet in sheets(path):
        scenario = _SHEETS.get(sheet.title)
        if scenario is None:
            continue
        labels = list(sheet.header)
        if labels[:2] != ["Software", "Model"]:
            raise DataError(f"{FILE} [{sheet.title}]: the first columns are not Software, Model")
        for row in sheet.rows:
            project, model = row[0], row[1]
            if not isinstance(project, str) or not isinstance(model, str):
                continue  # the scratch averages under the table
            for label, value in zip(labels[2:], row[2:], strict=False):
                if isinstance(label, str) and label != "dec" and isinstance(value, int | float):
                    found[(scenario, project, model, label)] = float(value)
    if not found:
        raise DataError(f"{path}: no table cells found")
    return found
