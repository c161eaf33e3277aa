"""What changed inside one kept object, and writing what crossed back into it.

When an object the mirror keeps changed in one part only — the contents of a dict or a
list, or an instance's ``__dict__`` — a message carries that change (a ``D`` entry), not
the object: the keys deleted and then set of a dict, in its own order (an
``OrderedDict``'s ``move_to_end`` is a key deleted and set again at the end), or the
places of a list that hold another object now and its new length (a heap's push and pop
touch a few places). The receiver writes the change — or an object's whole state, when it
is new or changed in more than one part (``U``) — with the base types' own methods and
straight into ``__dict__`` and slots, so no code of the object's class runs. A mixin of
the mirror (``_beyondpass_mirror``), whose encoder and decoder it uses for the parts.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_deltas``.
"""

import base64
import collections
import contextlib
import itertools
import operator

import _beyondpass_classes as classes
import _beyondpass_codec as codec
import _beyondpass_state as state

_DICTS, _KINDS = state.DICTS, state.KINDS


def moves(before: dict, after: dict) -> tuple:
    """``(set, deleted)``: the keys to delete from ``before``, then to set in order, so
    that it becomes ``after`` in ``after``'s order. The longest start of ``after`` that
    keeps ``before``'s order stays in place (values set there keep their places); the rest
    is deleted and set again at the end (a key moved to the end: ``move_to_end``)."""
    keys, at, kept = list(before), 0, []
    for key in after:
        while at < len(keys) and keys[at] is not key:
            at += 1
        if at == len(keys):
            break
        kept.append(key)
        at += 1
    in_place = set(map(id, kept))
    deleted = [key for key in keys if id(key) not in in_place]
    moved = list(itertools.islice(after, len(kept), None))
    return [key for key in kept if after[key] is not before[key]] + moved, deleted


