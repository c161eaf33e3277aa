"""Creating a review study from a run: items, assignments, tokens, self-identification.

An *item* is one task (benchmark, task, condition, sample index) answered by both models of
a pair; a study may review several pairs (``--pair`` repeated), e.g. every pair of three
models, which the results rank with a Bradley-Terry model. Each item goes to ``overlap``
reviewers (round robin over a seeded item order, so the load is even and agreement can be
measured); each reviewer sees ``repeat`` of their items a second time at the end
(intra-rater consistency). Which model is on the left is drawn per reviewer and item from
the study seed and recorded (``assignments.swapped``).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError, DataError
from beyondpass.store.run_store import RunStore

from . import db, repository

#: vendor and model names a solution may reveal itself with ("As ChatGPT, ...")
VENDOR_WORDS = (
    "chatgpt",
    "gpt-?[0-9o]",
    "openai",
    "copilot",
    "codex",
    "claude",
    "anthropic",
    "gemini",
    "bard",
    "llama",
    "mistral",
    "mixtral",
    "deepseek",
    "qwen",
    "starcoder",
    "codegen",
    "phi-?[0-9]",
    "as an ai",
    "language model",
)


@dataclass
class CreatedStudy:
    links: dict[str, str]  # reviewer name -> personal path (/r/<token>)
    items: int
    assignments: int
    flagged: list[dict[str, Any]] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)


def identity_patterns(meta: dict[str, Any], models: Sequence[str]) -> list[str]:
    """Regexes for text that names a model: vendor words plus the run's own model labels
    and the model names in their specs (a label like ``gpt-4o`` is itself a giveaway)."""
    patterns = [rf"\b{w}" for w in VENDOR_WORDS]
    models = meta.get("models") or {}
    for label in models:
        words = {label}
        identity = (models.get(label) or {}).get("identity") or {}
        if identity.get("provider") != "replay":  # a replay's "model" is a file path
            words.add(str(identity.get("model") or ""))
        patterns += [rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in words if len(w) >= 3]
    return patterns


def find_identity(text: str, patterns: Sequence[str]) -> list[str]:
    """The patterns that match ``text`` (case-insensitive)."""
    return [p for p in patterns if re.search(p, text, re.IGNORECASE)]


def _task_text(sample: Any) -> str:
    """The prompt the model was given (the task description the reviewer must read)."""
    for step in sample.transcript or []:
        for message in step.get("messages", []):
            if message.get("role") == "user":
                return str(message.get("content", ""))
    return ""


def _solution(sample: Any) -> str:
    return sample.code or sample.program or sample.raw


def _check_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for a, b in pairs:
        if a == b:
            raise ConfigError("--pair needs two different models")
        if (a, b) in out or (b, a) in out:
            raise ConfigError(f"--pair {a} {b} is given twice")
        out.append((a, b))
    if not out:
        raise ConfigError("give at least one --pair MODEL_A MODEL_B")
    return out


Key = tuple[str, str, str, int]  # benchmark, task, condition, sample index
Pair = tuple[str, str]


@dataclass
class Screened:
    """The items that go into a study after the identity screen, ready to be written."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    flagged: list[dict[str, Any]] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    # (index into rows, side, pattern, count, sha256 of the text before)
    redactions: list[tuple[int, str, str, int, str]] = field(default_factory=list)


#: reviewers per item unless asked otherwise
DEFAULT_OVERLAP = 2


