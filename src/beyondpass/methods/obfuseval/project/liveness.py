"""Which kept objects no code of this side can reach any more: only the mirror holds them.

The mirror keeps every object that crossed (its handle may come back), so what the tests
or the answer dropped stays alive — held by the mirror's tables and, when the objects form
cycles (the nodes of a linked list), by one another. Checking each of them for changes at
every turn would cost a snapshot each, for ever, and make every call slower than the one
before. This module finds them as CPython's cycle collector finds garbage: an object's
references, minus those the mirror and the kept objects themselves account for, are its
references from outside; the objects referenced from outside are roots, and every kept
object a root reaches through the values it holds is live. The others go to sleep: no code
of this side can reach them, so none can change them, and they are not checked until a
message of the other side names one of them again (then it, and what it holds, wake).

Every doubt counts towards "live": a reference this module cannot attribute — from a
tuple, a closure, a frame, a stand-in's export table — makes its object a root, and so
does a weak reference to an object or its ``__dict__`` held apart from it (both let code
change an object without holding it). An object is never put to sleep while code could
still reach it; at worst one that could sleep is checked again.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_liveness``.
"""

import collections
import itertools
import sys
import weakref

import _beyondpass_state as state

_PROBE = -1  # a key no handle has (handles are never negative)


class _Plain:
    pass


class _Probe:
    """The key of the probe's own group while references are counted."""


def _dict_references(obj: object) -> int:
    table = object.__getattribute__(obj, "__dict__")
    return sys.getrefcount(table)


_PROBE_OBJECT = _Plain()
#: the count :func:`_dict_references` sees for a ``__dict__`` only its instance holds
_DICT_ALONE = _dict_references(_PROBE_OBJECT)


def references(live: dict, also: dict) -> dict:
    """handle -> the references to each object of ``live`` beyond the ``live`` table,
    ``also`` (the mirror's filing of the live objects by class: class -> {handle: object})
    and this count's own, measured against a probe object held by the same tables and
    nowhere else. Taken before anything of the turn holds a reference."""
    probe: list = []
    live[_PROBE] = probe
    also[_Probe] = {_PROBE: probe}
    try:
        counts = {handle: sys.getrefcount(obj) for handle, obj in live.items()}
    finally:
        del live[_PROBE], also[_Probe]
    base = counts.pop(_PROBE) - 1  # the probe's own name
    return {handle: count - base for handle, count in counts.items()}


def _reaches_apart(obj: object) -> bool:
    """Code may change ``obj`` without holding it: through a weak reference to it, or
    through its ``__dict__`` held by something other than ``obj``."""
    try:
        if weakref.getweakrefcount(obj):
            return True
    except TypeError:
        pass
    try:
        return _dict_references(obj) > _DICT_ALONE
    except (AttributeError, TypeError):
        return False


def asleep(live: dict, counts: dict, kids: dict, stored: dict, sleeping: dict) -> list:
    """The handles of ``live`` that no code can reach.

    ``counts``: :func:`references` of each; ``kids``: the values each holds now, and
    ``stored``: those of the snapshot the mirror keeps of it (``_beyondpass_state.kids``,
    listed after ``counts`` were taken); ``sleeping``: id -> the times sleeping objects hold it."""
    by_id = {id(obj): handle for handle, obj in live.items()}
    inside = collections.Counter(map(id, itertools.chain.from_iterable(kids.values())))
    kept = collections.Counter(map(id, itertools.chain.from_iterable(stored.values())))
    roots = []
    for handle, obj in live.items():
        key = id(obj)
        # the mirror's table of every kept object (1); a live object's snapshot (1 per
        # place); a sleeping object itself and its snapshot (2 per place); what live
        # objects hold now
        outside = counts[handle] - 1 - kept[key] - 2 * sleeping.get(key, 0)
        if outside - inside[key] > 0:
            roots.append(handle)
    marked: set = set()
    _mark(roots, marked, live, kids, by_id)
    doubtful = [h for h in live if h not in marked and _reaches_apart(live[h])]
    _mark(doubtful, marked, live, kids, by_id)
    return [h for h in live if h not in marked]


def _mark(roots: list, marked: set, live: dict, kids: dict, by_id: dict) -> None:
    """Mark ``roots`` and every live object they reach (through tuples and frozensets
    too)."""
    stack = [h for h in roots if h not in marked]
    marked.update(stack)
    while stack:
        for value in state.reached(kids[stack.pop()]):
            handle = by_id.get(id(value))
            if handle is not None and handle not in marked:
                marked.add(handle)
                stack.append(handle)
