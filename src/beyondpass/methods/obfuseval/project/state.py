"""What the mirror keeps of an object between crossings: whether it is kept under a handle
(:func:`tracked`), its shallow contents when it last crossed (:func:`snapshot`), whether it
changed since (:func:`unchanged`, by identity at C speed) and the values beneath it that may
hold tracked objects (:func:`kids`). None of these runs code of the object's class.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_state``.
"""

import collections
import itertools
import operator

import _beyondpass_classes as classes
import _beyondpass_codec as codec
import _beyondpass_refs as refs

DICTS = (dict, collections.OrderedDict, collections.defaultdict)
MUTABLE_BASES = (None, *DICTS, collections.deque, list, set, bytearray)
KINDS = {list: "l", dict: "d", set: "S", bytearray: "B"}
VALUES = (tuple, frozenset, int, float, complex, str, bytes, bool, type(None))
SCALARS = frozenset((int, float, complex, str, bytes, bool, type(None)))
MISSING = object()


def same(a: object, b: object) -> bool:
    """Same length and the same object at every place (C speed, no ``__eq__``)."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def tracked(value: object) -> bool:
    """A mutable object kept under a handle (scalars, tuples, classes and enum members
    travel as values)."""
    kind = type(value)
    if kind in KINDS:
        return True
    if kind in VALUES or not (classes.in_python(kind) or kind in classes.BASES):
        return False
    if isinstance(value, (type, codec.enum.Enum, BaseException, refs.Stand)):
        return False
    return classes.base_of(kind) in MUTABLE_BASES


def snapshot(value: object) -> tuple:
    """(contents, attributes, slots) as references, taken without running its code."""
    kind = type(value)
    base = kind if kind in KINDS else classes.base_of(kind)
    if base in DICTS:
        contents: object = dict(classes.items(base, value))  # in the object's own order
    elif base is collections.deque:
        contents = list(collections.deque.__iter__(value))
    elif base in (list, set):
        contents = list(base.__iter__(value))
    elif base is bytearray:
        contents = bytes(value)
    else:
        contents = None
    attrs = None
    if kind not in KINDS:
        try:
            attrs = dict(object.__getattribute__(value, "__dict__"))
        except AttributeError:
            attrs = None
        slots = []
        for desc in classes.slots(kind).values():
            try:
                slots.append(desc.__get__(value, kind))
            except AttributeError:
                slots.append(MISSING)
        return (contents, attrs, slots)
    return (contents, None, [])


def unchanged(old: tuple, new: tuple) -> bool:
    for a, b in zip(old, new, strict=True):
        if a is None or b is None:
            if a is not b:
                return False
        elif type(a) is dict:
            if type(b) is not dict or not (same(a, b) and same(a.values(), b.values())):
                return False
        elif isinstance(a, bytes):
            if a != b:
                return False
        elif not same(a, b):
            return False
    return True


def reached(values: object) -> list:
    """The values ``values`` holds, and those inside the tuples and frozensets among them
    (at any depth; no code of a subclass runs): where held objects can be."""
    pending, found = list(values), []
    while pending:
        value = pending.pop()
        if isinstance(value, tuple):
            pending.extend(tuple.__iter__(value))
        elif isinstance(value, frozenset):
            pending.extend(frozenset.__iter__(value))
        else:
            found.append(value)
    return found


def kids(snap: tuple) -> list:
    """The values of a snapshot that are not plain scalars (type checks at C speed)."""
    contents, attrs, slots = snap
    found: list = []
    for values in (
        contents.values() if type(contents) is dict else contents,
        contents if type(contents) is dict else (),
        attrs.values() if attrs else (),
        slots,
    ):
        if values is None or isinstance(values, bytes):
            continue
        if not set(map(type, values)) <= SCALARS:
            scalar = map(SCALARS.__contains__, map(type, values))
            found += itertools.compress(values, map(operator.not_, scalar))
    return found
