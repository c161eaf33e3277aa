"""Reading the edited program out of an answer (NoFunEdit).

Two readers:

- ``compat`` (NoFunEval's ``post_process_generations``): blank lines dropped, the text after
  the N-th ``Response:`` (N = 2 for the 1-shot and chain-of-thought prompts, whose example
  holds one ``Response:`` already; else 1) up to the next ``Instruction:``; then the first
  fenced block in it, without its info line. That is "template followed" (unless the block is
  empty). Otherwise the authors search for the largest tree-sitter-parsable span; beyondpass
  uses the robust reader below for that fallback (docs/nofuneval.md) and still counts the
  answer as "template not followed".
- ``robust`` (default): strips the echoed prompt when the answer starts with one of the row's
  prompts (an unknown echo: everything up to its last ``### Response:``), cuts a base
  model's continuation at the next ``### Instruction:``, takes the text after a
  ``### Response:`` (chain of thought: after the thought), reopens the fence a Base prompt
  ends inside, then prefers a fenced block in the row's language, else the longest fenced
  block, else an open fence to the end, else the whole text. "Template followed" means a
  closed fenced block was found.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from beyondpass.methods.nofuneval.extraction.echo import PROMPT_OPENING, echoed

#: prompt kinds whose prompt already holds one ``Response:`` (the example's)
TWO_RESPONSES = frozenset({"one_shot", "chain_of_thought", "one-shot"})

_FENCE = re.compile(r"^[ \t]*```([^\n`]*)\n(.*?)^[ \t]*```", re.S | re.M)
_OPEN_FENCE = re.compile(r"^[ \t]*```([^\n`]*)\n(.*)\Z", re.S | re.M)

#: info-string names per row language (lower-cased ``pl``)
LANG_TAGS = {
    "python": {"python", "py", "python3"},
    "java": {"java"},
    "kotlin": {"kotlin", "kt"},
    "scala": {"scala"},
    "c": {"c"},
    "c++": {"cpp", "c++", "cc"},
    "javascript": {"javascript", "js"},
    "javascript xml": {"jsx", "javascript", "js"},
    "objectivec": {"objectivec", "objc", "objective-c"},
    "ino": {"ino", "arduino", "cpp", "c++", "c"},
    "assembly": {"asm", "assembly", "nasm"},
}


@dataclass(frozen=True)
class Edited:
    code: str
    template_followed: bool


def drop_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip())


def published_answer(value: object) -> str:
    """The first answer of NoFunEval's ``generated_answers`` (a Python-list string)."""
    if isinstance(value, list):
        return str(value[0]) if value else ""
    text = str(value)
    if text.startswith("["):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        if isinstance(parsed, list):
            return str(parsed[0]) if parsed else ""
    return text


def compat_extract(answer: str, prompt_kind: str, language: str) -> Edited:
    """NoFunEval's reading of a completion (prompt echoed) — see the module docstring."""
    text = drop_blank_lines(answer)
    index = 2 if prompt_kind in TWO_RESPONSES else 1
    parts = text.split("Response:")
    if len(parts) > index:
        body = parts[index].strip().split("Instruction:")[0]
        after = "```".join(body.split("```")[1:])
        after = "\n".join(after.split("\n")[1:])
        if "```" in after:
            code = after.split("```")[0]
            return Edited(code, code != "")
    elif prompt_kind == "chain_of_thought":
        thought = text.split("Thought")
        if len(thought) > 2:
            rest = "```".join(thought[2].split("```")[1:])
            if "```" in rest:
                return Edited("\n".join(rest.split("```")[0].split("\n")[1:]), True)
            text = rest  # the authors' variable is overwritten before the fence test
    # template not followed: the text searched is the response part when there was one
    body = parts[index].strip().split("Instruction:")[0] if len(parts) > index else text
    if language.lower() in ("javascript xml", "ino", "assembly"):
        return Edited(drop_blank_lines(body.strip()), False)
    # the authors' un-escaping; their quote replacements are no-ops in Python, so omitted
    for escaped, plain in (("\\/\\/", "//"), ("\\/*", "/*"), ("*\\/", "*/")):
        body = body.replace(escaped, plain)
    from beyondpass.methods.nofuneval.extraction.parsable import largest_parsable

    found = largest_parsable(body, language)
    if found is None:  # no grammar here for this language
        found = robust_extract(answer, (), language).code
    return Edited(drop_blank_lines(found.strip()), False)


def _opens_inside_fence(text: str) -> bool:
    """The first fence in the text closes one: a completion of a prompt ending in ```lang."""
    idx = text.find("```")
    if idx < 0:
        return False
    before = text[text.rfind("\n", 0, idx) + 1 : idx]
    if before.strip():  # code and then ``` on the same line
        return True
    end = text.find("\n", idx)
    return text[idx + 3 : end if end >= 0 else len(text)].strip() == ""  # a bare ``` line


def robust_extract(answer: str, prompts: tuple[str, ...] = (), language: str = "") -> Edited:
    """Best effort: echoed prompt, prose around the code, several blocks, missing fences.

    ``prompts`` are the row's prompts: an answer that starts with one of them is the echo
    of that prompt followed by the completion.
    """
    text = answer.replace("\r\n", "\n")
    own = dict(enumerate(prompts))
    key = echoed(text, own)
    if key is not None:
        text = text[len(own[key]) :]
    elif text.lstrip().startswith(PROMPT_OPENING):  # echo of an unknown prompt
        text = text.rsplit("### Response:", 1)[-1]
    text = text.split("\n### Instruction:")[0]  # a base model writing the next example
    if "### Response:" in text:
        text = text.split("### Response:", 1)[1]
    if _opens_inside_fence(text):  # the prompt ended inside an open fence
        text = "```\n" + text
    blocks = [(m.group(1).strip().lower(), m.group(2)) for m in _FENCE.finditer(text)]
    if blocks:
        tags = LANG_TAGS.get(language.lower(), {language.lower()})
        same = [code for tag, code in blocks if tag in tags]
        return Edited(same[0] if same else max((c for _, c in blocks), key=len), True)
    opened = _OPEN_FENCE.search(text)
    if opened:
        body = opened.group(2)
        if "```" in body:  # closed at the end of a code line ("}```")
            return Edited(body.split("```")[0], True)
        return Edited(body, False)
    return Edited(text.strip("\n"), False)
