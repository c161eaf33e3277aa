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
import json
import random
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beyondpass.errors import ConfigError, DataError
from beyondpass.store.run_store import RunStore

from . import db

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


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


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


def create_study(
    run_dir: str | Path,
    pairs: Sequence[tuple[str, str]],
    *,
    tasks: Sequence[str] = (),
    reviewers: int = 3,
    overlap: int = 2,
    repeat: int = 0,
    min_pass_rate: float = 0.75,
    seed: int = 0,
    redact: bool = False,
) -> CreatedStudy:
    """Build the study in ``run_dir/review.sqlite3`` and return each reviewer's link."""
    run_dir = Path(run_dir)
    pairs = _check_pairs(pairs)
    if reviewers < 1:
        raise ConfigError("--reviewers must be at least 1")
    if not 1 <= overlap <= reviewers:
        raise ConfigError(f"--overlap must be between 1 and the number of reviewers ({reviewers})")
    if repeat < 0:
        raise ConfigError("--repeat must not be negative")
    if not 0.0 <= min_pass_rate <= 1.0:
        raise ConfigError("--min-pass-rate must be between 0 and 1")
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
    models = list(dict.fromkeys(m for pair in pairs for m in pair))
    for model in models:
        if model not in present:
            raise DataError(f"run has no model {model!r} (models: {', '.join(present) or 'none'})")

    by_key: dict[tuple[str, str, str, int], dict[str, Any]] = {}
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

    patterns = identity_patterns(meta, models)
    rows: list[tuple[Any, ...]] = []
    flagged: list[dict[str, Any]] = []
    excluded: list[str] = []
    redactions: list[tuple[int, str, str, int, str]] = []
    for key, pair in chosen:
        a, b = by_key[key][pair[0]], by_key[key][pair[1]]
        texts = {"a": _solution(a), "b": _solution(b)}
        label = f"{key[0]}/{key[1]} [{key[2]}#{key[3]}]"
        if len(pairs) > 1:
            label += f" {pair[0]}/{pair[1]}"
        hits = {side: find_identity(text, patterns) for side, text in texts.items()}
        flags = [{"side": side, "patterns": found} for side, found in hits.items() if found]
        if flags:
            flagged.append({"item": label, "flags": flags})
            if not redact:
                excluded.append(label)
                continue
            for side, found in hits.items():
                for pattern in found:
                    original = texts[side]
                    texts[side], count = re.subn(
                        pattern, "[redacted]", original, flags=re.IGNORECASE
                    )
                    sha = hashlib.sha256(original.encode()).hexdigest()
                    redactions.append((len(rows), side, pattern, count, sha))
        rows.append(
            (*key, a.key, b.key, _task_text(a), texts["a"], texts["b"], flags, pair[0], pair[1])
        )
    if not rows:
        raise DataError("every item names a model; pass --redact to redact them")

    rng = random.Random(f"review:{seed}")
    order = list(range(len(rows)))
    rng.shuffle(order)
    per_reviewer: list[list[int]] = [[] for _ in range(reviewers)]
    for slot, item in enumerate(order):
        for k in range(overlap):
            per_reviewer[(slot + k) % reviewers].append(item)

    links: dict[str, str] = {}
    n_assign = 0
    with db.connect(run_dir, create=True) as conn, db.transaction(conn):
        ids = []
        for row in rows:
            cur = conn.execute(
                "INSERT INTO items(benchmark, task_id, condition, sample_index, key_a, key_b, "
                "task_text, code_a, code_b, flags, model_a, model_b) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (*row[:9], json.dumps(row[9]), *row[10:]),
            )
            ids.append(cur.lastrowid)
        for index, side, pattern, count, sha in redactions:
            conn.execute(
                "INSERT INTO redactions VALUES (?,?,?,?,?,?)",
                (ids[index], side, pattern, count, sha, db.now()),
            )
        for r, items in enumerate(per_reviewer):
            name = f"reviewer-{r + 1}"
            token = secrets.token_urlsafe(24)
            rid = conn.execute(
                "INSERT INTO reviewers(name, token_hash) VALUES (?, ?)", (name, hash_token(token))
            ).lastrowid
            links[name] = f"/r/{token}"
            personal = random.Random(f"review:{seed}:{name}")
            sequence = list(items)
            personal.shuffle(sequence)
            repeats = personal.sample(sequence, min(repeat, len(sequence)))
            personal.shuffle(repeats)
            for position, (item, rep) in enumerate(
                [(i, 0) for i in sequence] + [(i, 1) for i in repeats], start=1
            ):
                swapped = random.Random(f"review:{seed}:{name}:{ids[item]}:{rep}").random() < 0.5
                conn.execute(
                    "INSERT INTO assignments(reviewer_id, position, item_id, repeat, swapped) "
                    "VALUES (?,?,?,?,?)",
                    (rid, position, ids[item], rep, int(swapped)),
                )
                n_assign += 1
        db.set_meta(
            conn,
            "study",
            {
                "pairs": [list(pair) for pair in pairs],
                "tasks": sorted(wanted),
                "reviewers": reviewers,
                "overlap": overlap,
                "repeat": repeat,
                "min_pass_rate": min_pass_rate,
                "seed": seed,
                "redact": redact,
                "created_at": db.now(),
                "identity_patterns": patterns,
                "excluded": excluded,
                "flagged": flagged,
            },
        )
    return CreatedStudy(links, len(rows), n_assign, flagged, excluded)


def revoke(run_dir: str | Path, reviewer: str, *, reissue: bool = False) -> str | None:
    """Revoke a reviewer's link; with ``reissue`` give them a new one (their ratings stay)."""
    with db.connect(run_dir) as conn, db.transaction(conn):
        row = conn.execute("SELECT id FROM reviewers WHERE name=?", (reviewer,)).fetchone()
        if row is None:
            names = [r[0] for r in conn.execute("SELECT name FROM reviewers ORDER BY id")]
            raise DataError(f"no reviewer {reviewer!r} (reviewers: {', '.join(names)})")
        if not reissue:
            conn.execute("UPDATE reviewers SET revoked_at=? WHERE id=?", (db.now(), row[0]))
            return None
        token = secrets.token_urlsafe(24)
        conn.execute(
            "UPDATE reviewers SET token_hash=?, revoked_at=NULL WHERE id=?",
            (hash_token(token), row[0]),
        )
        return f"/r/{token}"
