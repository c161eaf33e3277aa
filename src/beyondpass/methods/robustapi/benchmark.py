"""RobustAPI (Zhong & Wang): 1208 Stack Overflow questions about 24 Java APIs.

Each task is one question (``id``, ``api``, ``question``, ``code``, ``origin``); the model
answers in the ``<<<api>>> / <<<code>>> / <<<explanation>>>`` format and the API-misuse
checker, not tests, decides the verdict (``metadata["evaluator"] = "robustapi"``). The API
usage rules (``pat_list.txt``) and the API list come from the same upstream repository and
are resolved the same way (``--data-dir`` / ``BEYONDPASS_DATA``, cache, download).

Task ids are the dataset's integer ids as strings (``"0"`` ... ``"1207"``); ``metadata``
carries the API, its domain (the seed's Table 1), the source URL and the values the prompt
templates use (``{api}``, ``{relevant_shot}``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from beyondpass.benchmarks.sources import DataFile, file_digest, resolve
from beyondpass.benchmarks.task import Benchmark, Task
from beyondpass.errors import DataError
from beyondpass.jsonl import read_objects

UPSTREAM = "https://raw.githubusercontent.com/FloridSleeves/RobustAPI/main"
QUESTIONS_FILE = DataFile("robustapi/question.jsonl", f"{UPSTREAM}/dataset/question.jsonl")
RULES_FILE = DataFile("robustapi/pat_list.txt", f"{UPSTREAM}/eval/pat_list.txt")
API_LIST_FILE = DataFile("robustapi/api_list.txt", f"{UPSTREAM}/eval/api_list")

#: the seed's Table 1: each API's domain
DOMAINS: dict[str, str] = {
    "StringTokenizer.nextToken": "String Processing",
    "String.getBytes": "String Processing",
    "JsonElement.getAsString": "String Processing",
    "List.get": "Data Structure",
    "Map.get": "Data Structure",
    "SortedMap.firstKey": "Data Structure",
    "Iterator.next": "Data Structure",
    "ProgressDialog.dismiss": "Mobile Development",
    "Activity.findViewById": "Mobile Development",
    "TypedArray.getString": "Mobile Development",
    "ApplicationInfo.loadIcon": "Mobile Development",
    "Activity.setContentView": "Mobile Development",
    "Cipher.init": "Crypto",
    "Mac.doFinal": "Crypto",
    "RandomAccessFile.read": "File I/O",
    "RandomAccessFile.write": "File I/O",
    "BufferedReader.readLine": "File I/O",
    "PrintWriter.write": "File I/O",
    "DataOutputStream.write": "File I/O",
    "File.mkdirs": "File I/O",
    "InputStream.read": "File I/O",
    "File.createNewFile": "File I/O",
    "FileChannel.write": "File I/O",
    "SQLiteDatabase.query": "Database",
}
DOMAIN_ORDER = (
    "String Processing",
    "Data Structure",
    "Mobile Development",
    "Crypto",
    "File I/O",
    "Database",
)


def domain_of(api: str) -> str:
    return DOMAINS.get(api, "Other")


def load_robustapi(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    name: str = "robustapi",
    description: str = "RobustAPI: 1208 Stack Overflow questions on 24 Java APIs (Zhong & Wang)",
    questions_file: Path | None = None,
) -> Benchmark:
    """The questions file of ``data_dir`` (``robustapi/question.jsonl``), or
    ``questions_file`` in the same format, as benchmark ``name``."""
    from beyondpass.methods.robustapi.prompts import relevant_shot

    path = questions_file if questions_file is not None else resolve(QUESTIONS_FILE, data_dir)
    tasks: dict[str, Task] = {}
    questions = read_objects(path, '{"id": ..., "api": ..., "question": ...}', "the questions file")
    for n, (_, row) in enumerate(questions, 1):
        missing = [f for f in ("id", "api", "question") if f not in row]
        if missing:
            raise DataError(f"{path}: question #{n} lacks field(s) {missing}")
        tid = str(row["id"])
        if tid in tasks:
            raise DataError(f"{path}: question #{n} repeats id {tid}")
        api = str(row["api"])
        metadata: dict[str, Any] = {
            "evaluator": "robustapi",
            "api": api,
            "domain": domain_of(api),
            "origin": str(row.get("origin", "")),
            "prompt_fields": {"api": api, "relevant_shot": relevant_shot(api)},
        }
        tasks[tid] = Task(
            benchmark=name,
            task_id=tid,
            language="java",
            prompt=str(row["question"]),
            entry_point=None,
            reference_solution=str(row.get("code") or ""),
            tests=(),
            prompt_style="description",
            metadata=metadata,
        )
    return Benchmark(
        name=name,
        version=file_digest(path),
        tasks=tasks,
        source=str(path),
        description=description,
        coverage=f"{len(tasks)} questions, {len({t.metadata['api'] for t in tasks.values()})} APIs",
    )


def load_robustapi_demo(data_dir: str | os.PathLike[str] | None = None) -> Benchmark:
    """``robustapi-demo``: four questions written for the demo, in the dataset's format
    (``robustapi/demo-questions.jsonl`` of ``beyondpass.demo``'s data folder, whatever
    ``data_dir`` says); their usage rules are the dataset's own ``pat_list.txt``."""
    from beyondpass.demo import data_dir as demo_data

    return load_robustapi(
        name="robustapi-demo",
        description="RobustAPI-style questions written for the demo (4 Java APIs)",
        questions_file=demo_data() / "robustapi" / "demo-questions.jsonl",
    )
