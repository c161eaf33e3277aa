"""Decide, for one answer, whether its Java code misuses an API: the RobustAPI checker.

``check(answer, api)`` returns a :class:`Verdict`: ``pass``, ``violation``, ``unparsable``
(code that no reading parses) or ``no_code``, with every rule violated, where and why. Two
semantics (see docs/robustapi.md):

* ``correct`` (default): a call site violates a rule only when its usage breaks the rule
  (:mod:`.correct`); several rules of one API must all hold.
* ``original``: the published checker's behaviour (:mod:`.original`): every resolved call
  that any rule covers is a violation; empty extracted code is unparsable.

The rule file is the dataset's ``pat_list.txt``; in the correct semantics the documented
errata (:data:`ERRATA`) replace rule lines that cannot mean what the seed's appendix says.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from beyondpass.methods.robustapi.checker.correct import check_call, rules_for
from beyondpass.methods.robustapi.checker.java_model import build_unit
from beyondpass.methods.robustapi.checker.knowledge import is_subtype
from beyondpass.methods.robustapi.checker.original import check_original, pattern_map
from beyondpass.methods.robustapi.checker.rule_grammar import parse_rule, parse_rules
from beyondpass.methods.robustapi.checker.rules import Rule, RuleSet
from beyondpass.methods.robustapi.extraction.java_code import (
    answer_blocks,
    dropped_notes,
    original_code,
    strip_echoed_prompt,
)
from beyondpass.methods.robustapi.extraction.java_syntax import parse_java_recovering, tool_versions

Semantics = Literal["correct", "original"]
SEMANTICS: tuple[str, ...] = ("correct", "original")
VERDICTS: tuple[str, ...] = ("pass", "violation", "unparsable", "no_code")

#: rule lines that the correct semantics replaces, and why (the seed's Table 3 is the
#: authority where the rule file cannot be meant as written)
ERRATA: dict[str, tuple[str, str]] = {
    "File#mkdir#mkdirs()@true": (
        "File#mkdirs#exists()@true, mkdirs()@true",
        "the file keys this rule on File.mkdir although its sequence is mkdirs(), so it never "
        "applies to File.mkdirs; the seed's Table 3 (row 20) gives File.mkdirs as "
        "'exists(), mkdirs()'",
    ),
}


@dataclass(frozen=True)
class Violation:
    """One rule broken by one call: which rule, where in the answer, and why."""

    rule: str  # rule id: file:line
    pattern: str  # the rule as written
    api: str  # Class.method the rule is about
    line: int  # line in the answer (correct) or in the extracted code (original)
    call: str  # the call as written
    reasons: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "pattern": self.pattern,
            "api": self.api,
            "line": self.line,
            "call": self.call,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class Verdict:
    verdict: str  # pass | violation | unparsable | no_code
    violations: tuple[Violation, ...] = ()
    api_called: bool = False  # the answer calls the question's API (as the checker sees it)
    error: str = ""  # why the code is unparsable
    notes: tuple[str, ...] = ()
    code: str = ""  # the code that was checked

    @property
    def misuse(self) -> bool:
        return self.verdict == "violation"

    def as_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "violations": [v.as_dict() for v in self.violations],
            "api_called": self.api_called,
            "error": self.error,
            "notes": list(self.notes),
        }


def api_parts(api: str | None) -> tuple[str, str] | None:
    """``"Iterator.next"`` -> ("Iterator", "next"); ``"ProgressDialog.dismiss()"`` too."""
    if not api or "." not in api:
        return None
    cls, method = api.strip().rsplit(".", 1)
    method = method.split("(", 1)[0].split("/", 1)[0].strip()
    return cls.strip().split(".")[-1].split(" ")[-1], method


@dataclass
class ApiMisuseChecker:
    """Checks answers against a rule set, in one semantics. Safe to share across threads."""

    ruleset: RuleSet
    semantics: Semantics = "correct"
    _patterns: dict[tuple[str, str], Rule] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.semantics not in SEMANTICS:
            raise ValueError(f"semantics must be one of {SEMANTICS}, not {self.semantics!r}")
        self._patterns = pattern_map(self.ruleset.rules)

    def metadata(self) -> dict[str, Any]:
        return {
            "semantics": self.semantics,
            "rules": self.ruleset.source,
            "rules_sha256": self.ruleset.sha256,
            "n_rules": len(self.ruleset.rules),
            "errata": [f"{old.id}: {new.text}" for old, new in self.ruleset.replaced],
            **tool_versions(),
        }

    def check(self, answer: str, api: str | None = None, prompts: Sequence[str] = ()) -> Verdict:
        """The verdict on one answer; ``prompts``: the question's prompt texts, so that an
        answer that begins by repeating its prompt is read from where the repetition ends
        (both semantics)."""
        answer, echo = strip_echoed_prompt(answer, prompts)
        notes = [echo] if echo else []
        if self.semantics == "original":
            return self._check_original(answer, api, notes)
        return self._check_correct(answer, api, notes)

    def _check_correct(self, answer: str, api: str | None, notes: list[str]) -> Verdict:
        found = answer_blocks(answer)
        notes.extend(found.notes)
        if not found.blocks:
            return Verdict("no_code", notes=tuple(notes))
        hint = api_parts(api)
        violations: list[Violation] = []
        errors: list[str] = []
        api_called = False
        for block in found.blocks:
            recovered = parse_java_recovering(block.text)
            parsed = recovered.parsed
            notes.extend(dropped_notes(block.line, recovered.dropped))
            if not parsed.ok:
                errors.append(f"block at answer line {block.line}: {parsed.error}")
                continue
            unit = build_unit(parsed)
            for call in unit.calls:
                rules = rules_for(self.ruleset, unit, call, hint)
                if hint and call.method == hint[1] and not call.is_new and call.static_on is None:
                    known = call.type is None or is_subtype(call.type, hint[0], unit.hierarchy)
                    api_called = api_called or known
                if call.type_assumed:
                    notes.append(
                        f"line {block.line + call.line - 1}: receiver of {call.method}() taken "
                        f"to be a {hint[0] if hint else '?'} (its type is not in the snippet)"
                    )
                for finding in check_call(unit, call, rules):
                    violations.append(
                        Violation(
                            rule=finding.rule.id,
                            pattern=finding.rule.text,
                            api=finding.rule.api,
                            line=block.line + call.line - 1,
                            call=_call_text(call.node),
                            reasons=finding.reasons,
                        )
                    )
        code = "\n\n".join(b.text for b in found.blocks)
        if errors:
            return Verdict(
                "unparsable", tuple(violations), api_called, errors[0], tuple(notes), code
            )
        verdict = "violation" if violations else "pass"
        return Verdict(verdict, tuple(violations), api_called, "", tuple(notes), code)

    def _check_original(self, answer: str, api: str | None, notes: list[str]) -> Verdict:
        code = original_code(answer)
        parsed, hits, error = check_original(code, self._patterns)
        if error:
            return Verdict("unparsable", error=error, notes=tuple(notes), code=code)
        hint = api_parts(api)
        shift = _answer_line_shift(code, answer)
        violations = tuple(
            Violation(h.rule.id, h.rule.text, h.rule.api, h.line + shift, h.call) for h in hits
        )
        called = bool(hint) and any((h.rule.cls, h.rule.method) == hint for h in hits)
        verdict = "violation" if hits else "pass"
        return Verdict(verdict, violations, called, notes=tuple(notes), code=code)


def _answer_line_shift(code: str, answer: str) -> int:
    """How many lines the extracted code starts below the answer's first line."""
    lines = code.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip().lstrip("{").strip()), None)
    if first is None:
        return 0
    probe = lines[first].strip().lstrip("{").strip()
    marker = answer.find("<<<code>>>:")
    at = answer.find(probe, max(marker, 0))
    if at == -1:
        return 0
    return answer.count("\n", 0, at) - first


