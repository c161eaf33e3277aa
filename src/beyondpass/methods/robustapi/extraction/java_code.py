"""Find the Java code in a model's answer, in the RobustAPI answer format or without it.

RobustAPI asks for ``<<<api>>>: ... <<<code>>>: ... <<<explanation>>>: ...``. Models follow
it loosely: fenced or bare code after ``<<<code>>>:``, prose before the fence ("Here is the
code:"), several blocks (a server and a client, two activities), XML layouts next to the
Java, elisions (``...``), or no marker at all. Two readers exist, like the two checkers:

:func:`answer_blocks` (beyondpass): the code section runs from ``<<<code>>>:`` to the next
``<<<name>>>`` marker (the whole answer when there is no marker). Fenced blocks in it are the
code, except blocks tagged with another language (xml, gradle, json, shell...). Without
fences, the section's lines are split into code and prose; each run of code lines is a
block, and a prose line ("MainActivity.java", "For the client:") separates blocks. Every
block keeps its first line's number in the answer, so verdicts point at answer lines.
Lines that are only an elision (``...``) become blank, and ``...`` standing for an
expression or argument list (``= ...;``, ``f(...)``) becomes a placeholder name: elisions
are the model abbreviating, not code it claims compiles.

:func:`original_code` (the RobustAPI evaluation script, reproduced for ``--semantics
original``): the text between the first ``<<<code>>>:`` and the next ``<<<``; if it contains
``:\\n`` only the text between the first and second ``:\\n`` is kept; a leading fence keeps
only the first fenced block; braces are balanced by prepending ``{`` for each unmatched
``}`` and appending ``}`` for each unclosed ``{``. An answer without ``api>>>:`` or
``<<<code>>>:`` yields no code.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.result import Extraction

_MARKER = re.compile(r"<<<\s*([A-Za-z_]+)\s*>>>\s*:?", re.I)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*$")
_JAVA_TAGS = frozenset({"", "java", "jav", "android", "java8", "java11", "java17", "jsp"})
_PROSE_END = re.compile(r"[:.!?]\s*$")
_FILENAME = re.compile(r"^[\w./\\-]+\.(java|xml|kt|gradle|json|txt|properties|csv)\s*:?$", re.I)
_CODE_START = re.compile(
    r"""^(?:
        (?:public|private|protected|static|final|abstract|synchronized|native|default)\b
      | (?:class|interface|enum|record|import|package|return|throw|throws|new|try|catch
         |finally|if|else|for|while|do|switch|case|break|continue|this|super|assert)\b
      | @\w | //|/\*|\*|\}|\{|\)
    )""",
    re.X,
)
_CODE_END = re.compile(r"(?:[;{}(,+=&|]|->|\)|\*/)\s*(?://.*)?$")
_ELISION_LINE = re.compile(r"^[ \t]*(?:\.\s?){3}[ \t]*$|^[ \t]*…[ \t]*$")
_ELISION_EXPR = re.compile(r"(?<![\w\]>)])(\s*)(?:\.\.\.|…)(?=\s*(?:[);,}\]]|//|$))")
_ELIDED_END = re.compile(r"=\s*" + "__elided__" + r"(\s*)(//.*)?$")
ELISION_NAME = "__elided__"


@dataclass(frozen=True)
class CodeBlock:
    """One piece of code from an answer; ``line`` is its first line in the answer (1-based)."""

    text: str
    line: int
    fenced: bool


@dataclass(frozen=True)
class AnswerCode:
    """What :func:`answer_blocks` found; ``notes`` record the decisions, for auditing."""

    blocks: tuple[CodeBlock, ...]
    format_followed: bool  # a <<<code>>> marker was present
    notes: tuple[str, ...] = ()


def _normalise(answer: str) -> str:
    return answer.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")


def code_section(answer: str) -> tuple[str, int, bool]:
    """The code section: text after ``<<<code>>>:`` up to the next marker.

    Returns (section, line number of its first character, whether the marker was found).
    """
    text = _normalise(answer)
    markers = list(_MARKER.finditer(text))
    for i, m in enumerate(markers):
        if m.group(1).lower() == "code":
            end = markers[i + 1].start() if i + 1 < len(markers) else len(text)
            section = text[m.end() : end]
            return section, text.count("\n", 0, m.end()) + 1, True
    return text, 1, False


def _fenced_blocks(section: str, first_line: int) -> list[tuple[str, int, str]] | None:
    """(text, answer line, language tag) of each fenced block; None when there is no fence."""
    lines = section.split("\n")
    blocks: list[tuple[str, int, str]] = []
    i = 0
    found = False
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        found = True
        fence, tag = m.group(1), m.group(2).lower()
        body: list[str] = []
        j = i + 1
        reopened = False
        while j < len(lines):
            close = _FENCE.match(lines[j])
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                # fences do not nest: a tagged fence here means the model forgot to close
                # the block and opened the next one
                reopened = bool(close.group(2))
                break
            body.append(lines[j])
            j += 1
        blocks.append(("\n".join(body), first_line + i + 1, tag))
        i = j if reopened else j + 1
    return blocks if found else None


def is_prose(line: str) -> bool:
    """A line that is clearly sentence or file name, not code. Unsure lines count as code."""
    s = line.strip()
    if not s:
        return False
    if _FILENAME.match(s):
        return True
    if _CODE_START.match(s) or _CODE_END.search(s):
        return False
    if any(ch in s for ch in ";{}=") or "()" in s:
        return False
    words = re.findall(r"[A-Za-z']+", s)
    if s.endswith(":") and " " in s and not re.match(r"(case|default)\b", s):
        return True  # "First example:", "In your MainActivity:"
    return len(words) >= 3 and (_PROSE_END.search(s) is not None or len(words) >= 6)


def _code_runs(section: str, first_line: int) -> list[tuple[str, int]]:
    """Split unfenced text into runs of code lines separated by prose lines."""
    return _split_at(section, first_line, is_prose)


def _split_at(
    section: str, first_line: int, separator: Callable[[str], bool]
) -> list[tuple[str, int]]:
    """Runs of lines between separator lines, each with its first line's answer line."""
    runs: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for offset, line in enumerate(section.split("\n")):
        if separator(line.strip()):
            if any(x.strip() for x in current):
                runs.append(("\n".join(current), start))
            current = []
            continue
        if not current:
            start = first_line + offset
        current.append(line)
    if any(x.strip() for x in current):
        runs.append(("\n".join(current), start))
    out = []
    for text, line in runs:  # drop leading blank lines, keeping line numbers right
        stripped = text.lstrip("\n")
        out.append((stripped, line + (len(text) - len(stripped))))
    return out