class Deltas:
    """The mirror's small changes (see the module docstring)."""

    def _delta(self, value: object, old: tuple, new: tuple) -> "list | None":
        """What changed in the one part of ``value`` that changed, when nothing else of it
        did: the keys deleted and set of a dict (an ``OrderedDict``, in its own order) or
        of an instance's ``__dict__``, or the places set of a list (a heap's push is a few
        places, not the heap); None: send it whole."""
        o_contents, o_attrs, o_slots = old
        n_contents, n_attrs, n_slots = new
        contents_same = state.unchanged((o_contents,), (n_contents,))
        if not state.same(o_slots, n_slots):
            return None
        if not contents_same and state.unchanged((o_attrs,), (n_attrs,)):
            before, after, where = o_contents, n_contents, "c"
        elif contents_same:
            before, after, where = o_attrs, n_attrs, "a"
        else:
            return None
        if type(before) is list and type(after) is list:
            return self._places(before, after)
        if type(before) is not dict or type(after) is not dict:
            return None
        size = len(before)
        if (
            len(after) >= size
            and all(map(operator.is_, itertools.islice(after, size), before))
            and all(map(operator.is_, itertools.islice(after.values(), size), before.values()))
        ):  # only added at the end: the common case, found at C speed
            changed, deleted = list(itertools.islice(after, size, None)), []
        else:
            changed, deleted = moves(before, after)
        if len(changed) + len(deleted) > max(8, len(after) // 2):
            return None
        pairs = [[self._enc(k, 1), self._enc(after[k], 1)] for k in changed]
        gone = [self._enc(k, 1) for k in deleted]
        return [where, pairs, gone]

    def _places(self, before: list, after: list) -> "list | None":
        """``["l", places, length]``: the list's new length, and each place that holds
        another object now (found at C speed) with that object; None: send it whole."""
        places = list(itertools.compress(itertools.count(), map(operator.is_not, after, before)))
        places += range(len(before), len(after))
        if len(places) > max(8, len(after) // 2):
            return None
        return ["l", [[place, self._enc(after[place], 1)] for place in places], len(after)]

    def _apply(self, obj: object, parts: list, depth: int) -> None:
        """A ``D`` entry: keys deleted, then set, in a dict or an instance's ``__dict__``;
        or places set in a list."""
        where, pairs, gone = parts[:3]
        base = dict if type(obj) is dict else classes.base_of(type(obj))
        if where == "l" and base is list:
            self._set_places(obj, pairs, gone, depth)
            return
        if where == "c" and base in _DICTS:
            table = obj
        elif where == "a" and type(obj) not in _KINDS:
            table, base = object.__getattribute__(obj, "__dict__"), dict
            if type(table) is not dict:
                raise codec.CannotCross("an object without a plain __dict__")
        else:
            raise codec.CannotCross("malformed change")
        made = self._pairs(pairs, depth)
        dropped = [self._dec(k, depth) for k in codec._list(gone)]
        for key in dropped:  # the base's own methods: an OrderedDict keeps its order
            base.pop(table, key, None)
        for key, value in made:
            base.__setitem__(table, key, value)

    def _set_places(self, obj: list, pairs: object, length: object, depth: int) -> None:
        length, pairs, now = codec._int(length), codec._list(pairs), list.__len__(obj)
        if not 0 <= length <= now + len(pairs):
            raise codec.CannotCross("malformed list change")
        found = {}
        for place, node in map(codec._list, pairs):
            if type(place) is not int or not 0 <= place < length or place in found:
                raise codec.CannotCross("malformed list change")
            found[place] = self._dec(node, depth)
        if not set(range(now, length)) <= found.keys():
            raise codec.CannotCross("a list grown with places left unset")
        list.__delitem__(obj, slice(length, None))
        list.extend(obj, itertools.repeat(None, max(0, length - now)))
        for place, value in found.items():
            list.__setitem__(obj, place, value)

    def _fill(self, obj: object, kind: str, parts: list, depth: int) -> None:
        """Replace ``obj``'s whole state in place."""
        expected = _KINDS.get(type(obj), "o")
        if kind != expected:
            raise codec.CannotCross("an object's kind changed")
        if kind == "l":
            list.__setitem__(obj, slice(None), [self._dec(v, depth) for v in codec._list(parts[0])])
        elif kind == "S":
            items = [self._dec(v, depth) for v in codec._list(parts[0])]
            set.clear(obj)
            set.update(obj, items)
        elif kind == "d":
            made = self._pairs(parts[0], depth)
            dict.clear(obj)
            for key, value in made:
                dict.__setitem__(obj, key, value)
        elif kind == "B":
            bytearray.__setitem__(
                obj, slice(None), base64.b64decode(codec._str(parts[0]), validate=True)
            )
        else:
            self._fill_object(obj, parts, depth)

    def _fill_object(self, obj: object, parts: list, depth: int) -> None:
        class_ref, base_name, payload, extra, state, slots = parts[:6]
        cls = type(obj)
        if self._cls(class_ref) is not cls:
            raise codec.CannotCross("an object's class changed")
        base = classes.base_of(cls)
        if (base.__name__ if base else None) != base_name:
            raise codec.CannotCross(f"{cls.__qualname__} does not have the base {base_name}")
        if base in _DICTS:
            made = self._pairs(payload, depth)
            if base is collections.defaultdict:
                factory = self._dec(extra, depth)
                if factory is not None and not isinstance(factory, type):
                    raise codec.CannotCross("a defaultdict's factory is not a class")
                obj.default_factory = factory
            base.clear(obj)
            for key, value in made:
                base.__setitem__(obj, key, value)
        elif base is collections.deque:
            items = [self._dec(v, depth) for v in codec._list(payload)]
            collections.deque.clear(obj)
            collections.deque.extend(obj, items)
        elif base is list:
            list.__setitem__(obj, slice(None), [self._dec(v, depth) for v in codec._list(payload)])
        elif base is bytearray:
            data = self._dec(payload, depth)
            if type(data) is not bytes:
                raise codec.CannotCross("malformed bytearray payload")
            bytearray.__setitem__(obj, slice(None), data)
        elif base is set:
            items = [self._dec(v, depth) for v in codec._list(payload)]
            set.clear(obj)
            set.update(obj, items)
        self._state(obj, cls, state, slots, depth)

    def _state(self, obj: object, cls: type, state: object, slots: object, depth: int) -> None:
        if not isinstance(state, dict) or not isinstance(slots, dict):
            raise codec.CannotCross("malformed object state")
        values = {codec._str(k): self._dec(v, depth) for k, v in state.items()}
        try:
            attrs = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            attrs = None
        if values and type(attrs) is not dict:
            raise codec.CannotCross(f"{cls.__qualname__} objects have no plain __dict__")
        if type(attrs) is dict:
            dict.clear(attrs)
            dict.update(attrs, values)
        known = classes.slots(cls)
        if set(slots) - set(known):
            raise codec.CannotCross(f"{cls.__qualname__} has no such slots")
        for name, desc in known.items():
            if name in slots:
                desc.__set__(obj, self._dec(slots[name], depth))
            else:
                with contextlib.suppress(AttributeError):
                    desc.__delete__(obj)
