"""Which kept objects changed since they last crossed, found a class at a time.

At every message the mirror must find, among all the objects it keeps live, the few that
code changed since the last message. A fresh snapshot of each (``_beyondpass_state``)
costs microseconds of Python per object, so a cache of 2,000 linked nodes that a test
fills with 2,000 calls would cost seconds per call. Here the objects of one class are
compared with their last snapshots by identity — the keys and the values of their
``__dict__``s, their contents, and their slots (all of an object's slots in one
``operator.attrgetter`` call where that reaches only the slots' own descriptors) — with
``map`` and ``itertools`` at C speed; only the objects found different are snapshotted
again. The mirror files its live objects by class as it keeps them, so no pass sorts
them. No code of an object's class runs: the base types' own methods are called, as the
snapshot does. An object that
cannot be compared in bulk (an unset slot, a ``__dict__`` that is not a dict) is reported
as changed, to be checked on its own: the answer may hold unchanged objects, never miss a
changed one.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_changes``.
"""

import bisect
import collections
import itertools
import operator

import _beyondpass_classes as classes
import _beyondpass_state as state

_CONTENTS, _ATTRS, _SLOTS = (operator.itemgetter(i) for i in range(3))
#: base -> (its length, its items in order) for the contents of a container object
_SEQUENCES = {
    list: (list.__len__, list.__iter__),
    set: (set.__len__, set.__iter__),
    collections.deque: (collections.deque.__len__, collections.deque.__iter__),
}


def changed(groups: dict, snaps: dict) -> list:
    """The handles of the kept objects that may differ from ``snaps``, their last
    snapshots. ``groups``: class -> {handle: object} of that class, as the mirror files
    them; an object whose class was reassigned since is reported, to be checked alone."""
    found: list = []
    for cls, members in groups.items():
        handles, objs = list(members), list(members.values())
        kinds = list(map(type, objs))
        if kinds.count(cls) != len(kinds):  # ``obj.__class__ = ...`` since it was filed
            alike = list(map(operator.is_, kinds, itertools.repeat(cls)))
            found += itertools.compress(handles, map(operator.not_, alike))
            handles = list(itertools.compress(handles, alike))
            objs = list(itertools.compress(objs, alike))
            if not objs:
                continue
        olds = list(map(snaps.__getitem__, handles))
        try:
            hits = _group(cls, objs, olds)
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            hits = range(len(objs))  # not comparable in bulk: each on its own
        found += map(handles.__getitem__, hits)
    return found


def _group(cls: type, objs: list, olds: list) -> set:
    """Local indices of the objects of one class that may have changed."""
    kind = state.KINDS.get(cls)
    base = cls if kind else classes.base_of(cls)
    hits: set = set()
    if base is not None:
        hits |= _contents(base, objs, list(map(_CONTENTS, olds)))
    if kind is not None:
        return hits
    attrs = list(map(_ATTRS, olds))
    if set(map(type, attrs)) == {dict}:
        tables = list(map(object.__getattribute__, objs, itertools.repeat("__dict__")))
        if set(map(type, tables)) != {dict}:
            raise TypeError("a __dict__ that is not a dict")
        hits |= _spans(
            attrs, tables, len, len, ((dict.keys, dict.keys), (dict.values, dict.values))
        )
    elif any(map(operator.is_not, attrs, itertools.repeat(None))):
        raise TypeError("some snapshots without attributes")
    slots = classes.slots(cls)
    if not slots:
        return hits
    width = len(slots)
    getter = _slot_getter(cls, slots)
    if getter is not None:  # all slots of an object in one C call (an unset one raises)
        new = map(getter, objs)  # one slot: the value itself
        if width > 1:
            new = itertools.chain.from_iterable(new)
        old = itertools.chain.from_iterable(map(_SLOTS, olds))
        places = itertools.compress(itertools.count(), map(operator.is_not, old, new))
        hits.update(place // width for place in places)
        return hits
    for column, desc in enumerate(slots.values()):
        old = list(map(operator.itemgetter(column), map(_SLOTS, olds)))
        new = list(map(desc.__get__, objs, itertools.repeat(cls)))  # an unset slot raises
        hits.update(itertools.compress(itertools.count(), map(operator.is_not, old, new)))
    return hits


def _slot_getter(cls: type, slots: dict):
    """``operator.attrgetter`` of every slot where reading the attribute runs exactly the
    slot's own member descriptor — no ``__getattribute__`` or ``__getattr__`` of the class
    or its bases, and each name found first at its descriptor — else None (each slot is
    then read through its descriptor)."""
    mro = [klass.__dict__ for klass in cls.__mro__ if klass is not object]
    if any("__getattribute__" in table or "__getattr__" in table for table in mro):
        return None
    for name, desc in slots.items():
        if next((table[name] for table in mro if name in table), None) is not desc:
            return None
    return operator.attrgetter(*slots)


def _contents(base: type, objs: list, olds: list) -> set:
    if base is bytearray:
        # the base's own comparison, no copy (a bytearray sieve of a million numbers)
        return set(itertools.compress(itertools.count(), map(bytearray.__ne__, objs, olds)))
    if base in state.DICTS:
        ordered = base is collections.OrderedDict
        keys = collections.OrderedDict.keys if ordered else dict.keys
        values = collections.OrderedDict.values if ordered else dict.values
        return _spans(olds, objs, len, dict.__len__, ((dict.keys, keys), (dict.values, values)))
    size, items = _SEQUENCES[base]
    return _spans(olds, objs, len, size, ((list.__iter__, items),))


def _spans(olds: list, news: list, old_size, new_size, parts: tuple) -> set:
    """Local indices where ``news`` differ from ``olds``: a different length, or a
    different object at a place of any of ``parts`` (pairs of how to list an old and a
    new one's values), compared over all objects at once."""
    old_lens = list(map(old_size, olds))
    equal = list(map(operator.eq, old_lens, map(new_size, news)))
    hits = set(itertools.compress(itertools.count(), map(operator.not_, equal)))
    index: list | None = None
    if hits:  # compare the others: the flat lists must line up
        index = list(itertools.compress(itertools.count(), equal))
        olds, news = list(itertools.compress(olds, equal)), list(itertools.compress(news, equal))
        old_lens = list(itertools.compress(old_lens, equal))
    ends = list(itertools.accumulate(old_lens))
    for list_old, list_new in parts:
        old = itertools.chain.from_iterable(map(list_old, olds))
        new = itertools.chain.from_iterable(map(list_new, news))
        for place in itertools.compress(itertools.count(), map(operator.is_not, old, new)):
            local = bisect.bisect_right(ends, place)
            hits.add(local if index is None else index[local])
    return hits
