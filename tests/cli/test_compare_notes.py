"""``compare``'s notes on what differs between two runs besides the model (reported, not
fatal): here, runs whose execution times were taken by different timing methods."""

from __future__ import annotations

import pytest

from beyondpass.analysis.compare_section import ComparedRun
from beyondpass.api.comparisons import design_notes as _design_notes


@pytest.mark.parametrize(
    ("old_timing", "new_timing", "noted"),
    [
        ({"version": 1, "chunks": 4}, {"version": 1, "chunks": 4}, False),
        ({"version": 1, "chunks": 4}, {"version": 2, "chunks": 8}, True),
        (None, {"version": 1, "chunks": 4}, True),  # a run from before the method was recorded
    ],
)
def test_runs_timed_differently_are_noted(old_timing, new_timing, noted):
    def run(timing):
        executor = {"timing_repeats": 5, **({"timing": timing} if timing else {})}
        return ComparedRun("run", {"executor": executor}, [], seed=0, alpha=0.05)

    notes = _design_notes(run(old_timing), run(new_timing))
    assert any("timed calls differently" in n for n in notes) is noted


def test_runs_without_times_get_no_timing_note():
    untimed = ComparedRun("run", {}, [], seed=0, alpha=0.05)
    assert _design_notes(untimed, untimed) == []
