"""Calls that send only what changed: both sides keep the objects they exchanged.

The test process (even handles) and the worker (odd handles) each keep every mutable
object that crossed — lists, dicts, sets, bytearrays, deques and the project's instances
— under a handle both know, with a shallow snapshot of its contents when it last crossed.
A message then carries its value, in which each kept object is only its handle (``H``),
and one entry per object that is new (``N``: its whole contents) or changed since it last
crossed — what changed in its one changed part (``D``: ``_beyondpass_deltas``), or its
whole contents (``U``). Entries are flat: an object holds the handles of the objects
it holds, so a linked list of 10,000 nodes is 10,000 entries, not a value nested 10,000
deep. A change is a different object at a place (identity against the snapshot: ``1``
replaced by ``True`` is one). Every live kept object is checked at every message, a class
at a time (``_beyondpass_changes``), whether the value reaches it or not; what no code of
this side reaches any more sleeps (``_beyondpass_liveness``). Received changes are
written into the receiver's own objects in place: on the test side every object the call
changed, at any depth, is the caller's own object with the new state.

Values are built by the rules of ``_beyondpass_codec`` (data only, classes admitted by
``find_class``, no code of a class runs); a message that does not fit them, or names a
handle the receiver does not hold, is refused (:class:`~codec.CannotCross`). Encoding and
decoding are transactions: :meth:`Mirror.encode` keeps its new handles and snapshots
pending until :meth:`Mirror.commit` (after the frame was sent), :meth:`Mirror.rollback`
forgets them; a message one side cannot take makes both sides :meth:`Mirror.reset`
(the next message says so), so one bad call never leaves the two views apart. This file
imports nothing from beyondpass: it is copied into both sandboxes as ``_beyondpass_mirror``.

What the mirror keeps of each object between crossings (its shallow snapshot, whether it
changed) is ``_beyondpass_state``; how a value crosses — as data, as an instance of a
shadow of a test's class, or by reference (``_beyondpass_refs``) — is ``_beyondpass_kinds``.
"""

import base64
import collections

import _beyondpass_changes as changes
import _beyondpass_classes as classes
import _beyondpass_codec as codec
import _beyondpass_deltas as deltas
import _beyondpass_kinds as kinds
import _beyondpass_liveness as liveness
import _beyondpass_refs as refs
import _beyondpass_state as state

_DICTS, _MUTABLE_BASES, _KINDS = state.DICTS, state.MUTABLE_BASES, state.KINDS
_VALUES = state.VALUES
_PRUNE_FIRST = 64  # live objects at the first look for the unreachable (then at doubling)
_SCALAR_TAGS = frozenset("nbifcsyek")


