"""Calls that send only what changed: both sides keep the objects they exchanged.

The test process (even handles) and the worker (odd handles) each keep every mutable
object that crossed — lists, dicts, sets, bytearrays, deques and the project's instances
— under a handle both know, with a shallow snapshot of its contents when it last crossed.
A message then carries, per object reached from the value: nothing (``H``: unchanged,
nothing changed beneath), the changes of a dict or of an instance's ``__dict__`` (``D``:
keys set and deleted), its whole contents (``U``), or a new object (``N``); ``K`` marks an
unchanged object with changes beneath. A change is a different object at a place
(identity against the snapshot), so ``1`` replaced by ``True`` is a change, and an
unchanged cache of 2,000 entries costs one identity pass, not 2,000 encodings. Received
changes are written into the receiver's own objects in place: on the test side every
object the call changed, at any depth, is the caller's own object with the new state.

Values are built by the rules of ``_beyondpass_codec`` (data only, classes admitted by
``find_class``, no code of a class runs); a message that does not fit them, or names a
handle the receiver does not hold, is refused (:class:`~codec.CannotCross`). Encoding and
decoding are transactions: :meth:`Mirror.encode` keeps its new handles and snapshots
pending until :meth:`Mirror.commit` (after the frame was sent), :meth:`Mirror.rollback`
forgets them; a message one side cannot take makes both sides :meth:`Mirror.reset`
(the next message says so), so one bad call never leaves the two views apart. This file
imports nothing from beyondpass: it is copied into both sandboxes
as ``_beyondpass_mirror``.

What the mirror keeps of each object between crossings (its shallow snapshot, whether it
changed) is ``_beyondpass_state``; how a value crosses — as data, as an instance of a
shadow of a test's class, or by reference (``_beyondpass_refs``) — is ``_beyondpass_kinds``.
"""

import base64
import collections
import contextlib
import itertools
import operator
import sys

import _beyondpass_codec as codec
import _beyondpass_kinds as kinds
import _beyondpass_refs as refs
import _beyondpass_state as state

_DICTS, _MUTABLE_BASES, _KINDS = state.DICTS, state.MUTABLE_BASES, state.KINDS
_VALUES, _SCALARS, _MISSING = state.VALUES, state.SCALARS, state.MISSING
_SCALAR_TAGS = frozenset("nbifcsyek")