def _looks_like_code(text: str) -> bool:
    return bool(re.search(r"[;{}]", text)) or bool(re.search(r"\w\s*\([^)]*\)", text))


def fill_elisions(text: str) -> tuple[str, int]:
    """Blank elision lines and name elided expressions; returns (text, how many)."""
    count = 0
    lines = []
    for line in text.split("\n"):
        if _ELISION_LINE.match(line):
            lines.append("")
            count += 1
            continue
        new, n = _ELISION_EXPR.subn(lambda m: m.group(1) + ELISION_NAME, line)
        if n:  # "T x = ... // comment": the elided initialiser also ends the statement
            new = _ELIDED_END.sub(lambda m: f"= {ELISION_NAME};{m.group(1)}{m.group(2) or ''}", new)
        count += n
        lines.append(new)
    return "\n".join(lines), count


def unescape_entities(text: str) -> str:
    """Undo HTML escaping (``&lt;`` ``&amp;&amp;``) that code copied through web pages has."""
    return html.unescape(text) if re.search(r"&(?:[a-z]+|#\d+);", text) else text


def answer_blocks(answer: str) -> AnswerCode:
    """The Java blocks of an answer (beyondpass's reading; see the module docstring)."""
    section, first_line, marked = code_section(answer)
    notes: list[str] = [] if marked else ["no <<<code>>> marker: the whole answer was searched"]
    fenced = _fenced_blocks(section, first_line)
    raw: list[tuple[str, int, bool]] = []
    if fenced is not None:
        for text, line, tag in fenced:
            if tag not in _JAVA_TAGS:
                notes.append(f"skipped a {tag} block at line {line}")
                continue
            if not tag and not _looks_like_code(text):
                notes.append(f"skipped an untagged block without code at line {line}")
                continue
            # a file name line ("MainActivity.java") inside a fence separates two files
            for part, part_line in _split_at(text, line, lambda s: bool(_FILENAME.match(s))):
                raw.append((part, part_line, True))
    elif marked or _looks_like_code(section):
        for text, line in _code_runs(section, first_line):
            if _looks_like_code(text):
                raw.append((text, line, False))
    blocks = []
    for text, line, was_fenced in raw:
        filled, n = fill_elisions(unescape_entities(text))
        if n:
            notes.append(f"block at line {line}: {n} elision(s) filled")
        if filled.strip():
            blocks.append(CodeBlock(filled, line, was_fenced))
    if len(blocks) > 1:
        notes.append(f"{len(blocks)} code blocks")
    return AnswerCode(tuple(blocks), marked, tuple(notes))