class Mirror(kinds.Kinds, deltas.Deltas):
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
        self.live: dict = {}  # handle -> object, of those code of this side can still reach
        self.groups: dict = {}  # class -> {handle: object} of the live ones, by class
        self._filed: dict = {}  # handle -> the class it is filed under in ``groups``
        self.handles: dict = {}  # id(object) -> handle
        self.snaps: dict = {}  # handle -> shallow contents when it last crossed
        self.sleeping: dict = {}  # id(object) -> the times sleeping objects hold it
        self.next = side
        self._pending: dict = {}  # handle -> (object, snapshot) of the message being made
        self._new: dict = {}  # handle -> ``N`` entry of the message being read
        self._seen: dict = {}
        self._fresh: dict = {}  # handle -> snapshot of each live object that may have changed
        self._unchecked: set = set()  # objects woken while encoding: not looked at
        self._asleep: list | None = None  # handles that go to sleep when the message is sent
        self._prune_at = _PRUNE_FIRST  # the number of live objects of the next look

    # -- encoding --------------------------------------------------------------------------
    def encode(self, value: object) -> object:
        """The tree of a message carrying ``value`` (pending until :meth:`commit`):
        ``["M", value, entries]``, where each kept object is only its handle (``H``) and
        ``entries`` hold every object that is new or changed since it last crossed — met in
        the value or not: the other side must see every change at every turn. Only live
        objects are checked, each once, a class at a time (``_beyondpass_changes``); when
        they have grown enough since the last look, those no code of this side reaches any
        more go to sleep once the message is sent (``_beyondpass_liveness``)."""
        self._pending, self._seen, self._asleep, self._queue = {}, {}, None, []
        prune = len(self.live) >= self._prune_at
        # references first: before anything of this turn holds one
        counts = liveness.references(self.live, self.groups) if prune else {}
        handles = list(self.live) if prune else []
        found = changes.changed(self.groups, self.snaps)
        self._unchecked = set()
        self._fresh = {handle: state.snapshot(self.objects[handle]) for handle in found}
        try:
            node = self._enc(value, 0)
            stored = {handle: self._kids(handle) for handle in handles} if prune else {}
            kids = dict(stored)
            for handle, snap in list(self._fresh.items()):
                if not state.unchanged(self.snaps[handle], snap):
                    self._enc(self.objects[handle], 0)
                    if prune:
                        kids[handle] = state.kids(snap)
            entries = []
            while self._queue:  # an entry's encoding may queue the objects it holds
                entries.append(self._entry(*self._queue.pop()))
            if prune:
                live = {handle: self.objects[handle] for handle in handles}
                self._asleep = liveness.asleep(live, counts, kids, stored, self.sleeping)
        finally:
            self._fresh, self._unchecked, self._queue = {}, set(), []
        return ["M", node, entries]

    def commit(self) -> None:
        self.refs.commit()
        for handle, (obj, snap) in self._pending.items():
            self._keep(handle, obj, snap)
        if self._asleep is not None:  # the live objects were looked at: next look later
            for handle in self._asleep:
                self._sleep(handle)
            self._prune_at = max(_PRUNE_FIRST, 2 * len(self.live))
        self._pending, self._seen, self._asleep = {}, {}, None

    def _sleep(self, handle: int) -> None:
        """No code of this side reaches the object: stop checking it; count what it holds."""
        if self.live.pop(handle, None) is not None:
            self._unfile(handle)
            self._hold(self._kids(handle), 1)

    def _wake(self, handle: int) -> None:
        """A message named a sleeping object: code reaches it, and what it holds, again."""
        stack = [handle]
        while stack:
            handle = stack.pop()
            if handle in self.live or handle not in self.objects:
                continue
            self._file(handle, self.objects[handle])
            self._unchecked.add(handle)
            kids = self._kids(handle)
            self._hold(kids, -1)
            stack += [self.handles[id(v)] for v in state.reached(kids) if id(v) in self.handles]

    def _keep(self, handle: int, obj: object, snap: tuple) -> None:
        if handle in self.objects:
            self._wake(handle)
        self.objects[handle] = obj
        self._file(handle, obj)
        self.handles[id(obj)] = handle
        self.snaps[handle] = snap

    def _file(self, handle: int, obj: object) -> None:
        """Make ``obj`` live, filed under its class (the change finder takes a class at
        a time)."""
        cls = type(obj)
        if self._filed.get(handle, cls) is not cls:
            self._unfile(handle)
        self.live[handle] = obj
        self.groups.setdefault(cls, {})[handle] = obj
        self._filed[handle] = cls

    def _unfile(self, handle: int) -> None:
        cls = self._filed.pop(handle, None)
        if cls is not None:
            members = self.groups[cls]
            del members[handle]
            if not members:
                del self.groups[cls]

    def _kids(self, handle: int) -> list:
        """The values the object held when it last crossed that may hold tracked objects
        (worked out when asked: its snapshot does not change while it sleeps)."""
        return state.kids(self.snaps[handle])

    def _hold(self, kids: object, step: int) -> None:
        held = self.sleeping
        for kid in kids:
            key = id(kid)
            count = held.get(key, 0) + step
            if count:
                held[key] = count
            else:
                held.pop(key, None)

    def reset(self) -> None:
        """Forget every object (handles are not reused): after a message one side could
        not take, both sides start again from whole objects."""
        self.refs.rollback(forget=True)
        self.objects, self.handles, self.snaps = {}, {}, {}
        self.live, self.sleeping, self.groups, self._filed = {}, {}, {}, {}
        self._pending, self._seen, self._asleep = {}, {}, None
        self._prune_at = _PRUNE_FIRST

    def rollback(self) -> None:
        self.refs.rollback()
        self.next -= 2 * sum(1 for h in self._pending if h not in self.objects)
        self._pending, self._seen, self._asleep = {}, {}, None

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
        return ["H", self._handle(value)]

    def _handle(self, value: object) -> int:
        """The handle of a kept object; a new or changed one is queued for an entry."""
        key = id(value)
        handle = self._seen.get(key)
        if handle is not None:
            return handle
        handle = self.handles.get(key)
        if handle is None:
            handle, self.next = self.next, self.next + 2
            self._seen[key] = handle
            snap = state.snapshot(value)
            self._pending[handle] = (value, snap)
            self._queue.append((handle, value, None, snap))
            return handle
        self._seen[key] = handle
        if handle not in self.live:
            self._wake(handle)  # code held it after all: check it from now on
        snap = self._fresh.get(handle)
        if snap is None:
            if handle not in self._unchecked:
                return handle  # found unchanged with the others of its class
            snap = state.snapshot(value)
        old = self.snaps[handle]
        if not state.unchanged(old, snap):
            self._pending[handle] = (value, snap)
            self._queue.append((handle, value, old, snap))
        return handle

    def _entry(self, handle: int, value: object, old: "tuple | None", new: tuple) -> list:
        """A new object whole (``N``), the keys set and deleted of a changed one (``D``),
        or its whole contents (``U``)."""
        if old is None:
            return ["N", handle, *self._contents(value, 0)]
        delta = self._delta(value, old, new)
        if delta is not None:
            return ["D", handle, *delta]
        return ["U", handle, *self._contents(value, 0)]

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
            if klass is object or klass in classes.BASES or classes.in_python(klass):
                continue
            raise codec.CannotCross(f"a {kind.__qualname__} object is not data ({klass.__name__})")
        if getattr(value, "__class__", kind) is not kind:
            raise codec.CannotCross(f"a {kind.__qualname__} object disguises its class")
        cls = self._class_node(kind)
        base = classes.base_of(kind)
        base_name = base.__name__ if base else None
        payload: object = None
        extra: object = None
        if base in _DICTS:
            payload = [
                [self._enc(k, depth), self._enc(v, depth)] for k, v in classes.items(base, value)
            ]
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
        for name, desc in classes.slots(kind).items():
            try:
                slots[name] = self._enc(desc.__get__(value, kind), depth)
            except AttributeError:
                continue
        return [cls, base_name, payload, extra, state, slots]

    # -- decoding --------------------------------------------------------------------------
    def decode(self, node: object) -> object:
        """The value a message carries, its entries applied: new objects made, known ones
        changed in place (pending until :meth:`settle`). New objects are made empty first
        (each when first named: a shadow class's constants may be objects of the message),
        so an entry may name any object of the message; they are filled in the reverse
        order of the entries (what an object holds before the object: a set's members
        are whole when they are hashed)."""
        self._pending, self._seen = {}, {}
        try:
            tag, value, entries = codec._list(node)
            if tag != "M":
                raise codec.CannotCross("malformed message value")
            entries = [codec._list(entry) for entry in codec._list(entries)]
            self._new = {e[1]: e for e in entries if e[0] == "N" and type(e[1]) is int}
            for entry in entries:
                if entry[0] == "N" and entry[1] not in self._pending:
                    self._shell(entry[1], entry[2], entry[3:])
            filled: set = set()
            for entry in reversed(entries):
                tag, handle = entry[0], entry[1]
                if tag not in ("N", "U", "D") or handle in filled:
                    raise codec.CannotCross("malformed entry")
                obj = self._known(handle)
                filled.add(handle)
                if tag == "D":
                    self._apply(obj, entry[2:], 0)
                else:
                    self._fill(obj, entry[2], entry[3:], 0)
                self._pending[handle] = (obj, None)
            return self._dec(value, 0)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as exc:
            raise codec.CannotCross(f"malformed value ({type(exc).__name__})") from None
        finally:
            self._new = {}

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
        if handle in self._new:  # an object of this message, named before its turn
            entry = self._new.pop(handle)  # (once: a class holding its own instance fails)
            self._shell(handle, entry[2], entry[3:])
            return self._pending[handle][0]
        if handle not in self.objects:
            raise codec.CannotCross("a handle this side does not hold")
        if handle not in self.live:
            self._wake(handle)
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
        if tag == "O":
            return self._immutable(rest, deeper)
        if tag == "R":
            return self.refs.resolve(rest, self.decoder, self._dec, self._shadow)
        if tag == "G":
            return self.refs.builtin(rest)
        if tag == "v":
            return codec.build_value(rest, self._dec, deeper)
        if tag not in _SCALAR_TAGS:
            raise codec.CannotCross(f"unknown value tag {tag!r}")
        return self.decoder.decode(node, depth)  # scalars, enum members, classes

    def _shell(self, handle: object, kind: str, parts: list) -> None:
        """A new object of the other side, made empty (no code of its class runs)."""
        if type(handle) is not int or handle % 2 == self.side or handle in self.objects:
            raise codec.CannotCross("malformed new handle")
        if handle in self._pending:
            raise codec.CannotCross("a handle made twice")
        if kind == "o":
            cls = self._cls(parts[0])
            base = classes.base_of(cls)
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

    def _immutable(self, parts: list, depth: int) -> object:
        """An ``O`` node: an instance of an immutable builtin base, built anew."""
        class_ref, base_name, payload = parts[:3]
        cls = self._cls(class_ref)
        base = classes.base_of(cls)
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