class Mirror(kinds.Kinds):
    """One side's objects of a session; ``side`` 0 (test process) or 1 (worker).

    ``sendable(cls)``: whether the other side admits ``cls`` (its instances cross as
    data); an instance of any other class, such a class itself, and whatever else is not
    data cross by reference (``_beyondpass_refs``), where the side may hand them over."""

    def __init__(self, side: int, find_class, sendable=None) -> None:
        self.side = side
        self.decoder = codec.Decoder(find_class)
        self.refs = refs.References(side)
        self.sendable = sendable or (lambda cls: kinds.admitted(self.decoder, cls))
        self._sendable: dict = {}  # class -> sendable (asked once per class)
        self.objects: dict = {}  # handle -> object
        self.handles: dict = {}  # id(object) -> handle
        self.snaps: dict = {}  # handle -> shallow contents when it last crossed
        self.kids: dict = {}  # handle -> the values in it that may hold tracked objects
        self.held: dict = {}  # id(object) -> references to it in the snapshots and kids
        self.next = side
        self._pending: dict = {}  # handle -> (object, snapshot) of the message being made
        self._seen: dict = {}

    # -- encoding --------------------------------------------------------------------------
    def encode(self, value: object, changed: bool = False) -> object:
        """The tree of ``value`` for the other side (pending until :meth:`commit`). With
        ``changed``: the tree of ``(value, others)``, where ``others`` are the kept objects
        the value does not reach that changed since they last crossed — the other side must
        see them at this turn too (each object is checked once: what the value reaches was
        checked on the way)."""
        self._pending, self._seen = {}, {}
        node = self._enc(value, 0)
        if not changed:
            return node
        others = [
            self._enc(obj, 1)
            for handle, obj in list(self.objects.items())
            if id(obj) not in self._seen
            and not self._only_here(obj)
            and not state.unchanged(self.snaps[handle], state.snapshot(obj))
        ]
        return ["t", [node, ["t", others]]]

    def commit(self) -> None:
        for handle, (obj, snap) in self._pending.items():
            self._keep(handle, obj, snap)
        self._pending, self._seen = {}, {}

    def _keep(self, handle: int, obj: object, snap: tuple) -> None:
        self.objects[handle] = obj
        self.handles[id(obj)] = handle
        self.snaps[handle] = snap
        kids = state.kids(snap)
        self._hold(self.kids.get(handle, ()), -2)
        self._hold(kids, 2)  # each kid: once in the snapshot, once in the kids
        self.kids[handle] = kids

    def _hold(self, kids: object, step: int) -> None:
        held = self.held
        for kid in kids:
            key = id(kid)
            count = held.get(key, 0) + step
            if count:
                held[key] = count
            else:
                held.pop(key, None)

    def _only_here(self, obj: object) -> bool:
        """Nothing but this mirror holds ``obj``: its table entry and its snapshots' and
        kids' references, plus the four of the scan asking (the listed item, the loop
        variable, this method's argument, ``getrefcount``'s). Then no code of this side can
        have changed it since it last crossed, and it need not be checked."""
        return sys.getrefcount(obj) <= 5 + self.held.get(id(obj), 0)

    def reset(self) -> None:
        """Forget every object (handles are not reused): after a message one side could
        not take, both sides start again from whole objects."""
        self.objects, self.handles, self.snaps, self.kids = {}, {}, {}, {}
        self.held = {}
        self._pending, self._seen = {}, {}

    def rollback(self) -> None:
        self.next -= 2 * sum(1 for h in self._pending if h not in self.objects)
        self._pending, self._seen = {}, {}

    def _enc(self, value: object, depth: int) -> object:
        if depth > codec.MAX_DEPTH:
            raise codec.CannotCross(f"nested deeper than {codec.MAX_DEPTH} levels")
        kind = type(value)
        if kind is tuple or kind is frozenset:
            tag = "t" if kind is tuple else "F"
            return [tag, [self._enc(v, depth + 1) for v in value]]
        if kind is str:
            return ["s", value]
        if kind is int:
            return ["i", hex(value)]
        if kind in codec.VALUE_TYPES:
            return codec.value_node(value, self._enc, depth)
        if kind not in _KINDS and not self._as_data(value):
            node = self.refs.node(value, self._error, self._shape, self._attrs)
            if node is not None:
                return node
            if self.side == 1 and issubclass(kind, tuple) and hasattr(kind, "_fields"):
                # a named tuple whose class the test process cannot name (a module's
                # ``_CacheInfo = namedtuple("CacheInfo", ...)``) crosses as its items
                return self._enc(tuple(tuple.__iter__(value)), depth)
            raise codec.CannotCross(f"a {kind.__qualname__} object is not data")
        if isinstance(value, type):  # admitted there, or a shadow going home
            node = self._class_node(value)
            return node if node[0] == "R" else ["k", node]
        if not state.tracked(value):
            if kind in _VALUES or isinstance(value, (type, codec.enum.Enum)):
                return codec.Encoder().encode(value)
            return ["O", *self._object(value, depth + 1)]  # e.g. a tuple subclass
        key = id(value)
        if key in self._seen:
            return ["H", self._seen[key]]
        handle = self.handles.get(key)
        snap = state.snapshot(value)
        if handle is None:
            handle, self.next = self.next, self.next + 2
            self._seen[key] = handle
            self._pending[handle] = (value, snap)
            return ["N", handle, *self._contents(value, depth)]
        self._seen[key] = handle
        old = self.snaps[handle]
        if state.unchanged(old, snap):
            beneath = self._beneath(handle, depth + 1)
            return ["K", handle, beneath] if beneath else ["H", handle]
        self._pending[handle] = (value, snap)
        delta = self._delta(handle, value, old, snap, depth)
        if delta is not None:
            return ["D", handle, *delta]
        return ["U", handle, *self._contents(value, depth)]

    def _beneath(self, handle: int, depth: int) -> list:
        """Nodes of the tracked objects below an object that changed, found through the
        values it held when it last crossed."""
        out: list = []
        for kid in self.kids.get(handle, ()):
            out += self._visit(kid, depth)
        return out

    def _visit(self, value: object, depth: int) -> list:
        if depth > codec.MAX_DEPTH:
            raise codec.CannotCross(f"nested deeper than {codec.MAX_DEPTH} levels")
        if state.tracked(value):
            node = self._enc(value, depth)
            return [] if node[0] == "H" else [node]
        if isinstance(value, (tuple, frozenset)) and not set(map(type, value)) <= _SCALARS:
            return [n for item in value for n in self._visit(item, depth + 1)]
        return []

    def _delta(
        self, handle: int, value: object, old: tuple, new: tuple, depth: int
    ) -> "list | None":
        """Keys set and deleted of the one dict that changed (a plain dict's contents, or
        an instance's ``__dict__`` when nothing else of it changed); None: send it whole."""
        o_contents, o_attrs, o_slots = old
        n_contents, n_attrs, n_slots = new
        if type(value) is dict:
            before, after, where = o_contents, n_contents, "c"
        elif (
            n_attrs is not None
            and type(o_attrs) is dict
            and (o_contents is None or state.unchanged((o_contents,), (n_contents,)))
            and state.same(o_slots, n_slots)
        ):
            before, after, where = o_attrs, n_attrs, "a"
        else:
            return None
        size = len(before)
        if (
            len(after) >= size
            and all(map(operator.is_, itertools.islice(after, size), before))
            and all(map(operator.is_, itertools.islice(after.values(), size), before.values()))
        ):  # only added at the end: the common case, found at C speed
            changed, deleted = list(itertools.islice(after, size, None)), []
        else:
            changed = [k for k, v in after.items() if before.get(k, _MISSING) is not v]
            deleted = [k for k in before if k not in after]
            kept = [k for k in before if k in after]
            if kept + [k for k in after if k not in before] != list(after):
                return None  # the order changed (a key deleted and set again)
        if len(changed) + len(deleted) > max(8, len(after) // 2):
            return None
        deeper = depth + 1
        pairs = [[self._enc(k, deeper), self._enc(after[k], deeper)] for k in changed]
        gone = [self._enc(k, deeper) for k in deleted]
        return [where, pairs, gone, self._beneath(handle, deeper)]

    def _contents(self, value: object, depth: int) -> list:
        deeper = depth + 1
        kind = type(value)
        if kind is list or kind is set:
            return [_KINDS[kind], [self._enc(v, deeper) for v in value]]
        if kind is dict:
            return ["d", [[self._enc(k, deeper), self._enc(v, deeper)] for k, v in value.items()]]
        if kind is bytearray:
            return ["B", base64.b64encode(value).decode()]
        return ["o", *self._object(value, deeper)]

    def _object(self, value: object, depth: int) -> list:
        """class, base, payload, extra, attributes, slots — as ``codec.Encoder._object``,
        with every part encoded by this mirror."""
        kind = type(value)
        for klass in kind.__mro__:
            if klass is object or klass in codec._BASES or (klass.__flags__ & codec._HEAPTYPE):
                continue
            raise codec.CannotCross(f"a {kind.__qualname__} object is not data ({klass.__name__})")
        if getattr(value, "__class__", kind) is not kind:
            raise codec.CannotCross(f"a {kind.__qualname__} object disguises its class")
        cls = self._class_node(kind)
        base = codec._base_of(kind)
        base_name = base.__name__ if base else None
        payload: object = None
        extra: object = None
        if base in _DICTS:
            payload = [[self._enc(k, depth), self._enc(v, depth)] for k, v in dict.items(value)]
            if base is collections.defaultdict:
                extra = self._enc(value.default_factory, depth)
        elif base is collections.deque:
            payload = [self._enc(v, depth) for v in collections.deque.__iter__(value)]
            extra = value.maxlen
        elif base in (list, tuple, set, frozenset):
            payload = [self._enc(v, depth) for v in base.__iter__(value)]
        elif base is bytearray:
            payload = self._enc(bytes(value), depth)
        elif base is not None:
            payload = self._enc(base(value), depth)
        try:
            attrs = object.__getattribute__(value, "__dict__")
        except AttributeError:
            attrs = {}
        state = {name: self._enc(item, depth) for name, item in dict.items(attrs)}
        slots = {}
        for name, desc in codec._slots(kind).items():
            try:
                slots[name] = self._enc(desc.__get__(value, kind), depth)
            except AttributeError:
                continue
        return [cls, base_name, payload, extra, state, slots]

    # -- decoding --------------------------------------------------------------------------
    def decode(self, node: object) -> object:
        """The value of ``node``, known objects changed in place (pending until commit)."""
        self._pending, self._seen = {}, {}
        try:
            return self._dec(node, 0)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as exc:
            raise codec.CannotCross(f"malformed value ({type(exc).__name__})") from None

    def _pairs(self, node: object, depth: int) -> list:
        return [
            (self._dec(k, depth), self._dec(v, depth))
            for k, v in map(codec._list, codec._list(node))
        ]

    def _known(self, handle: object) -> object:
        if type(handle) is not int:
            raise codec.CannotCross("malformed handle")
        if handle in self._pending:
            return self._pending[handle][0]
        if handle not in self.objects:
            raise codec.CannotCross("a handle this side does not hold")
        return self.objects[handle]

    def _dec(self, node: object, depth: int) -> object:
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise codec.CannotCross("malformed value")
        if depth > codec.MAX_DEPTH + 2:
            raise codec.CannotCross(f"nested deeper than {codec.MAX_DEPTH} levels")
        tag, rest, deeper = node[0], node[1:], depth + 1
        if tag in ("t", "F"):
            items = [self._dec(v, deeper) for v in codec._list(rest[0])]
            return tuple(items) if tag == "t" else frozenset(items)
        if tag == "H":
            return self._known(rest[0])
        if tag == "K":
            obj = self._known(rest[0])
            for inner in codec._list(rest[1]):
                self._dec(inner, deeper)
            return obj
        if tag == "N":
            handle = rest[0]
            if type(handle) is not int or handle % 2 == self.side or handle in self.objects:
                raise codec.CannotCross("malformed new handle")
            if handle in self._pending:
                raise codec.CannotCross("a handle made twice")
            return self._build(handle, rest[1], rest[2:], deeper)
        if tag == "U":
            obj = self._known(rest[0])
            self._fill(obj, rest[1], rest[2:], deeper)
            self._pending[rest[0]] = (obj, None)
            return obj
        if tag == "D":
            obj = self._known(rest[0])
            self._apply(obj, rest[1:], deeper)
            self._pending[rest[0]] = (obj, None)
            return obj
        if tag == "O":
            return self._immutable(rest, deeper)
        if tag == "R":
            return self.refs.resolve(rest, self.decoder, self._dec, self._shadow)
        if tag == "v":
            return codec.build_value(rest, self._dec, deeper)
        if tag not in _SCALAR_TAGS:
            raise codec.CannotCross(f"unknown value tag {tag!r}")
        return self.decoder.decode(node, depth)  # scalars, enum members, classes

    def _build(self, handle: int, kind: str, parts: list, depth: int) -> object:
        if kind == "o":
            cls = self._cls(parts[0])
            base = codec._base_of(cls)
            if base not in _MUTABLE_BASES or (base.__name__ if base else None) != parts[1]:
                raise codec.CannotCross(f"{cls.__qualname__}: not a mutable object")
            obj = (base or object).__new__(cls)
            if base is collections.deque:
                maxlen = parts[3] if type(parts[3]) is int and parts[3] >= 0 else None
                collections.deque.__init__(obj, (), maxlen)
        else:
            kinds = {v: k for k, v in _KINDS.items()}
            if kind not in kinds:
                raise codec.CannotCross("malformed kind")
            obj = kinds[kind]()
        self._pending[handle] = (obj, None)
        self._fill(obj, kind, parts, depth)
        return obj

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
        base = codec._base_of(cls)
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
        known = codec._slots(cls)
        if set(slots) - set(known):
            raise codec.CannotCross(f"{cls.__qualname__} has no such slots")
        for name, desc in known.items():
            if name in slots:
                desc.__set__(obj, self._dec(slots[name], depth))
            else:
                with contextlib.suppress(AttributeError):
                    desc.__delete__(obj)

    def _apply(self, obj: object, parts: list, depth: int) -> None:
        """A ``D`` node: keys set and deleted in a dict or an instance's ``__dict__``."""
        where, pairs, gone, beneath = parts[:4]
        if where == "c" and type(obj) is dict:
            table = obj
        elif where == "a" and type(obj) not in _KINDS:
            table = object.__getattribute__(obj, "__dict__")
            if type(table) is not dict:
                raise codec.CannotCross("an object without a plain __dict__")
        else:
            raise codec.CannotCross("malformed change")
        made = self._pairs(pairs, depth)
        dropped = [self._dec(k, depth) for k in codec._list(gone)]
        for key in dropped:
            dict.pop(table, key, None)
        for key, value in made:
            dict.__setitem__(table, key, value)
        for inner in codec._list(beneath):
            self._dec(inner, depth)

    def _immutable(self, parts: list, depth: int) -> object:
        """An ``O`` node: an instance of an immutable builtin base, built anew."""
        class_ref, base_name, payload = parts[:3]
        cls = self._cls(class_ref)
        base = codec._base_of(cls)
        if base in _MUTABLE_BASES or base.__name__ != base_name:
            raise codec.CannotCross(f"{cls.__qualname__}: not an immutable value")
        if base in (tuple, frozenset):
            obj = base.__new__(cls, [self._dec(v, depth) for v in codec._list(payload)])
        else:
            value = self._dec(payload, depth)
            if type(value) is not base:
                raise codec.CannotCross("malformed scalar payload")
            obj = base.__new__(cls, value)
        self._state(obj, cls, parts[4], parts[5], depth)
        return obj

    def settle(self) -> None:
        """After a decoded message was applied: keep it, snapshot what it touched."""
        for handle, (obj, _) in self._pending.items():
            self._keep(handle, obj, state.snapshot(obj))
        self._pending, self._seen = {}, {}