def strip_echoed_prompt(answer: str, prompts: Sequence[str]) -> tuple[str, str]:
    """(answer without an echoed prompt, note); the note is empty when nothing was cut.

    The cut text is replaced by its newlines, so line numbers stay those of the answer.

    An answer that begins with one of ``prompts`` (leading whitespace and whitespace
    differences inside ignored; the longest prompt that matches wins) loses that prefix —
    as the RobustAPI authors cut ``response[len(prompt):]`` off their base model's answers.
    Only a prefix is cut: a prompt quoted later in an answer stays.
    """
    best = 0
    for prompt in prompts:
        end = _prefix_end(answer, prompt)
        if end is not None and end > best:
            best = end
    if not best:
        return answer, ""
    lines = answer.count("\n", 0, best)
    note = f"the answer repeats the prompt first (lines 1-{lines + 1}); that part was cut"
    return "\n" * lines + answer[best:], note  # the newlines keep line numbers those of the answer


def _prefix_end(answer: str, prompt: str) -> int | None:
    """Index in ``answer`` just after a whitespace-insensitive copy of ``prompt``, if any."""
    i = 0
    n = len(answer)
    matched = False
    for ch in prompt:
        if ch.isspace():
            continue
        while i < n and answer[i].isspace():
            i += 1
        if i >= n or answer[i] != ch:
            return None
        i += 1
        matched = True
    return i if matched else None


def original_code(answer: str) -> str:
    """The code the RobustAPI evaluation script took from an answer (see module docstring)."""
    if "api>>>:" not in answer or "<<<code>>>:" not in answer:
        return ""
    after = answer.split("<<<code>>>:")[1]
    cut = after.find("<<<")
    code = after if cut == -1 else after[:cut]
    if ":\n" in code:
        code = code.split(":\n")[1]
    code = code.strip()
    if code.startswith("```java"):
        code = code.split("```java")[1].split("```")[0]
    elif code.startswith("```"):
        code = code.split("```")[1]
    return _original_brackets(code)


def _original_brackets(code: str) -> str:
    depth = 0
    prefix = ""
    for ch in code:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                prefix += "{"
            else:
                depth -= 1
    return prefix + code + "}" * depth


def dropped_notes(first_line: int, dropped: Sequence[tuple[int, str]]) -> list[str]:
    """Notes naming the prose lines dropped from a block (answer line numbers)."""
    return [
        f"line {first_line + line - 1}: dropped a prose line inside the code: {text[:80]!r}"
        for line, text in dropped
    ]


def extract_java(answer: str, task: Task) -> Extraction:
    """The pipeline's Java extractor: every block must parse for the answer to be ``ok``."""
    from beyondpass.methods.robustapi.extraction.java_syntax import parse_java_recovering

    found = answer_blocks(answer)
    if not found.blocks:
        return Extraction("no_code", "", "", "none", notes=found.notes)
    code = "\n\n".join(b.text for b in found.blocks)
    notes = list(found.notes)
    error = ""
    for block in found.blocks:
        recovered = parse_java_recovering(block.text)
        parsed = recovered.parsed
        notes.extend(dropped_notes(block.line, recovered.dropped))
        if parsed.reading != "as-is":
            notes.append(f"block at line {block.line} parsed as {parsed.reading}")
        if not parsed.ok and not error:
            error = f"block at answer line {block.line}: {parsed.error}"
    status = "syntax_error" if error else "ok"
    return Extraction(status, code, code, "full", error=error, notes=tuple(notes))