def create_study(
    run_dir: str | Path,
    pairs: Sequence[tuple[str, str]],
    *,
    tasks: Sequence[str] = (),
    reviewers: int = 3,
    overlap: int | None = None,
    repeat: int = 0,
    min_pass_rate: float = 0.75,
    seed: int = 0,
    redact: bool = False,
) -> CreatedStudy:
    """Build the study in ``run_dir/review.sqlite3`` and return each reviewer's link.

    The steps: check the options, choose the items both models of a pair answered, screen
    them for text naming a model, deal them to reviewers in a seeded order, write it all."""
    run_dir = Path(run_dir)
    pairs = _check_pairs(pairs)
    if overlap is None:  # two reviewers per item, or every reviewer when there are fewer
        overlap = min(DEFAULT_OVERLAP, max(reviewers, 1))
    _check_options(reviewers, overlap, repeat, min_pass_rate)
    models = list(dict.fromkeys(m for pair in pairs for m in pair))
    meta, samples = _load_run(run_dir, models)
    by_key, chosen = _choose_items(samples, pairs, models, tasks)
    patterns = identity_patterns(meta, models)
    screened = _screen(by_key, chosen, patterns, several_pairs=len(pairs) > 1, redact=redact)
    per_reviewer = _deal(len(screened.rows), reviewers, overlap, seed)
    study = {
        "pairs": [list(pair) for pair in pairs],
        "tasks": sorted(set(tasks)),
        "reviewers": reviewers,
        "overlap": overlap,
        "repeat": repeat,
        "min_pass_rate": min_pass_rate,
        "seed": seed,
        "redact": redact,
        "created_at": db.now(),
        "identity_patterns": patterns,
        "excluded": screened.excluded,
        "flagged": screened.flagged,
    }
    links, n_assign = _write(run_dir, screened, per_reviewer, repeat=repeat, seed=seed, study=study)
    return CreatedStudy(links, len(screened.rows), n_assign, screened.flagged, screened.excluded)


def _check_options(reviewers: int, overlap: int, repeat: int, min_pass_rate: float) -> None:
    if reviewers < 1:
        raise ConfigError("--reviewers must be at least 1")
    if not 1 <= overlap <= reviewers:
        raise ConfigError(f"--overlap must be between 1 and the number of reviewers ({reviewers})")
    if repeat < 0:
        raise ConfigError("--repeat must not be negative")
    if not 0.0 <= min_pass_rate <= 1.0:
        raise ConfigError("--min-pass-rate must be between 0 and 1")


def _load_run(run_dir: Path, models: Sequence[str]) -> tuple[dict[str, Any], list[Any]]:
    """The run's metadata and samples; refused if a study exists (its ratings would be lost)
    or the run lacks a reviewed model."""
    if db.db_path(run_dir).exists():
        raise DataError(
            f"{run_dir} already has a review study ({db.DB_NAME}); its ratings would be lost — "
            "move that file away to start another"
        )
    if not (run_dir / "run.sqlite3").exists():
        raise DataError(f"{run_dir} is not a run directory (no run.sqlite3)")
    with RunStore(run_dir, create=False) as store:
        meta = store.all_meta()
        samples = [row.sample for row in store.rows()]
    present = sorted({s.model for s in samples})
    for model in models:
        if model not in present:
            raise DataError(f"run has no model {model!r} (models: {', '.join(present) or 'none'})")
    return meta, samples


def _choose_items(
    samples: Sequence[Any], pairs: Sequence[Pair], models: Sequence[str], tasks: Sequence[str]
) -> tuple[dict[Key, dict[str, Any]], list[tuple[Key, Pair]]]:
    """The samples by key and model, and the (key, pair) items: every key (of ``tasks``,
    if given) both models of a pair answered, pair by pair, keys in sorted order."""
    by_key: dict[Key, dict[str, Any]] = {}
    for s in samples:
        if s.model in models:
            by_key.setdefault((s.benchmark, s.task_id, s.condition, s.sample_index), {})[
                s.model
            ] = s
    wanted = set(tasks)
    unknown = wanted - {k[1] for k in by_key}
    if unknown:
        raise DataError(f"unknown task(s) for the reviewed models: {', '.join(sorted(unknown))}")
    chosen = [
        (key, pair)
        for pair in pairs
        for key in sorted(by_key)
        if all(m in by_key[key] for m in pair) and (not wanted or key[1] in wanted)
    ]
    for pair in pairs:
        if not any(p == pair for _, p in chosen):
            raise DataError(f"no task has answers from both {pair[0]} and {pair[1]}")
    return by_key, chosen


def _screen(
    by_key: dict[Key, dict[str, Any]],
    chosen: Sequence[tuple[Key, Pair]],
    patterns: Sequence[str],
    *,
    several_pairs: bool,
    redact: bool,
) -> Screened:
    """The item rows, with solutions that name a model flagged and then excluded, or with
    ``redact`` redacted (what was removed is recorded, with a hash of the text before)."""
    out = Screened()
    for key, pair in chosen:
        a, b = by_key[key][pair[0]], by_key[key][pair[1]]
        texts = {"a": _solution(a), "b": _solution(b)}
        label = f"{key[0]}/{key[1]} [{key[2]}#{key[3]}]"
        if several_pairs:
            label += f" {pair[0]}/{pair[1]}"
        hits = {side: find_identity(text, patterns) for side, text in texts.items()}
        flags = [{"side": side, "patterns": found} for side, found in hits.items() if found]
        if flags:
            out.flagged.append({"item": label, "flags": flags})
            if not redact:
                out.excluded.append(label)
                continue
            for side, pattern, count, sha in _redact(texts, hits):
                out.redactions.append((len(out.rows), side, pattern, count, sha))
        out.rows.append(
            (*key, a.key, b.key, _task_text(a), texts["a"], texts["b"], flags, pair[0], pair[1])
        )
    if not out.rows:
        raise DataError("every item names a model; pass --redact to redact them")
    return out


