"""Which kept objects changed since they last crossed, found a class at a time.

At every message the mirror must find, among all the objects it keeps live, the few that
code changed since the last message. A fresh snapshot of each (``_beyondpass_state``)
costs microseconds of Python per object, so a cache of 2,000 linked nodes that a test
fills with 2,000 calls would cost seconds per call. Here the objects of one class are
compared with their last snapshots column by column — each slot, the keys and the values
of their ``__dict__``s, their contents — by identity, with ``map`` and ``itertools`` at C
speed; only the objects found different are snapshotted again. No code of an object's
class runs: the base types' own methods are called, as the snapshot does. An object that
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


def changed(objects: list, snaps: list) -> set:
    """The indices of ``objects`` that may differ from ``snaps``, their last snapshots."""
    class_ids = list(map(id, map(type, objects)))
    by_class = sorted(range(len(objects)), key=class_ids.__getitem__)
    found: set = set()
    for _, group in itertools.groupby(by_class, class_ids.__getitem__):
        indices = list(group)
        objs = list(map(objects.__getitem__, indices))
        olds = list(map(snaps.__getitem__, indices))
        try:
            hits = _group(type(objs[0]), objs, olds)
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            hits = range(len(objs))  # not comparable in bulk: each on its own
        found.update(map(indices.__getitem__, hits))
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
    for column, desc in enumerate(classes.slots(cls).values()):
        old = list(map(operator.itemgetter(column), map(_SLOTS, olds)))
        new = list(map(desc.__get__, objs, itertools.repeat(cls)))  # an unset slot raises
        hits.update(itertools.compress(itertools.count(), map(operator.is_not, old, new)))
    return hits


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
