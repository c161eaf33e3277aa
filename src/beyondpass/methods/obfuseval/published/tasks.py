"""The published tasks of a project and setting: the inputs the models were given.

Each setting's folder holds one input file (no model prefix): the function's source file,
name, header, the original function (``referenceCode``, or the project's context file where
the input lacks it) and the prompt of that setting (``initialInput``). Obfuscated settings
name their symbol dictionaries (``all_dict_*``: each original name beside its obfuscated
one), which map an answer's names back as the seed does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from beyondpass.errors import DataError
from beyondpass.methods.obfuseval.cproject.names import COLUMNS, Dictionary
from beyondpass.methods.obfuseval.published import settings as names
from beyondpass.methods.obfuseval.published.location import DATA
from beyondpass.methods.obfuseval.published.workbook import Sheet, sheets


@dataclass(frozen=True)
class PublishedTask:
    project: str
    setting: str  # scenario/name
    index: int  # its row in the setting's input file (answers without names join by it)
    source_file: str  # the C file, relative to the project's root
    function: str
    header: str
    reference: str  # the original function ("" where the files do not hold it)
    prompt: str  # the setting's input, as the models were given it


def _cell(sheet: Sheet, row: tuple, name: str) -> str:
    index = sheet.column(name)
    value = row[index] if index is not None and index < len(row) else None
    return "" if value is None else str(value)


def input_file(root: Path, project: names.Project, setting: names.Setting) -> Path:
    folder = names.folder(root, project, setting)
    if not folder.is_dir():
        raise DataError(f"{folder}: missing from the checkout")
    found = sorted(
        p for p in folder.glob("*.xlsx") if names.model_of(p) is None and not names.is_dictionary(p)
    )
    if not found:
        raise DataError(f"{folder}: no input file (an xlsx without a model prefix)")
    return found[0]


def _references(root: Path, project: names.Project) -> dict[str, str]:
    """function -> its original text, from the project's context file of selected functions."""
    context = sorted((root / DATA / project.folder / "1.all context").glob("*selectedFunc*"))
    if not context:
        return {}
    sheet = sheets(context[0])[0]
    return {
        _cell(sheet, row, "funcName"): _cell(sheet, row, "Implementation") for row in sheet.rows
    }


def load(root: Path, project: names.Project, setting: names.Setting) -> list[PublishedTask]:
    """The setting's tasks in the input file's order."""
    path = input_file(root, project, setting)
    sheet = sheets(path)[0]
    for required in ("fileName", "funcName", "initialInput"):
        if sheet.column(required) is None:
            raise DataError(f"{path.name}: no column {required!r} in sheet {sheet.title!r}")
    references = None if sheet.column("referenceCode") is not None else _references(root, project)
    tasks = []
    for index, row in enumerate(sheet.rows):
        function = _cell(sheet, row, "funcName")
        reference = (
            _cell(sheet, row, "referenceCode")
            if references is None
            else references.get(function, "")
        )
        tasks.append(
            PublishedTask(
                project.name,
                setting.key,
                index,
                _cell(sheet, row, "fileName"),
                function,
                _cell(sheet, row, "function_header"),
                reference,
                _cell(sheet, row, "initialInput"),
            )
        )
    return tasks


def dictionary(root: Path, project: names.Project, setting: names.Setting) -> Dictionary:
    """The setting's symbol dictionary, its pairs in the order the seed applies them
    (macros, functions, global variables, structs; row by row); empty for a setting
    without symbol obfuscation. Values are kept as written: the seed's patterns use them
    so."""
    folder = names.folder(root, project, setting)
    pairs: list[tuple[str, str, str]] = []
    for path in sorted(p for p in folder.glob("*.xlsx") if names.is_dictionary(p)):
        sheet = sheets(path)[0]
        for column in COLUMNS:
            original = sheet.column(column)
            if original is None and column == "FuncName":
                original = sheet.column("Function")  # the project-wide dictionaries' name
            obfuscated = sheet.column(f"{column}_confused")
            if obfuscated is None and column == "FuncName":
                obfuscated = sheet.column("Function_confused")
            if original is None or obfuscated is None:
                continue
            for row in sheet.rows:
                before, after = row[original], row[obfuscated]
                if before is None or after is None:
                    continue
                if str(before).strip() and str(after).strip():
                    pairs.append((column, str(before), str(after)))
    return Dictionary(tuple(pairs))
