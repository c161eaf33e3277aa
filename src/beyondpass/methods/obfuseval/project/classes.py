"""What the boundary needs to know of a class, read without running any of its code.

Whether it is defined in Python (its instances cross as data: their ``__dict__`` and
slots), which builtin base builds its instances, its slots, and a dict-based object's
items in the object's own order. Asked at every snapshot, so each class's facts are
worked out once.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_classes``.
"""

import collections

_HEAPTYPE, _IMMUTABLETYPE = 1 << 9, 1 << 8  # Py_TPFLAGS_HEAPTYPE, Py_TPFLAGS_IMMUTABLETYPE


def in_python(cls: type) -> bool:
    """A class defined in Python: a heap type whose attributes can be set (a C type may be
    a heap type too — ``operator.itemgetter``, ``functools.partial`` — but is immutable)."""
    flags = cls.__flags__
    return bool(flags & _HEAPTYPE) and not flags & _IMMUTABLETYPE


#: the builtin base whose __new__ builds an instance of a subclass, in lookup order
BASES = (
    collections.OrderedDict,
    collections.defaultdict,
    collections.deque,
    dict,
    list,
    set,
    frozenset,
    tuple,
    bytearray,
    bool,
    int,
    float,
    complex,
    str,
    bytes,
)


#: id(class) -> (class, its slots, its base): asked at every snapshot, worked out once
#: (keyed by id, the class kept alive beside it, so no hash of a metaclass runs; a class
#: whose ``__bases__`` are reassigned later keeps the facts of its first bases)
_CLASS_FACTS: dict = {}


def facts(cls: type) -> tuple:
    entry = _CLASS_FACTS.get(id(cls))
    if entry is None or entry[0] is not cls:
        base = next((b for b in BASES if issubclass(cls, b)), None)
        entry = _CLASS_FACTS[id(cls)] = (cls, _find_slots(cls), base)
    return entry


def slots(cls: type) -> dict:
    """Stored (mangled) slot name -> its member descriptor, over the class's bases (the
    same dict at every call: read it, do not change it)."""
    return facts(cls)[1]


def _find_slots(cls: type) -> dict:
    found: dict = {}
    for klass in cls.__mro__:
        declared = klass.__dict__.get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"
            desc = klass.__dict__.get(name)
            if type(desc).__name__ == "member_descriptor" and name not in found:
                found[name] = desc
    return found


def items(base: type, value: object) -> object:
    """The pairs of a dict-based object in its own order (an ``OrderedDict``'s, which
    ``move_to_end`` changes, is not its dict's), no code of a subclass run."""
    return (collections.OrderedDict.items if base is collections.OrderedDict else dict.items)(value)


def base_of(cls: type) -> "type | None":
    """The first builtin base of ``BASES`` the class derives from (None: plain object)."""
    return facts(cls)[2]
