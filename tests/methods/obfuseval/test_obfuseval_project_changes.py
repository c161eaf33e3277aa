"""The mirror's bulk change finder (``changes.py``) against the one-object-at-a-time
check it stands for (``state.unchanged`` of a fresh snapshot): over seeded random
objects of every kind the mirror keeps and random changes to them, it must report every
object that changed; it may report an unchanged one only where it cannot compare in
bulk."""

from __future__ import annotations

import collections
import random

import pytest

from obfuseval_support import copied_all


@pytest.fixture
def modules(monkeypatch):
    found = copied_all(monkeypatch)
    return found["state"], found["changes"]


class Slotted:
    __slots__ = ("a", "b")


class Plain:
    pass


class Both(dict):
    __slots__ = ("__dict__", "tag")


class Items(list):
    def __iter__(self):  # must never run: the base's own iteration is used
        raise AssertionError("a subclass's __iter__ ran")


def _objects(rng: random.Random) -> list:
    shared = [object() for _ in range(5)]

    def value():
        return rng.choice([*shared, 1, True, "s", None, rng.random()])

    made: list = []
    for _ in range(300):
        kind = rng.randrange(9)
        if kind == 0:
            obj = Slotted()
            obj.a, obj.b = value(), value()
        elif kind == 1:
            obj = Plain()
            for name in rng.sample("pqrstu", rng.randrange(4)):
                setattr(obj, name, value())
        elif kind == 2:
            obj = Both({value(): value() for _ in range(3)})
            obj.tag, obj.extra = value(), value()
        elif kind == 3:
            obj = [value() for _ in range(rng.randrange(5))]
        elif kind == 4:
            obj = {i: value() for i in range(rng.randrange(5))}
        elif kind == 5:
            obj = collections.OrderedDict((i, value()) for i in range(rng.randrange(1, 5)))
        elif kind == 6:
            obj = {rng.randrange(50) for _ in range(rng.randrange(5))}
        elif kind == 7:
            obj = collections.deque([value() for _ in range(3)], maxlen=rng.choice([None, 5]))
        else:
            obj = Items([value(), value()]) if rng.random() < 0.5 else bytearray(b"ab")
        made.append(obj)
    return made


def _change(obj: object, rng: random.Random) -> None:
    """One change of the kinds code makes; some put back what was there."""
    if isinstance(obj, Slotted):
        obj.a = rng.choice([obj.a, object(), 1])
    elif isinstance(obj, Plain):
        obj.__dict__[rng.choice("pqrstu")] = object()
    elif isinstance(obj, Both):
        if rng.random() < 0.5:
            dict.__setitem__(obj, "k", object())
        else:
            obj.tag = object()
    elif isinstance(obj, collections.OrderedDict):
        obj.move_to_end(next(iter(obj)))  # the same items, another order
    elif isinstance(obj, dict):
        obj[rng.randrange(3)] = 1.5 if rng.random() < 0.5 else True
    elif isinstance(obj, set):
        obj.add(rng.randrange(100, 200))
    elif isinstance(obj, collections.deque):
        obj.append(object())
    elif isinstance(obj, bytearray):
        obj[0] = rng.choice(b"ax")
    else:
        list.append(obj, 1) if rng.random() < 0.5 else list.__setitem__(obj, slice(0, 1), [1])


def _found(changes, objects: list, snaps: list) -> set:
    """The indices ``changes.changed`` reports, the objects filed by class as the mirror
    files them (index as handle)."""
    groups: dict = {}
    for index, obj in enumerate(objects):
        groups.setdefault(type(obj), {})[index] = obj
    return set(changes.changed(groups, dict(enumerate(snaps))))


@pytest.mark.parametrize("seed", range(5))
def test_every_changed_object_is_found(modules, seed):
    state, changes = modules
    rng = random.Random(seed)
    objects = _objects(rng)
    snaps = [state.snapshot(obj) for obj in objects]
    for obj in rng.sample(objects, 60):
        _change(obj, rng)
    truly = {
        i for i, obj in enumerate(objects) if not state.unchanged(snaps[i], state.snapshot(obj))
    }
    found = _found(changes, objects, snaps)
    assert truly and truly <= found
    assert found == truly  # every kind here compares in bulk: no unchanged object reported


def test_an_unset_slot_sends_its_class_to_the_one_by_one_check(modules):
    state, changes = modules
    objects = [Slotted() for _ in range(4)]
    for obj in objects:
        obj.a = obj.b = 1
    snaps = [state.snapshot(obj) for obj in objects]
    del objects[2].b
    assert _found(changes, objects, snaps) == {0, 1, 2, 3}  # unchanged ones too: never fewer


def test_an_object_whose_length_changed_does_not_hide_a_change_after_it(modules):
    state, changes = modules
    objects = [[1, 2], [3], [4, 5], [6]]
    snaps = [state.snapshot(obj) for obj in objects]
    objects[0].append(7)  # the flat lists no longer line up after it
    objects[3][0] = True
    assert _found(changes, objects, snaps) == {0, 3}


class Guarded:
    """Slots read in one C call must not reach code of the class: reading an unset slot
    would call ``__getattr__``."""

    __slots__ = ("a", "b")

    def __getattr__(self, name):
        raise AssertionError(f"__getattr__({name!r}) ran")


class Watched:
    __slots__ = ("a",)

    def __getattribute__(self, name):
        raise AssertionError(f"__getattribute__({name!r}) ran")


class Shadowed(Slotted):
    """A subclass whose property hides the base's slot ``a``: the slot is what is read."""

    __slots__ = ()

    @property
    def a(self):
        raise AssertionError("the property ran")


class One:
    __slots__ = ("only",)


class Other:
    pass


@pytest.mark.parametrize("cls", [Guarded, Watched, Shadowed, One, Slotted])
def test_slots_are_compared_without_running_code_of_the_class(modules, cls):
    state, changes = modules
    objects = [cls() for _ in range(6)]
    for obj in objects:
        for desc in changes.classes.slots(cls).values():
            desc.__set__(obj, 1)
    snaps = [state.snapshot(obj) for obj in objects]
    first = next(iter(changes.classes.slots(cls).values()))
    first.__set__(objects[1], True)  # equal to 1, but another object
    first.__set__(objects[4], [1])
    assert _found(changes, objects, snaps) == {1, 4}
    first.__delete__(objects[2])  # an unset slot: the class is checked one by one
    assert _found(changes, objects, snaps) == set(range(6))


def test_an_object_whose_class_was_reassigned_is_reported(modules):
    """The mirror files objects by the class they had when kept; one whose ``__class__``
    was set since is reported, to be checked alone, and the others are still compared."""
    state, changes = modules
    objects = [Plain() for _ in range(4)]
    for obj in objects:
        obj.p = 1
    snaps = [state.snapshot(obj) for obj in objects]
    objects[1].__class__ = Other
    objects[3].p = 2
    groups = {Plain: dict(enumerate(objects))}  # filed before the reassignment
    assert set(changes.changed(groups, dict(enumerate(snaps)))) == {1, 3}