def _call_text(node: Any) -> str:
    raw = node.text.decode("utf-8", "replace")
    flat = " ".join(raw.split())
    return flat if len(flat) <= 120 else flat[:117] + "..."


def build_ruleset(text: str, source: str, semantics: Semantics = "correct") -> RuleSet:
    """Parse a rule file's text; in the correct semantics apply :data:`ERRATA`."""
    rules = parse_rules(text, source=source)
    replaced: list[tuple[Rule, Rule]] = []
    if semantics == "correct":
        fixed = []
        for rule in rules:
            erratum = ERRATA.get(rule.text)
            if erratum is None:
                fixed.append(rule)
                continue
            new = parse_rule(erratum[0], source=f"{source}+erratum", line=rule.line)
            replaced.append((rule, new))
            fixed.append(new)
        rules = fixed
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return RuleSet(tuple(rules), source, digest, tuple(replaced))


def load_ruleset(
    path: str | os.PathLike[str] | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    semantics: Semantics = "correct",
) -> RuleSet:
    """The rules from ``path``, else the dataset's ``robustapi/pat_list.txt``."""
    from beyondpass.benchmarks.sources import resolve
    from beyondpass.errors import DataError
    from beyondpass.methods.robustapi.benchmark import RULES_FILE

    file = Path(path) if path is not None else resolve(RULES_FILE, data_dir)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"rule file {file} does not exist — pass --rules PATH") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read rule file {file} ({exc})") from exc
    return build_ruleset(text, file.name, semantics)
