"""Project mode judges functions whose tests hand them more than data, in real sandboxes.

A small functional- and object-style project of our own (in the manner of toolz and
cachetools): its tests pass callbacks and key functions, classes as factories, iterators,
ranges and dates, take lazily from generators, pass sentinels and instances of classes
defined inside the test, raise from callbacks through the function, and keep functions in
``self``. Every task must be kept with every covering test, the project's own functions
spliced back must pass, and wrong or hostile answers must fail.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from beyondpass.execution import Sandboxes
from beyondpass.methods.obfuseval.project.runner import evaluate, prepare
from beyondpass.methods.obfuseval.project.spec import load_project
from beyondpass.methods.obfuseval.project.tasks import reference_answer
from beyondpass.methods.obfuseval.project.workspace import ProjectSandbox
from obfuseval_projects import NO_PLUGINS

FUNCTIONS = '''\
import datetime
import itertools

_missing = object()


def valmap(func, d):
    """Apply func to every value of d."""
    out = {}
    for key, value in d.items():
        out[key] = func(value)
    return out


def interleave(seqs):
    """Yield one item of each sequence in turn until all are exhausted."""
    iters = [iter(s) for s in seqs]
    while iters:
        alive = []
        for it in iters:
            try:
                yield next(it)
            except StopIteration:
                continue
            alive.append(it)
        iters = alive


def nth(n, seq):
    """The n-th item of seq (an iterator is consumed up to it)."""
    if isinstance(seq, (list, tuple, range)):
        return seq[n]
    return next(itertools.islice(seq, n, None))


def get(key, d, default=_missing):
    """d[key], or default when given; else KeyError."""
    if key in d:
        return d[key]
    if default is _missing:
        raise KeyError(key)
    return default


def excepts(exc, func, handler):
    """Call func; when it raises exc, return handler(the exception)."""
    try:
        return func()
    except exc as error:
        return handler(error)


def later(day, weeks):
    """The date weeks after day, and the span as a timedelta."""
    span = datetime.timedelta(weeks=weeks)
    return day + span, span


def groupby(key, seq):
    """Items of seq by key(item), in order."""
    out = {}
    for item in seq:
        out.setdefault(key(item), []).append(item)
    return out


class Pipeline:
    def __init__(self, *funcs):
        self.funcs = funcs

    def __call__(self, value):
        """Pass value through every function in turn."""
        for func in self.funcs:
            value = func(value)
        return value
'''

TESTS = """\
import datetime
import itertools

import pytest

from fun import Pipeline, excepts, get, groupby, interleave, later, nth, valmap


def test_valmap():
    assert valmap(lambda v: v * 2, {"a": 1, "b": 2}) == {"a": 2, "b": 4}
    assert valmap(str, {1: 1}) == {1: "1"}


def test_interleave_lazily():
    assert list(interleave([[1, 2, 3], "ab", ()])) == [1, "a", 2, "b", 3]
    endless = interleave([itertools.count(), itertools.repeat("x")])
    assert list(itertools.islice(endless, 5)) == [0, "x", 1, "x", 2]


def test_nth():
    assert nth(2, iter("abcd")) == "c"
    assert nth(3, range(10, 20)) == 13


def test_get_with_sentinels_and_local_objects():
    class Key:
        pass

    key, value = Key(), Key()
    assert get(key, {key: value}) is value
    marker = object()
    assert get("x", {}, marker) is marker
    with pytest.raises(KeyError):
        get("x", {})


def test_excepts_runs_the_callback_and_its_errors_through():
    class Oops(Exception):
        pass

    def fail():
        raise Oops("no")

    assert excepts(Oops, fail, lambda e: ("caught", str(e))) == ("caught", "no")
    with pytest.raises(Oops):
        excepts(ValueError, fail, repr)


def test_later():
    day = datetime.date(2024, 2, 20)
    assert later(day, 2) == (datetime.date(2024, 3, 5), datetime.timedelta(days=14))


def test_groupby_with_a_key_function():
    assert groupby(len, ["a", "bb", "c"]) == {1: ["a", "c"], 2: ["bb"]}


def test_pipeline_keeps_functions_in_self():
    assert Pipeline(str.strip, str.upper, lambda s: s + "!")("  hi ") == "HI!"