def _redact(texts: dict[str, str], hits: dict[str, list[str]]) -> list[tuple[str, str, int, str]]:
    """Replace each match in ``texts`` (in place); (side, pattern, count, sha256 before)."""
    done: list[tuple[str, str, int, str]] = []
    for side, found in hits.items():
        for pattern in found:
            original = texts[side]
            texts[side], count = re.subn(pattern, "[redacted]", original, flags=re.IGNORECASE)
            done.append((side, pattern, count, hashlib.sha256(original.encode()).hexdigest()))
    return done


def _deal(n_items: int, reviewers: int, overlap: int, seed: int) -> list[list[int]]:
    """Each reviewer's items (row indices): round robin over a seeded order, each item to
    ``overlap`` consecutive reviewers, so the load is even."""
    rng = random.Random(f"review:{seed}")
    order = list(range(n_items))
    rng.shuffle(order)
    per_reviewer: list[list[int]] = [[] for _ in range(reviewers)]
    for slot, item in enumerate(order):
        for k in range(overlap):
            per_reviewer[(slot + k) % reviewers].append(item)
    return per_reviewer


def _reviewer_order(
    items: Sequence[int], repeat: int, seed: int, name: str
) -> list[tuple[int, int]]:
    """A reviewer's list as (item, repeat flag): their items in a seeded order of their own,
    then ``repeat`` of them again, shuffled."""
    personal = random.Random(f"review:{seed}:{name}")
    sequence = list(items)
    personal.shuffle(sequence)
    repeats = personal.sample(sequence, min(repeat, len(sequence)))
    personal.shuffle(repeats)
    return [(i, 0) for i in sequence] + [(i, 1) for i in repeats]


def _swapped(seed: int, name: str, item_id: int, rep: int) -> bool:
    """Whether model B is shown on the left: drawn per reviewer, item and showing."""
    return random.Random(f"review:{seed}:{name}:{item_id}:{rep}").random() < 0.5


def _write(
    run_dir: Path,
    screened: Screened,
    per_reviewer: Sequence[Sequence[int]],
    *,
    repeat: int,
    seed: int,
    study: dict[str, Any],
) -> tuple[dict[str, str], int]:
    """Create the database with everything in one transaction; each reviewer's personal
    link and the number of assignments."""
    links: dict[str, str] = {}
    n_assign = 0
    with db.connect(run_dir, create=True) as conn, db.transaction(conn):
        ids = [repository.add_item(conn, row) for row in screened.rows]
        for index, side, pattern, count, sha in screened.redactions:
            repository.add_redaction(conn, ids[index], side, pattern, count, sha)
        for r, items in enumerate(per_reviewer):
            name = f"reviewer-{r + 1}"
            rid, token = repository.add_reviewer(conn, name)
            links[name] = f"/r/{token}"
            order = _reviewer_order(items, repeat, seed, name)
            for position, (item, rep) in enumerate(order, start=1):
                swapped = _swapped(seed, name, ids[item], rep)
                repository.add_assignment(conn, rid, position, ids[item], rep, swapped)
                n_assign += 1
        db.set_meta(conn, "study", study)
    return links, n_assign


def revoke(run_dir: str | Path, reviewer: str, *, reissue: bool = False) -> str | None:
    """Revoke a reviewer's link; with ``reissue`` give them a new one (their ratings stay)."""
    with db.connect(run_dir) as conn, db.transaction(conn):
        rid = repository.reviewer_id(conn, reviewer)
        if rid is None:
            names = repository.reviewer_names(conn)
            raise DataError(f"no reviewer {reviewer!r} (reviewers: {', '.join(names)})")
        if not reissue:
            repository.revoke_token(conn, rid)
            return None
        return f"/r/{repository.reissue_token(conn, rid)}"
