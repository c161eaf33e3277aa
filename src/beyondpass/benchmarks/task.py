"""The benchmark data model: a :class:`Task` and the :class:`Benchmark` that holds tasks.

One model for every method: Python function tasks (HumanEval, MBPP) carry assertion tests;
stdin/stdout tasks (PSB2; Java/C++) carry input/expected-output cases; edit tasks
(NoFunEval) carry their source/target in ``metadata``. Evaluators pick what they need.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

PromptStyle = Literal["completion", "description"]


@dataclass(frozen=True)
class TestCase:
    """One test of a task.

    ``code`` is source run in the program's namespace after the program (an ``assert`` or a
    ``check(candidate)`` call). For I/O tasks ``stdin``/``expected_stdout`` are used instead.
    """

    __test__ = False  # not a pytest class

    name: str
    code: str = ""
    stdin: str | None = None
    expected_stdout: str | None = None


@dataclass(frozen=True)
class Task:
    """One benchmark problem, independent of where it came from."""

    benchmark: str
    task_id: str
    language: str
    prompt: str
    entry_point: str | None
    reference_solution: str
    tests: tuple[TestCase, ...]
    test_setup: str = ""
    prompt_style: PromptStyle = "completion"
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def code_prompt(self) -> str:
        """The code a completion-style answer continues (empty for description tasks)."""
        return self.prompt if self.prompt_style == "completion" else ""


@dataclass(frozen=True)
class KnownBroken:
    """An upstream task whose reference solution fails its own tests, and why."""

    task_id: str
    reason: str


@dataclass
class Benchmark:
    """A loaded benchmark: its tasks in canonical order plus provenance."""

    name: str
    version: str  # content hash of the data file(s): results record exactly what was used
    tasks: dict[str, Task]
    source: str  # where the data was read from
    description: str = ""
    known_broken: dict[str, KnownBroken] = field(default_factory=dict)
    coverage: str = ""  # e.g. "397 of 427 sanitized MBPP tasks"
    id_aliases: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.tasks)

    def tasks_by_key(self) -> dict[tuple[str, str], Task]:
        """Tasks keyed by (benchmark, task id), the key the store uses."""
        return {(self.name, tid): t for tid, t in self.tasks.items()}

    def resolve_id(self, raw: object) -> str | None:
        """Map a task id as users write it (``11``, ``"Mbpp/11"``) to the canonical id."""
        key = str(raw).strip()
        if key in self.tasks:
            return key
        return self.id_aliases.get(key) or self.id_aliases.get(key.lower())

    def provenance(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "source": self.source,
            "n_tasks": len(self.tasks),
            "coverage": self.coverage,
            "known_broken": sorted(self.known_broken),
        }
