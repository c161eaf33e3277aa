"""DiffBLEU (NoFunEval): BLEU between the edit a model made and the edit the commit made.

Both edits are ``git diff -U0 --no-index --ignore-all-space --ignore-blank-lines`` of the
source program against the edited one, after comments and blank lines are removed; the
diff's four file-header lines and git's "No newline at end of file" markers are dropped,
hunk headers (``@@ -3,2 +3 @@ funcname``) are kept and scored like code. Both diffs are
split with NLTK's ``wordpunct_tokenize`` and compared with ``sentence_bleu`` (smoothing
method 1). A generation that is empty after comment stripping scores 0, and so does a
no-op edit (its diff is empty). Quirks kept on purpose are listed in docs/nofuneval.md.

git is called rather than reimplemented: its hunk boundaries and function-context headings
are part of the score and no Python diff reproduces them.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
import tokenize
import warnings
from dataclasses import dataclass
from typing import Any

from beyondpass.errors import ConfigError

#: languages whose comments are ``/* */`` and ``//`` (NoFunEval's list, lower-cased names)
C_FAMILY = frozenset({"java", "javascript", "scala", "kotlin", "c++", "c", "ino", "objectivec"})
_C_COMMENTS = r"\/\*[\s\S]*?\*\/|\/\/[^\n]*"
#: the authors' patterns, verbatim (the assembly one's ``\/*`` is "any number of slashes")
_PATTERNS = {
    "assembly": r";.*|\#.*|\/*[\s\S]*?\*\/",
    "javascript xml": r"\/\*[\s\S]*?\*\/|\/\/[^\n]*|<!--.*?-->",
    "python-fallback": r"\'{3}[\s\S]*?\'{3}|\"{3}[\s\S]*?\"{3}|\#[^\n]*",
}
GIT_DIFF = ("diff", "-U0", "--no-index", "--ignore-all-space", "--ignore-blank-lines")


def strip_python_comments(code: str) -> str:
    """Drop comments and statement-position strings (docstrings), keeping token columns.

    Follows the token walk NoFunEval uses: a string token is kept only when it does not
    start a logical line (previous token neither INDENT nor NEWLINE) and is not in column 0.
    """
    out: list[str] = []
    prev_type = tokenize.INDENT
    last_line, last_col = -1, 0
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        (start_line, start_col), (end_line, end_col) = tok.start, tok.end
        if start_line > last_line:
            last_col = 0
        if start_col > last_col:
            out.append(" " * (start_col - last_col))
        if tok.type == tokenize.STRING:
            if prev_type not in (tokenize.INDENT, tokenize.NEWLINE) and start_col > 0:
                out.append(tok.string)
        elif tok.type != tokenize.COMMENT:
            out.append(tok.string)
        prev_type = tok.type
        last_line, last_col = end_line, end_col
    return "".join(out)


def strip_comments(code: str, language: str) -> str:
    """Remove comments as NoFunEval does for ``language`` (case-insensitive)."""
    lang = language.lower()
    if lang == "python":
        try:
            return strip_python_comments(code)
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pattern = _PATTERNS["python-fallback"]
    elif lang in C_FAMILY:
        pattern = _C_COMMENTS
    elif lang in _PATTERNS:
        pattern = _PATTERNS[lang]
    else:
        raise ConfigError(f"DiffBLEU: no comment syntax known for language {language!r}")
    return re.sub(pattern, "", code)


def drop_blank_lines(code: str) -> str:
    return "\n".join(line for line in code.split("\n") if line.strip())


def normalise(code: str, language: str) -> str:
    """What DiffBLEU compares: comments and blank lines removed."""
    return drop_blank_lines(strip_comments(code, language))


def git_version() -> str:
    git = shutil.which("git")
    if git is None:
        raise ConfigError("DiffBLEU needs git on PATH (apt-get install git)")
    return subprocess.run([git, "--version"], capture_output=True, text=True).stdout.strip()


def edit_diff(before: str, after: str, workdir: str) -> str:
    """The scored diff text of two normalised programs (header and EOF markers dropped)."""
    a = os.path.join(workdir, "a")
    b = os.path.join(workdir, "b")
    for path, text in ((a, before), (b, after)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": workdir,
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }
    proc = subprocess.run(
        ["git", "--no-pager", *GIT_DIFF[:1], "--no-color", "--no-ext-diff", *GIT_DIFF[1:], a, b],
        capture_output=True,
        cwd=workdir,
        env=env,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"git diff failed: {proc.stderr.decode(errors='replace').strip()}")
    lines = proc.stdout.decode("utf-8", errors="replace").splitlines(keepends=True)[4:]
    return "".join(line for line in lines if "No newline at end of file" not in line)


#: (source, target, language) -> the normalised source and the reference edit's tokens:
#: every answer to a row (prompts, models, samples, runs of this process) shares them
_REFERENCES: dict[tuple[str, str, str], tuple[str, list[str]]] = {}
#: (source, target, normalised generation, language) -> DiffBLEU: the same program scored
#: again (both readings of an answer read alike; ``nofuneval table1``'s two runs per file)
_SCORES: dict[tuple[str, str, str, str], float] = {}
#: a bound on each, not a policy: rows come in order, so a full cache is simply cleared
_CACHE_LIMIT = 8192


def _bounded(cache: dict[Any, Any]) -> dict[Any, Any]:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    return cache


@dataclass
class DiffBleu:
    """Scores edits; one scratch directory for all calls (use as a context manager).
    DiffBLEU is a pure function of its four strings (git and nltk fixed for the process),
    so reference edits and scores are kept for the process, across scorers."""

    def __post_init__(self) -> None:
        git_version()
        self._tmp = tempfile.TemporaryDirectory(prefix="beyondpass-diffbleu-")

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> DiffBleu:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def score(self, source: str, target: str, generation: str, language: str) -> float:
        from nltk.tokenize import wordpunct_tokenize
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        gen = normalise(generation, language)
        if gen.strip() == "":
            return 0.0
        scored = (source, target, gen, language)
        if scored in _SCORES:
            return _SCORES[scored]
        key = (source, target, language)
        if key not in _REFERENCES:
            src = normalise(source, language)
            diff = edit_diff(src, normalise(target, language), self._tmp.name)
            _bounded(_REFERENCES)[key] = (src, wordpunct_tokenize(diff))
        src, ref = _REFERENCES[key]
        hyp = wordpunct_tokenize(edit_diff(src, gen, self._tmp.name))
        with warnings.catch_warnings():  # nltk warns (and returns 0) when nothing matches
            warnings.simplefilter("ignore")
            score = float(sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method1))
        _bounded(_SCORES)[scored] = score
        return score


def diff_bleu(source: str, target: str, generation: str, language: str) -> float:
    """DiffBLEU of one generation (convenience; batch scoring should reuse :class:`DiffBleu`)."""
    with DiffBleu() as scorer:
        return scorer.score(source, target, generation, language)
