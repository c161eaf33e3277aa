"""New names for old ones: segment an identifier into words, replace each word by a seeded
choice from the word list shipped with the package, keep the identifier's style.

The choice is injective and avoids every name the task already uses, Python's keywords and
builtins: a renamed identifier can never capture or collide with anything (docs/obfuseval.md).
"""

from __future__ import annotations

import builtins
import keyword
import random
import re
from collections.abc import Iterable
from functools import cache
from importlib import resources

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))


@cache
def word_list() -> tuple[str, ...]:
    """The shipped word list (data/words.txt): plain lower-case nouns, one a line."""
    text = (resources.files("beyondpass.methods.obfuseval") / "data" / "words.txt").read_text()
    return tuple(w for w in text.split() if w.isidentifier())


def segment(name: str) -> list[str]:
    """``has_closeElements2`` -> ``["has", "close", "Elements", "2"]``."""
    out: list[str] = []
    for part in name.strip("_").split("_"):
        out.extend(_CAMEL.findall(part))
    return out


def _style(name: str, words: list[str]) -> str:
    lead = name[: len(name) - len(name.lstrip("_"))]
    core = name.strip("_")
    if core.isupper() and len(core) > 1:
        body = "_".join(w.upper() for w in words)
    elif "_" not in core and core[:1].isupper():
        body = "".join(w[:1].upper() + w[1:] for w in words)
    elif "_" not in core and any(c.isupper() for c in core[1:]):  # camelCase
        body = words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
    else:
        body = "_".join(words)
    return lead + body


class NameMaker:
    """Seeded, injective old-name -> new-name choice for one task.

    The same old word always becomes the same new word (``max_num`` and ``num`` become
    ``river_lamp`` and ``lamp``), so the description reads consistently.
    """

    def __init__(self, seed: str, taken: Iterable[str]) -> None:
        self.rng = random.Random(seed)
        self.taken = set(taken) | RESERVED
        self.words: dict[str, str] = {}
        lowered = {t.lower() for t in self.taken}
        self.pool = [w for w in word_list() if w not in lowered]
        self.rng.shuffle(self.pool)
        self.used: set[str] = set()
        self.spare = 0

    def _word(self, old: str) -> str:
        key = old.lower()
        if key not in self.words:
            if self.pool:
                self.words[key] = self.pool.pop()
            else:  # more distinct words than the list holds: number them
                self.spare += 1
                self.words[key] = f"{word_list()[self.spare % len(word_list())]}{self.spare}"
        return self.words[key]

    def new_name(self, old: str) -> str:
        parts = segment(old) or ["x"]
        words = [p if p.isdigit() else self._word(p) for p in parts]
        if words[0].isdigit():
            words.insert(0, self._word("_lead"))
        candidate = _style(old, words)
        n = 1
        while candidate in self.taken or candidate in self.used:
            n += 1
            candidate = f"{_style(old, words)}{n}"
        self.used.add(candidate)
        return candidate
