"""The batch pool's generic parts: what a machine must have before it runs a batch."""

from __future__ import annotations

import os

import pytest

from beyondpass.analysers.process import analyser_sandboxes
from beyondpass.execution import BatchJob, LocalPool, NodeLacksTool
from beyondpass.execution.pool import check_needs
from beyondpass.execution.sandbox import level_works


def _items_doubled(_: None, items: list[int], ctx) -> list[int]:
    return [2 * i for i in items]


@pytest.fixture
def no_bwrap_here(monkeypatch):
    """This machine as a node without bubblewrap looks to the check (``shutil.which``): a
    PATH without it. The probe is cached per process, so it is forgotten before and after."""
    level_works.cache_clear()
    analyser_sandboxes.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    yield
    monkeypatch.undo()
    level_works.cache_clear()
    analyser_sandboxes.cache_clear()


def test_a_node_that_cannot_confine_as_the_run_records_refuses(no_bwrap_here) -> None:
    job = BatchJob(_items_doubled, None, "the static oracle", confinement="bwrap")
    with pytest.raises(NodeLacksTool) as caught:
        check_needs(job, "node-b (10.0.0.2)")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(
        "node node-b (10.0.0.2) cannot confine the analysers of the static oracle"
    )
    assert "at level bwrap as the run records" in message and "install bubblewrap" in message
    # a run that recorded no confinement asks for none
    check_needs(BatchJob(_items_doubled, None, "the static oracle"), "node-b")


def test_a_node_that_confines_as_the_run_records_runs_the_batch() -> None:
    if not level_works("bwrap"):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI must offer bubblewrap: install it")
        pytest.skip("bubblewrap does not work on this machine")
    job = BatchJob(_items_doubled, None, "doubling", confinement="bwrap")
    check_needs(job, "here")
    assert LocalPool().map(job, [1, 2, 3]) == [2, 4, 6]
