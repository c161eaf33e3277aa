"""Find the Python program in a model's answer.

Chat models wrap code in prose, Markdown fences, reasoning and example calls, and
completion-style answers may be a bare function body. Evaluators need exactly one program,
so this module decides which code the model meant as its answer;
:mod:`beyondpass.extraction.python_program` fits it to the task's prompt (rule 4) and
assembles the program (rule 7). It only reads text (``re``, ``ast``, ``compile``); nothing
is executed.

Rules, in order:

1. Normalise line endings (CRLF/CR to LF, drop a BOM). Remove reasoning: every
   ``<think>...</think>`` / ``<thinking>...</thinking>`` pair, everything before a closing
   tag with no opening tag before it, everything after an unclosed opening tag. Opening
   tags count only at the start of a line. Code inside reasoning is a draft, never used.
2. Split Markdown fences (```` ``` ```` or ``~~~``, any info string, any indentation; the
   fence's indentation is removed from its lines; an unclosed last fence runs to the end of
   the answer, as when the answer was cut off). Blocks tagged with another language
   (``bash``, ``text``, ``output``...) are only considered when nothing else is code.
3. Text outside fences is scanned for unfenced code: a chunk that compiles as a whole is
   one segment; otherwise a region starts at a line that begins ``def``/``class``/
   ``import``/``from ... import``/``@`` (or at another statement-like line, in which case
   the region must compile) and runs until the next unindented prose line.
4. Each segment is classified: ``full`` if it compiles on its own (or dedented), ``body``
   if it compiles appended to ``task.code_prompt`` (also tried: indenting a flush-left
   first line, re-indenting to the prompt's indentation, expanding tabs).
5. Selection, fenced Python blocks before unfenced regions before other-language blocks:
   (a) among the segments that define the entry point at top level (``def``, ``class`` or
   assignment of that name; an import does not count), the one :mod:`.blocks` chooses (the
   last one the answer names its answer, else the first); else (b) the largest segment that
   compiles and is real code, preferring ones with a definition or a completion body over
   top-level usage code; else (c) the largest code-looking segment that does not compile
   (``syntax_error``). Nothing left means ``no_code``. Prose is not code just because it
   compiles: a module of bare non-call expressions (``Sorry``, ``not possible``) is not.
6. When (a) picked a segment, other segments of the same group that compile and hold only
   imports/``def``/``class`` are merged in front of it if they provide a name it uses but
   does not define (one level, in answer order). Usage examples are never merged.
7. Program: ``body`` -> ``code_prompt`` + newline + body. ``full`` on a completion task ->
   the prompt's top-level statements other than the entry point's own definition (imports,
   helpers such as HumanEval/10's ``is_palindrome``; imports the answer repeats verbatim
   are skipped), then the answer, whose definitions override. Description tasks -> the
   answer alone. ``from __future__`` lines are hoisted to the top. A program that does
   not ``compile()`` gives ``syntax_error`` with the first error.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass, replace

from beyondpass.benchmarks.task import Task
from beyondpass.extraction.blocks import (
    RULE,
    Rule,
    alternative,
    choose,
    describe,
    lead_in,
    named_answer,
)
from beyondpass.extraction.python_lines import START, looks_like_code, prose_like, statement_like
from beyondpass.extraction.python_program import (
    Kind,
    assemble,
    bound_names,
    compile_error,
    fit,
    format_error,
    is_docstring,
    parse,
    top_level,
)
from beyondpass.extraction.result import Extraction

# Opening tags count only at the start of a line, so code that mentions "<think>" survives.
_THINK_PAIR = re.compile(r"^[ \t]*<(think|thinking)\s*>.*?</\1\s*>", re.S | re.I | re.M)
_THINK_CLOSE = re.compile(r"</(?:think|thinking)\s*>", re.I)
_THINK_OPEN = re.compile(r"<(?:think|thinking)\s*>", re.I)
_THINK_OPEN_LINE = re.compile(r"^[ \t]*<(?:think|thinking)\s*>", re.I | re.M)

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_PY_TAGS = frozenset({"", "python", "py", "python3", "py3", "python2", "py2", "ipython", "sage"})

_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def extract_python(answer: str, task: Task, rule: Rule = RULE) -> Extraction:
    """Extract the Python program a model's ``answer`` gives for ``task``; never executes it.
    ``rule``: how to choose among candidate blocks (:mod:`.blocks`; others for measuring)."""
    notes: list[str] = []
    text = _strip_reasoning(_normalise(answer or "", notes), notes)
    lines = text.split("\n")
    if not text.strip():
        notes.append("answer is empty" if not (answer or "").strip() else "nothing after reasoning")
        return Extraction("no_code", "", "", "none", notes=tuple(notes))

    blocks, chunks = _split_fences(lines)
    python_blocks = [b for b in blocks if _is_python_tag(b.tag)]
    other_blocks = [b for b in blocks if not _is_python_tag(b.tag)]
    unfenced = [seg for lo, hi in chunks for seg in _unfenced_segments(lines, lo, hi, task)]
    for seg in python_blocks + other_blocks:
        _analyse(seg, task)
    groups = [python_blocks, unfenced, other_blocks]

    for seg in python_blocks + other_blocks + unfenced:
        seg.named = named_answer(lead_in(lines, seg.opening))

    picked = _select(groups, task.entry_point, rule)
    if picked is None:
        notes.append("no code found" if not blocks else "fenced blocks hold no code")
        return Extraction("no_code", "", "", "none", notes=tuple(notes))
    seg, group, reason, hits = picked
    result = _assembled(seg, group, reason, task, blocks, lines, notes)
    at = next((i for i, hit in enumerate(hits) if hit is seg), None)
    other = alternative(at, len(hits)) if at is not None else None
    if other is None:
        return result
    # the program the other reading takes, so evaluators can tell whether the choice matters
    alt = _assembled(hits[other], group, "alternative", task, blocks, lines, [])
    return replace(result, candidates=len(hits), alternative=alt)


def _assembled(
    seg: _Segment,
    group: list[_Segment],
    reason: str,
    task: Task,
    blocks: list[_Segment],
    lines: list[str],
    notes: list[str],
) -> Extraction:
    """The extraction of ``seg``: helpers merged (rule 6), program assembled (rule 7)."""
    notes.append(_describe(seg, blocks, lines, reason))
    if seg.unclosed:
        notes.append("fence not closed (answer cut off?)")
    if seg.fit_note:
        notes.append(seg.fit_note)

    parts = [seg]
    if seg.defines and seg.compiles and seg.kind == "full":
        helpers = _helpers(seg, group, task.entry_point)
        for helper in helpers:
            notes.append(f"merged {_label(helper, blocks)} (provides {', '.join(helper.provides)})")
        parts = helpers + [seg]

    code = "\n\n".join(p.text for p in parts)
    program, note = assemble(task, seg.kind, "\n\n".join(p.fitted for p in parts))
    if note:
        notes.append(note)

    error = compile_error(program)
    if error is not None:
        return Extraction(
            "syntax_error", code, program, seg.kind, format_error(error), tuple(notes)
        )
    return Extraction("ok", code, program, seg.kind, notes=tuple(notes))


# --- segments ---------------------------------------------------------------------------


@dataclass
class _Segment:
    """One candidate piece of code: a fenced block or an unfenced region of the answer."""

    text: str  # as written, fence indentation removed
    first_line: int  # 1-based, in the answer after reasoning was removed
    last_line: int
    fenced: bool
    tag: str = ""
    unclosed: bool = False
    strong: bool = True  # unfenced: starts like a definition/import (weak ones must compile)
    opening: int = -1  # 0-based line of its opening fence (unfenced: of its first line)
    named: bool = False  # its lead-in names it the answer (:func:`.blocks.named_answer`)
    # filled by _analyse
    kind: Kind = "full"
    fitted: str = ""  # the code as it enters the program (dedented/re-indented if needed)
    compiles: bool = False
    fit_note: str = ""
    is_code: bool = False
    defines: bool = False
    category: int = 0  # 1: has a definition or is a completion body; 0: top-level code only
    provides: tuple[str, ...] = ()  # helper merging: names it provides to the chosen segment

    def __post_init__(self) -> None:
        if self.opening < 0:
            self.opening = self.first_line - 1


def _normalise(answer: str, notes: list[str]) -> str:
    if "\r" in answer:
        answer = answer.replace("\r\n", "\n").replace("\r", "\n")
        notes.append("normalised CRLF line endings")
    return answer.removeprefix("\ufeff")


def _strip_reasoning(text: str, notes: list[str]) -> str:
    text, pairs = _THINK_PAIR.subn("", text)
    if pairs:
        notes.append("stripped <think> block" + (f"s ({pairs})" if pairs > 1 else ""))
    # an orphan closing tag (the opening one was cut by the API): reasoning precedes it
    orphans = [c for c in _THINK_CLOSE.finditer(text) if not _THINK_OPEN.search(text, 0, c.start())]
    if orphans:
        text = text[orphans[-1].end() :]
        notes.append("dropped reasoning before </think>")
    opening = _THINK_OPEN_LINE.search(text)
    if opening:
        text = text[: opening.start()]
        notes.append("dropped unterminated <think> block")
    return text


def _split_fences(lines: list[str]) -> tuple[list[_Segment], list[tuple[int, int]]]:
    """Fenced blocks, plus the [lo, hi) line ranges outside them."""
    blocks: list[_Segment] = []
    chunks: list[tuple[int, int]] = []
    i, outside_from = 0, 0
    while i < len(lines):
        opening = _fence(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence, info = opening
        chunks.append((outside_from, i))
        j = i + 1
        while j < len(lines):
            closing = _fence(lines[j])
            closes = closing and not closing[2]  # a closing fence has no info string
            if closes and closing[1][0] == fence[0] and len(closing[1]) >= len(fence):
                break
            j += 1
        body = [_drop_indent(line, indent) for line in lines[i + 1 : j]]
        lo, hi = _trim_blank(body)
        blocks.append(
            _Segment(
                text="\n".join(body[lo:hi]),
                first_line=i + 2 + lo,
                last_line=i + 1 + hi,
                fenced=True,
                tag=info.split()[0] if info.split() else "",
                unclosed=j >= len(lines),
                opening=i,
            )
        )
        i = outside_from = j + 1
    chunks.append((outside_from, len(lines)))
    return [b for b in blocks if b.text.strip()], [(lo, hi) for lo, hi in chunks if lo < hi]


def _fence(line: str) -> tuple[str, str, str] | None:
    m = _FENCE.match(line)
    if m is None or (m["fence"][0] == "`" and "`" in m["info"]):
        return None
    return m["indent"], m["fence"], m["info"].strip()


def _drop_indent(line: str, indent: str) -> str:
    n = 0
    while n < len(indent) and n < len(line) and line[n] in " \t":
        n += 1
    return line[n:]


def _trim_blank(lines: list[str]) -> tuple[int, int]:
    lo, hi = 0, len(lines)
    while lo < hi and not lines[lo].strip():
        lo += 1
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return lo, hi


def _is_python_tag(tag: str) -> bool:
    tag = tag.lower().strip("{}.")
    return tag.removeprefix("language-") in _PY_TAGS


def _unfenced_segments(lines: list[str], lo: int, hi: int, task: Task) -> list[_Segment]:
    """Code regions in the text between fences (rule 3)."""
    a, b = _trim_blank(lines[lo:hi])
    if a == b:
        return []
    whole = _Segment("\n".join(lines[lo + a : lo + b]), lo + a + 1, lo + b, fenced=False)
    if _analyse(whole, task).compiles and whole.is_code:
        return [whole]
    if not any(prose_like(line) for line in lines[lo:hi]):
        # code with no prose around it, even if broken; it must read as statements
        return [whole] if looks_like_code(whole.text, strict=True) else []
    segments = []
    i = lo
    while i < hi:
        line = lines[i]
        strong = START.match(line) is not None
        weak = not strong and statement_like(line)
        if not (strong or weak):
            i += 1
            continue
        j = i + 1
        while j < hi and not (lines[j][:1] not in ("", " ", "\t") and prose_like(lines[j])):
            j += 1
        k = j
        while k > i and not lines[k - 1].strip():
            k -= 1
        seg = _analyse(_Segment("\n".join(lines[i:k]), i + 1, k, False, strong=strong), task)
        if strong or (seg.compiles and seg.is_code):
            segments.append(seg)
        i = j
    return segments


# --- classification ---------------------------------------------------------------------


def _analyse(seg: _Segment, task: Task) -> _Segment:
    """Fill in how ``seg`` fits the task (rule 4) and what it contains."""
    kind, fitted, compiles, note = fit(seg.text, task)
    seg.kind, seg.fitted, seg.compiles, seg.fit_note = kind, fitted, compiles, note
    if compiles:
        tree = parse(fitted if kind == "full" else textwrap.dedent(fitted))
        seg.is_code = tree is not None and _meaningful(tree, fitted, kind)
        if tree is None and kind == "body":
            seg.is_code = any(
                not ln.strip().startswith("#") for ln in fitted.split("\n") if ln.strip()
            )
        top = tree.body if tree is not None and kind == "full" else []
        # imports do not count: usage blocks often start "from solution import <entry point>"
        seg.defines = task.entry_point in bound_names(top, imports=False)
        has_def = any(isinstance(s, _DEFINITION) for s in top)
        seg.category = 1 if kind == "body" or has_def else 0
    else:
        seg.is_code = looks_like_code(seg.text)
        seg.defines = task.entry_point is not None and _defines_by_text(seg.text, task.entry_point)
        seg.category = 1
    return seg


def _meaningful(tree: ast.Module, source: str, kind: Kind) -> bool:
    """Whether a parsed module is code rather than prose that happens to parse.

    A module of bare non-call expressions (``Sorry``, ``not possible``, ``See (below)``) is
    prose; so is a lone ``pass`` or an annotation without value (``Answer: 42``).
    """
    lines = textwrap.dedent(source).split("\n") if kind == "body" else source.split("\n")
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr):
            if _tight_call(stmt.value, lines):
                return True
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                return True
        elif not isinstance(stmt, ast.Pass | ast.Break | ast.Continue):
            return True
    return False


def _tight_call(node: ast.expr, lines: list[str]) -> bool:
    """A call written like code, ``name(...)``, not prose such as ``See (below)``."""
    if not isinstance(node, ast.Call) or node.func.end_lineno is None:
        return False
    line = lines[node.func.end_lineno - 1] if node.func.end_lineno <= len(lines) else ""
    col = node.func.end_col_offset or 0
    return line[col : col + 1] == "("


def _defines_by_text(text: str, name: str) -> bool:
    """For code that does not compile: a top-level ``def``/``class``/assignment of ``name``."""
    n = re.escape(name)
    definition = (
        rf"(?:async[ \t]+)?def[ \t]+{n}[ \t]*\(|class[ \t]+{n}\b|{n}[ \t]*(?::[^=\n]*)?=(?!=)"
    )
    return re.search(rf"^(?:{definition})", textwrap.dedent(text), re.M) is not None


# --- selection --------------------------------------------------------------------------


def _select(
    groups: list[list[_Segment]], entry_point: str | None, rule: Rule = RULE
) -> tuple[_Segment, list[_Segment], str, list[_Segment]] | None:
    """Rule 5: (segment, its group, reason, the candidates it was chosen from) or None when
    the answer holds no code. Only segments defining the entry point are candidates."""
    if entry_point:
        for group in groups:
            hits = [s for s in group if s.defines and s.is_code]
            if hits:
                at = choose([s.named for s in hits], rule)
                why = describe(at, len(hits), hits[at].named, rule)
                return hits[at], group, "defines entry point" + (f", {why}" if why else ""), hits
    for group in groups:
        good = [s for s in group if s.compiles and s.is_code]
        if good:
            best = max(reversed(good), key=lambda s: (s.category, len(s.text.strip())))
            return best, group, "largest code that compiles", []
    for group in groups:
        bad = [s for s in group if not s.compiles and s.is_code and (s.fenced or s.strong)]
        if bad:
            best = max(reversed(bad), key=lambda s: len(s.text.strip()))
            return best, group, "largest code; none compiles", []
    return None


def _helpers(chosen: _Segment, group: list[_Segment], entry_point: str | None) -> list[_Segment]:
    """Rule 6: definition-only segments that provide names the chosen segment uses."""
    tree = parse(chosen.fitted)
    if tree is None:
        return []
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - bound_names(tree.body)
    helpers = []
    for seg in group:
        if seg is chosen or not (seg.compiles and seg.kind == "full") or seg.defines:
            continue
        body = top_level(seg.fitted)
        if not body or not all(_is_definition(s) for s in body):
            continue
        provided = sorted(used & bound_names(body))
        if provided and entry_point not in bound_names(body):
            seg.provides = tuple(provided)
            helpers.append(seg)
    return helpers


def _is_definition(stmt: ast.stmt) -> bool:
    return is_docstring(stmt) or isinstance(
        stmt, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    )


def _label(seg: _Segment, blocks: list[_Segment]) -> str:
    if seg.fenced:
        return f"fenced block {blocks.index(seg) + 1} of {len(blocks)}"
    if seg.first_line == seg.last_line:
        return f"unfenced code (line {seg.first_line})"
    return f"unfenced code (lines {seg.first_line}-{seg.last_line})"


def _describe(seg: _Segment, blocks: list[_Segment], lines: list[str], reason: str) -> str:
    if seg.fenced:
        return f"picked {_label(seg, blocks)} ({reason})"
    a, b = _trim_blank(lines)
    if not blocks and seg.first_line == a + 1 and seg.last_line == b:
        return "took the whole answer as code"
    return f"took {_label(seg, blocks)} ({reason})"