"""

#: task -> an answer that is wrong for its tests (each must fail)
WRONG = {
    "fun.valmap": "def valmap(func, d):\n    return dict(d)\n",
    "fun.interleave": "def interleave(seqs):\n    return list(seqs)\n",
    "fun.excepts": "def excepts(exc, func, handler):\n    return handler(None)\n",
    "fun.Pipeline.__call__": "def __call__(self, value):\n    return value\n",
}
#: answers that use what they were handed in ways the boundary refuses, or look for a way
#: to pass without computing: every one fails
HOSTILE = {
    "fun.valmap": (
        "def valmap(func, d):\n"
        "    g = getattr(func, '__globals__', None) or {}\n"
        "    return {k: g.get('expected', v) for k, v in d.items()}\n"
    ),
    "fun.groupby": (
        "def groupby(key, seq):\n"
        "    class Anything:\n"
        "        def __eq__(self, other):\n"
        "            return True\n"
        "        def __hash__(self):\n"
        "            return 0\n"
        "    return {key(Anything()): list(seq)}\n"
    ),
    "fun.excepts": (
        "def excepts(exc, func, handler):\n"
        "    import sys\n"
        "    frame = sys._getframe()\n"
        "    while frame is not None:\n"
        "        frame.f_locals.get('handler', None)\n"
        "        frame = frame.f_back\n"
        "    return handler.__closure__\n"
    ),
    "fun.get": (
        "def get(key, d, default=None):\n    return type(key).__dict__.get('answer', default)\n"
    ),
}
#: a generator that never ends, where the test drains it: a timeout of the run, not a hang
ENDLESS = "def interleave(seqs):\n    while True:\n        yield 0\n"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    root = tmp_path_factory.mktemp("fun")
    checkout = root / "fun"
    (checkout / "tests").mkdir(parents=True)
    (checkout / "fun.py").write_text(FUNCTIONS)
    (checkout / "tests" / "test_fun.py").write_text(TESTS)
    description = root / "fun.toml"
    description.write_text(
        f'name = "fun"\n[source]\ncheckout = "{checkout}"\n[test]\ntimeout_s = 30\n'
        + NO_PLUGINS
        + '[select]\npaths = ["fun.py"]\n'
    )
    spec = replace(load_project(description), repeats=2)
    return prepare(spec, root / "scratch", Sandboxes(announce=False)), root


def test_every_covered_function_is_kept_with_every_covering_test(prepared):
    found, _ = prepared
    kept = {t.task_id for t in found.tasks}
    assert kept == {
        "fun.valmap", "fun.interleave", "fun.nth", "fun.get", "fun.excepts", "fun.later",
        "fun.groupby", "fun.Pipeline.__call__",
    }  # fmt: skip
    assert found.dropped == [] and found.not_crossing == [] and found.flaky == []


def _answer(code: str) -> str:
    return f"```python\n{code}```\n"


def test_the_projects_own_functions_pass_and_wrong_or_hostile_ones_fail(prepared):
    found, root = prepared
    by_id = {t.task_id: t for t in found.tasks}
    work = root / "work"
    for task in found.tasks:
        result = evaluate(found, task, reference_answer(task), work)
        assert (result.compiled, result.passed) == (True, True), (task.task_id, result.detail)
    for name, code in [*WRONG.items(), *HOSTILE.items()]:
        result = evaluate(found, by_id[name], _answer(code), work)
        assert result.compiled and not result.passed, (name, result.detail)
        assert result.failing_tests, name
    spec = replace(found.spec, timeout_s=4.0)
    quick = replace(found, spec=spec, sandbox=ProjectSandbox(spec, Sandboxes(announce=False)))
    result = evaluate(quick, by_id["fun.interleave"], _answer(ENDLESS), work)
    assert not result.passed and result.category == "timeout", result.detail


def test_the_user_files_are_untouched(prepared):
    _, root = prepared
    assert (root / "fun" / "fun.py").read_text() == FUNCTIONS
    assert sorted(p.name for p in (root / "fun").rglob("*") if p.is_file()) == [
        "fun.py",
        "test_fun.py",
    ]
