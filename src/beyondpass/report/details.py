"""The per-sample drill-down of the HTML report, kept bounded for large runs.

A run with up to :data:`FULL_DETAILS_UP_TO` samples gets every sample's details; larger runs
get every non-passing sample plus the first few passing ones per group, within a count and a
text budget. Texts are clipped per field.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from beyondpass.analysis.meta import as_dict
from beyondpass.report.model import BenchmarkResults, Detail, Step
from beyondpass.report.plots import NOT_EVALUATED, css_class, status_of
from beyondpass.report.text import as_text, clip, fmt
from beyondpass.store.run_store import Row

FULL_DETAILS_UP_TO = 400
PASSING_DETAILS_PER_GROUP = 2
MAX_DETAILS = 1500
DETAIL_CHAR_BUDGET = 2_000_000
CLIP_CHARS = 4000
TAIL_CHARS = 1500
TEST_MESSAGE_CHARS = 500
MAX_FAILING_TESTS = 10


def sample_detail(row: Row, anchor: str, broken: dict[str, str]) -> Detail:
    s, res = row.sample, row.result
    status = status_of(row)
    details = as_dict(res.details) if res else {}
    metrics = as_dict(res.metrics) if res else {}
    gen = as_dict(s.generation)
    facts = []
    for key in ("model_version", "finish_reason", "cached"):
        if key in gen:
            facts.append((key.replace("_", " "), fmt(gen[key])))
    if gen.get("usage"):
        facts.append(("usage", fmt(gen["usage"])))
    if "tests_run" in metrics:
        facts.append(
            ("tests passed", f"{fmt(metrics.get('tests_passed'))}/{fmt(metrics['tests_run'])}")
        )
    for key, value in metrics.items():
        if key not in ("tests_passed", "tests_run"):
            facts.append((key, fmt(value)))
    if "wall_s" in details:
        facts.append(("wall time (s)", fmt(details["wall_s"])))

    ext = as_dict(s.extraction)
    extraction = [(k, fmt(ext[k])) for k in ("status", "kind") if k in ext]
    notes = ext.get("notes")
    notes_list = (
        [as_text(n) for n in notes]
        if isinstance(notes, list)
        else ([as_text(notes)] if notes else [])
    )

    tests = details.get("tests")
    failing = (
        [as_dict(t) for t in tests if as_dict(t).get("status") != "passed"]
        if isinstance(tests, list)
        else []
    )
    shown_tests = [
        {
            "name": as_text(t.get("name")),
            "status": as_text(t.get("status")),
            "error_type": as_text(t.get("error_type")),
            "message": clip(as_text(t.get("message")), TEST_MESSAGE_CHARS).text,
        }
        for t in failing[:MAX_FAILING_TESTS]
    ]
    message = as_text(details.get("message"))
    if not message and status == NOT_EVALUATED:
        message = "not evaluated yet"
    detail = Detail(
        anchor=anchor,
        key=s.key,
        task=s.task_id,
        broken=s.task_id in broken,
        group=f"{s.model} / {s.condition}",
        index=s.sample_index,
        status=status,
        cls=css_class(status),
        message=clip(" ".join(message.split()), 300).text,
        facts=facts,
        steps=transcript_steps(s.transcript, s.raw),
        raw=clip(s.raw, CLIP_CHARS),
        code=clip(s.code, CLIP_CHARS),
        extraction=extraction,
        extraction_error=clip(as_text(ext.get("error")), CLIP_CHARS),
        extraction_notes=[clip(n, TEST_MESSAGE_CHARS).text for n in notes_list[:20]],
        tests=shown_tests,
        tests_omitted=max(len(failing) - MAX_FAILING_TESTS, 0),
        stdout=clip(as_text(details.get("stdout")), TAIL_CHARS, tail=True),
        stderr=clip(as_text(details.get("stderr")), TAIL_CHARS, tail=True),
    )
    detail.cost = 400 + sum(
        len(c.text)
        for c in (detail.raw, detail.code, detail.extraction_error, detail.stdout, detail.stderr)
    )
    detail.cost += sum(len(c.text) for st in detail.steps for _, c in st.messages)
    detail.cost += sum(len(st.answer.text) for st in detail.steps if st.answer)
    detail.cost += sum(len(t["message"]) + len(t["name"]) for t in shown_tests)
    return detail


def transcript_steps(transcript: Any, raw: str) -> list[Step]:
    """Every step's messages; a step that continues the previous conversation shows only what
    it adds, and the final answer is shown once (as the raw answer)."""
    if not isinstance(transcript, list):
        return []
    steps: list[Step] = []
    previous: list[tuple[str, str]] = []
    for i, step in enumerate(transcript):
        step = as_dict(step)
        messages = [
            (as_text(m.get("role")) or "?", as_text(m.get("content")))
            for m in (step.get("messages") or [])
            if isinstance(m, dict)
        ]
        continued = bool(previous) and messages[: len(previous)] == previous
        shown = messages[len(previous) :] if continued else messages
        answer = step.get("answer")
        answer_text = as_text(answer) if answer is not None else None
        is_last = i == len(transcript) - 1
        steps.append(
            Step(
                title=f"{i + 1}: {name}" if (name := as_text(step.get("step"))) else str(i + 1),
                continued=continued,
                messages=[(role, clip(content, CLIP_CHARS)) for role, content in shown],
                answer=(
                    clip(answer_text, CLIP_CHARS)
                    if answer_text is not None and not (is_last and answer_text == raw)
                    else None
                ),
            )
        )
        previous = messages + ([("assistant", answer_text)] if answer_text is not None else [])
    return steps


def select_details(sections: list[BenchmarkResults], rows_total: int) -> str:
    """Keep the drill-down bounded: non-passing samples plus a few passing ones per group (all
    of them for small runs), within a count and a text budget."""
    everything = rows_total <= FULL_DETAILS_UP_TO
    failing = [d for sec in sections for d in sec.details if d.status != "passed"]
    passing: list[Detail] = []
    per_group: Counter[tuple[str, str]] = Counter()
    for sec in sections:
        for d in sec.details:
            if d.status == "passed":
                per_group[(sec.name, d.group)] += 1
                if everything or per_group[(sec.name, d.group)] <= PASSING_DETAILS_PER_GROUP:
                    passing.append(d)
    chosen: set[int] = set()
    spent = 0
    # small runs: failures first; large runs: the few passing examples first, as they are cheap
    for d in failing + passing if everything else passing + failing:
        if len(chosen) >= MAX_DETAILS or spent + d.cost > DETAIL_CHAR_BUDGET:
            continue
        chosen.add(id(d))
        spent += d.cost

    total_failing = len(failing)
    total_passing = sum(1 for sec in sections for d in sec.details if d.status == "passed")
    kept_failing = sum(id(d) in chosen for d in failing)
    kept_passing = sum(id(d) in chosen for d in passing)
    for sec in sections:
        kept = [d for d in sec.details if id(d) in chosen]
        by_key = {d.key: d.anchor for d in kept}
        sec.details = kept
        for mrow in sec.matrix:
            for cell in mrow.cells:
                for mark in cell.marks:
                    mark.href = by_key.get(mark.href.removeprefix("key:"), "")
                cell.href = next((m.href for m in cell.marks if m.href and m.cls != "s-passed"), "")
                cell.href = cell.href or next((m.href for m in cell.marks if m.href), "")
        n_fail = sum(d.status != "passed" for d in kept)
        sec.details_note = f"{len(kept)} samples shown ({n_fail} not passing)."

    parts = [
        f"Details are shown for {kept_failing} of {total_failing} non-passing samples and "
        f"{kept_passing} of {total_passing} passing samples"
    ]
    if not everything:
        parts.append(f"(passing samples: at most the first {PASSING_DETAILS_PER_GROUP} per group)")
    omitted = total_failing - kept_failing + total_passing - kept_passing
    note = " ".join(parts) + "."
    if omitted:
        note += (
            f" {omitted} samples are omitted to keep this page small; their verdicts are in the "
            "matrix and all data is in the run database."
        )
    note += (
        f" Long texts are clipped to {CLIP_CHARS} characters "
        f"(stdout/stderr: the last {TAIL_CHARS})."
    )
    return note


__all__ = ["sample_detail", "select_details", "transcript_steps"]
