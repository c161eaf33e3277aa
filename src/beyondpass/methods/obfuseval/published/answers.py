"""The four models' published answers and the authors' recorded outcome of each.

The answer files have no one format. Four column schemas occur, and which column is
replayed differs:

- ``rounds``: ``v1code``/``v1Inform``/``v1Response`` (and ``v2…`` for later repair
  rounds; some files spell them ``code``/``Inform``/``Response``). ``v1code`` is the code
  the authors' harness extracted (in symbol settings, after mapping the names back;
  ``v1confused_response`` is then the model's own text). The outcome is ``v1Inform``.
- ``summary``: ``genCodeV1`` with the authors' ``compilationV1``/``testV1`` columns.
  No raw response is kept.
- ``result``: ``response`` (the extracted code) with ``compile_result``/``test_result``.
- ``unnamed``: a sheet whose columns are numbered (a dump beside a named sheet): file,
  function, …, code, compile, test.

Files without function names (deepseek-coder's) join the setting's input file by row.
Every file and sheet is read: where two sheets or two files disagree, both readings are
kept, and the table shows which one the paper used.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from beyondpass.errors import DataError
from beyondpass.methods.obfuseval.published import outcomes
from beyondpass.methods.obfuseval.published import settings as names
from beyondpass.methods.obfuseval.published.outcomes import Outcome, UnrecognisedOutcome
from beyondpass.methods.obfuseval.published.tasks import PublishedTask
from beyondpass.methods.obfuseval.published.workbook import Sheet, sheets

#: schema -> the column replayed as the answer's code
REPLAYED = {
    "rounds": "v1code (the harness's extraction; names mapped back in symbol settings)",
    "summary": "genCodeV1 (the authors' extraction)",
    "result": "response (the authors' extraction)",
    "unnamed": "the fourth column (the authors' extraction)",
}


@dataclass(frozen=True)
class RecordedAnswer:
    project: str
    setting: str
    model: str
    file: str  # the answer file's name
    sheet: str
    schema: str
    row: int  # 0-based, under the header
    function: str
    source_file: str
    code: str  # "" when the harness found none
    response: str  # the model's text as replayed ("" where the file keeps none)
    build: Outcome  # the build's outcome (a round's whole outcome in ``rounds``)
    test: Outcome

    @property
    def compiled(self) -> bool:
        return self.build.built

    @property
    def passed(self) -> bool:
        return self.test.status == "passed"

    @property
    def reading(self) -> str:
        """Which file and sheet this answer was read from."""
        return f"{self.file} [{self.sheet}]"


def _schema(sheet: Sheet) -> tuple[str, str] | None:
    """(schema, round-column prefix) of an answer sheet; None for a sheet of no answers."""
    if not sheet.named:
        return ("unnamed", "") if len(sheet.header) >= 5 else None
    if sheet.column("v1Inform") is not None:
        return "rounds", "v1"
    if sheet.column("Inform") is not None:
        return "rounds", ""
    if sheet.column("compilationV1") is not None:
        return "summary", ""
    if sheet.column("compile_result") is not None:
        return "result", ""
    return None


def _value(row: tuple, index: int | None) -> object:
    """The cell at ``index`` (None where the sheet has no such column or the row ends)."""
    return row[index] if index is not None and index < len(row) else None


def _text(row: tuple, index: int | None) -> str:
    value = _value(row, index)
    return "" if value is None else str(value)


def _columns(sheet: Sheet, schema: str, prefix: str) -> dict[str, int | None]:
    """Where each part of an answer is, in this sheet."""
    if schema == "unnamed":
        width = len(sheet.header)
        return {
            "file": 0, "function": 1, "code": 3, "response": 4 if width >= 7 else None,
            "compile": width - 2, "test": width - 1,
        }  # fmt: skip
    if schema == "rounds":
        return {
            "file": sheet.column("fileName"), "function": sheet.column("funcName"),
            "code": sheet.column(f"{prefix}code"),
            "response": sheet.column(f"{prefix}Response"), "round": sheet.column(f"{prefix}Inform"),
        }  # fmt: skip
    if schema == "summary":
        return {
            "file": sheet.column("fileName"), "function": sheet.column("funcName"),
            "code": sheet.column("genCodeV1"), "response": None,
            "compile": sheet.column("compilationV1"), "test": sheet.column("testV1"),
        }  # fmt: skip
    return {
        "file": sheet.column("path"), "function": sheet.column("fun_head"),
        "code": sheet.column("response"), "response": sheet.column("response"),
        "compile": sheet.column("compile_result"), "test": sheet.column("test_result"),
    }  # fmt: skip


def answer_files(
    root: Path, project: names.Project, setting: names.Setting
) -> list[tuple[Path, str]]:
    """(path, model) of every answer file of the setting, by name."""
    folder = names.folder(root, project, setting)
    found = []
    for path in sorted(folder.glob("*.xlsx")):
        model = names.model_of(path)
        if model is not None and not names.is_dictionary(path):
            found.append((path, model[0]))
    return found


def read(
    path: Path, model: str, project: names.Project, setting: names.Setting,
    tasks: list[PublishedTask],
) -> list[RecordedAnswer]:  # fmt: skip
    """Every answer of every answer sheet of one file."""
    answers: list[RecordedAnswer] = []
    for sheet in sheets(path):
        found = _schema(sheet)
        if found is None:
            continue
        schema, prefix = found
        where = _columns(sheet, schema, prefix)
        for index, row in enumerate(sheet.rows):
            task = tasks[index] if index < len(tasks) else None
            function = _text(row, where["function"]) or (task.function if task else "")
            source = _text(row, where["file"]) or (task.source_file if task else "")
            try:
                if schema == "rounds":
                    compile_ = test = outcomes.of_round(_value(row, where["round"]))
                else:
                    compile_ = outcomes.of_compile(_value(row, where["compile"]))
                    test = outcomes.of_test(_value(row, where["test"]))
            except UnrecognisedOutcome as exc:
                raise DataError(
                    f"{path.name} [{sheet.title}] row {index + 2}: an outcome no status fits: {exc}"
                ) from None
            answers.append(
                RecordedAnswer(
                    project.name,
                    setting.key,
                    model,
                    path.name,
                    sheet.title,
                    schema,
                    index,
                    function,
                    source,
                    _text(row, where["code"]).strip(),
                    _text(row, where["response"]),
                    compile_,
                    test,
                )  # fmt: skip
            )
    return answers
