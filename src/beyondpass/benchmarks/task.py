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


#: How an I/O test's output is compared with the expected output (docs/verdicts.md).
COMPARE_MODES = ("exact", "whitespace", "numeric", "pie_lines")
_TOLERANT = ("numeric", "pie_lines")


@dataclass(frozen=True)
class FunctionCall:
    """Function mode: the answer is a function, and a trusted runner calls it on each I/O
    test's input (read in ``inputs`` types) and prints its result (``outputs`` types).

    A typed part of the sample and of its execution request, so that methods describe the
    call and never write marker text into programs. Types are PSB2's (``int``, ``float``,
    ``str``, ``bool``, ``vec_int``, ...; docs/psb2.md).
    """

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    def argv(self) -> tuple[str, str, str]:
        """The runner's arguments: the name, the input types (``-``: none), the outputs."""
        return (self.name, ",".join(self.inputs) or "-", ",".join(self.outputs))

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "inputs": list(self.inputs), "outputs": list(self.outputs)}

    @classmethod
    def from_dict(cls, data: Any) -> FunctionCall | None:
        """The call a stored record describes (``None``: no function mode)."""
        if not isinstance(data, dict) or not data.get("name"):
            return None
        return cls(str(data["name"]), tuple(data.get("inputs", ())), tuple(data["outputs"]))


@dataclass(frozen=True)
class OutputComparison:
    """How the harness compares a program's stdout with an I/O test's expected stdout.

    ``exact``: byte for byte. ``whitespace``: line by line, each line's runs of blanks
    collapsed and its ends stripped, ``\r\n`` as ``\n``, trailing blank lines ignored.
    ``numeric``: as ``whitespace``, then token by token; two tokens that are both decimal
    numbers match when ``math.isclose(got, expected, rel_tol, abs_tol)``, any other token
    must be equal. ``pie_lines``: the rule of the PIE harness NoFunEval times runtime
    edits with (``get_accuracy``): both outputs stripped and split into lines, output
    lines past the expected ones ignored, each expected line right when the output's line
    is the same string or both parse with ``float()`` and differ by less than ``abs_tol``
    (``rel_tol`` must be 0).
    """

    mode: str = "exact"
    abs_tol: float = 0.0
    rel_tol: float = 0.0

    def __post_init__(self) -> None:
        if self.mode not in COMPARE_MODES:
            raise ValueError(
                f"unknown comparison {self.mode!r} — choose {', '.join(COMPARE_MODES)}"
            )
        if not (self.abs_tol >= 0 and self.rel_tol >= 0):  # also rejects NaN
            raise ValueError("comparison tolerances must be numbers >= 0")
        if self.mode == "pie_lines" and self.rel_tol:
            raise ValueError("the pie_lines comparison takes abs_tol only, not rel_tol")
        if self.mode not in _TOLERANT and (self.abs_tol or self.rel_tol):
            raise ValueError(
                "tolerances apply to the numeric comparison only (abs_tol also to "
                f"pie_lines), not {self.mode!r}"
            )

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.mode == "numeric":
            out.update(abs_tol=self.abs_tol, rel_tol=self.rel_tol)
        elif self.mode == "pie_lines":
            out.update(abs_tol=self.abs_tol)
        return out


EXACT = OutputComparison()


@dataclass(frozen=True)
class TestCase:
    """One test of a task: call-style or I/O.

    Call-style: ``code`` is source run by the judge with the program's names bound (an
    ``assert`` or a ``check(candidate)`` call). I/O: the whole program runs with ``stdin``
    (text, UTF-8) as its standard input and must exit with status 0 having written
    ``expected_stdout``, compared as ``compare`` says; ``code`` is then empty.
    """

    __test__ = False  # not a pytest class

    name: str
    code: str = ""
    stdin: str | None = None
    expected_stdout: str | None = None
    compare: OutputComparison = EXACT

    @property
    def is_io(self) -> bool:
        return self.expected_stdout is not None


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
