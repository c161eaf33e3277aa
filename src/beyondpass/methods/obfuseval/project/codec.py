"""A data-only codec for calls between the test process and the worker.

Project mode runs a project's tests in one sandboxed process (trusted: the project's own
code and tests) and the model's function in another (hostile). Arguments, results and
exceptions cross between them as JSON trees built here. Decoding never unpickles and
never calls a class's own code: it builds the builtin scalars and containers, the
``collections`` containers, the standard library's values (``VALUE_TYPES``: ``range``,
``slice``, dates and times at fixed offsets, ``Decimal``, ``Fraction``, each through its
own constructor; ``functools.partial``; ``inspect.Signature``), enum members, and
instances of classes that the receiving side's ``find_class`` admits (the project's own),
made with the builtin base's ``__new__`` and filled by writing their ``__dict__`` and
slots directly (no ``__init__``, ``__setstate__`` or ``__setattr__`` runs). The only code
of a project class that decoding can reach is ``__hash__``/``__eq__`` of dict keys and
set members. Anything else — functions, generators, files, classes defined inside
functions — is not data: :class:`CannotCross` (it goes by reference: ``refs.py``).

Frames are the sandbox channel's (``wire``: a length-prefixed JSON body of at most 64 MiB,
read with deadlines); this module is what is inside them. Its rules differ from
``wire``'s on purpose: ``wire`` lets no object of the candidate reach the judge, while
here the project's own class instances cross, with identity, so the proxy can write a
call's effects back into the caller's objects. A message is one JSON object
(:func:`message`), its values trees of this module (and of the mirror, ``mirror.py``).

This file imports nothing from beyondpass: it is copied into both sandboxes.
"""

import base64
import builtins
import collections
import contextlib
import datetime
import decimal
import enum
import fractions
import functools
import inspect
import json

import _beyondpass_classes as classes

MAX_DEPTH = 150  # nesting of containers and objects
_STDLIB = {
    ("collections", "Counter"): collections.Counter,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "defaultdict"): collections.defaultdict,
    ("collections", "deque"): collections.deque,
}
#: builtin types that may travel as class references (a defaultdict's factory, ``cls``,
#: the exception classes an ``except`` names)
_BUILTIN_TYPES = {
    t.__name__: t
    for t in (int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset, bool)
}
_BUILTIN_TYPES.update(
    (name, value)
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
#: standard-library value types, crossing as ``["v", kind, ...]`` (exact types only)
VALUE_TYPES = {
    range: "range",
    slice: "slice",
    datetime.date: "date",
    datetime.time: "time",
    datetime.datetime: "datetime",
    datetime.timedelta: "timedelta",
    datetime.timezone: "timezone",
    decimal.Decimal: "decimal",
    fractions.Fraction: "fraction",
    functools.partial: "partial",  # its function, arguments and keywords, each as they cross
    inspect.Signature: "signature",  # each parameter's name, kind, default and annotation
}
_P = inspect.Parameter
#: ``inspect.Parameter`` kinds by their numbers (``int(kind)``)
_PARAMETER_KINDS = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD, _P.VAR_POSITIONAL,
                    _P.KEYWORD_ONLY, _P.VAR_KEYWORD)  # fmt: skip


class CannotCross(Exception):
    """A value that is not data (or not of an admitted class) cannot cross the boundary."""


def message(body: bytes) -> dict:
    """The message in a frame's body: one JSON object (``ValueError`` when it is not).

    Only ``json.loads`` runs here; the values inside are built later by a :class:`Decoder`.
    """
    try:
        found = json.loads(body)
    except RecursionError:
        raise ValueError("a frame is nested too deeply") from None
    if not isinstance(found, dict):
        raise ValueError("a frame is not a JSON object")
    return found


# -- encoding -----------------------------------------------------------------------------
def _class_ref(cls: type) -> list:
    if cls.__module__ == "builtins" and _BUILTIN_TYPES.get(cls.__name__) is cls:
        return ["builtins", cls.__name__]
    if "<" in cls.__qualname__:
        raise CannotCross(f"class {cls.__qualname__} is defined inside a function")
    return [cls.__module__, cls.__qualname__]


class Encoder:
    """Turns a value into a JSON tree; one encoder per message keeps shared references."""

    def __init__(self) -> None:
        self.ids: dict = {}
        self.keep: list = []  # keeps encoded objects alive so their ids stay unique

    def encode(self, value: object, depth: int = 0) -> object:
        kind = type(value)
        if value is None:
            return ["n"]
        if kind is bool:
            return ["b", value]
        if kind is int:
            return ["i", hex(value)]
        if kind is float:
            return ["f", value.hex()]
        if kind is complex:
            return ["c", value.real.hex(), value.imag.hex()]
        if kind is str:
            return ["s", value]
        if kind is bytes:
            return ["y", base64.b64encode(value).decode()]
        if kind in VALUE_TYPES:
            return value_node(value, self.encode, depth)
        if isinstance(value, enum.Enum):
            return ["e", _class_ref(kind), value.name]
        if isinstance(value, type):
            return ["k", _class_ref(value)]
        if depth > MAX_DEPTH:
            raise CannotCross(f"nested deeper than {MAX_DEPTH} levels")
        key = id(value)
        if key in self.ids:
            return ["r", self.ids[key]]
        self.ids[key] = ref = len(self.ids)
        self.keep.append(value)
        deeper = depth + 1
        if kind in (list, tuple, set, frozenset):
            tag = {list: "l", tuple: "t", set: "S", frozenset: "F"}[kind]
            return [tag, ref, [self.encode(v, deeper) for v in value]]
        if kind is dict:
            return [
                "d",
                ref,
                [[self.encode(k, deeper), self.encode(v, deeper)] for k, v in value.items()],
            ]
        if kind is bytearray:
            return ["B", ref, base64.b64encode(value).decode()]
        return self._object(value, ref, deeper)

    def _object(self, value: object, ref: int, depth: int) -> list:
        cls = type(value)
        for klass in cls.__mro__:
            if klass is object or klass in classes.BASES or classes.in_python(klass):
                continue
            raise CannotCross(f"a {cls.__qualname__} object is not data ({klass.__name__})")
        if getattr(value, "__class__", cls) is not cls:
            raise CannotCross(f"a {cls.__qualname__} object disguises its class")
        base = classes.base_of(cls)
        payload: object = None
        extra: object = None
        if base in (dict, collections.OrderedDict, collections.defaultdict):
            payload = [
                [self.encode(k, depth), self.encode(v, depth)]
                for k, v in classes.items(base, value)
            ]
            if base is collections.defaultdict:
                factory = value.default_factory
                if factory is not None and not isinstance(factory, type):
                    raise CannotCross("a defaultdict's factory is not a class")
                extra = self.encode(factory, depth)
        elif base is collections.deque:
            payload = [self.encode(v, depth) for v in collections.deque.__iter__(value)]
            extra = value.maxlen
        elif base in (list, tuple, set, frozenset):
            payload = [self.encode(v, depth) for v in base.__iter__(value)]
        elif base is not None:
            payload = self.encode(base(value), depth)
        state = {}
        try:
            attrs = object.__getattribute__(value, "__dict__")
        except AttributeError:
            attrs = {}
        for name, item in dict.items(attrs):
            if type(name) is not str:
                raise CannotCross("an attribute name is not a string")
            state[name] = self.encode(item, depth)
        slots = {}
        for name, desc in classes.slots(cls).items():
            try:
                item = desc.__get__(value, cls)
            except AttributeError:
                continue
            slots[name] = self.encode(item, depth)
        return [
            "o",
            ref,
            _class_ref(cls),
            base.__name__ if base else None,
            payload,
            extra,
            state,
            slots,
        ]


def encode(value: object) -> object:
    return Encoder().encode(value)


def _delta(value: datetime.timedelta) -> list:
    return [value.days, value.seconds, value.microseconds]


def value_node(value: object, encode, depth: int) -> list:
    """A standard-library value as numbers and strings (``encode``: the sender's encoder,
    for the parts of a ``slice`` and a zone)."""
    kind = VALUE_TYPES[type(value)]
    deeper = depth + 1
    if kind == "range":
        return ["v", kind, hex(value.start), hex(value.stop), hex(value.step)]
    if kind == "slice":
        return ["v", kind, *(encode(x, deeper) for x in (value.start, value.stop, value.step))]
    if kind == "timedelta":
        return ["v", kind, *_delta(value)]
    if kind == "timezone":
        offset = value.utcoffset(None)
        name = value.tzname(None)
        default = datetime.timezone(offset).tzname(None)
        return ["v", kind, _delta(offset), None if name == default else name]
    if kind == "decimal":
        return ["v", kind, str(value)]
    if kind == "fraction":
        return ["v", kind, hex(value.numerator), hex(value.denominator)]
    if kind == "signature":  # null: none (``Parameter.empty``)
        empty = inspect.Parameter.empty

        def part(x: object) -> object:
            return None if x is empty else encode(x, deeper)

        params = [
            [p.name, int(p.kind), part(p.default), part(p.annotation)]
            for p in value.parameters.values()
        ]
        return ["v", kind, params, part(value.return_annotation)]
    if kind == "partial":  # the keywords as pairs: a dict of its own, never a kept object
        parts = (value.func, value.args, tuple(value.keywords.items()))
        return ["v", kind, *(encode(x, deeper) for x in parts)]
    zone = value.tzinfo if kind != "date" else None
    if zone is not None and type(zone) is not datetime.timezone:
        raise CannotCross(f"a {kind} in the zone {type(zone).__name__} is not data")
    naive = value.replace(tzinfo=None) if zone is not None else value
    fold = getattr(value, "fold", 0)
    return ["v", kind, naive.isoformat(), None if zone is None else encode(zone, deeper), fold]


def build_value(rest: list, decode, depth: int) -> object:
    """The standard-library value of a ``v`` node (``decode``: the receiver's decoder)."""
    kind = _str(rest[0])
    if kind == "range":
        return range(*(int(_str(x), 16) for x in rest[1:4]))
    if kind == "slice":
        return slice(*(decode(x, depth) for x in rest[1:4]))
    if kind == "timedelta":
        return datetime.timedelta(*(_int(x) for x in rest[1:4]))
    if kind == "timezone":
        offset = datetime.timedelta(*(_int(x) for x in _list(rest[1])))
        return (
            datetime.timezone(offset)
            if rest[2] is None
            else datetime.timezone(offset, _str(rest[2]))
        )
    if kind == "decimal":
        return decimal.Decimal(_str(rest[1]))
    if kind == "fraction":
        return fractions.Fraction(int(_str(rest[1]), 16), int(_str(rest[2]), 16))
    if kind == "signature":
        return _signature(rest, decode, depth)
    if kind == "partial":
        func, args, keywords = (decode(x, depth) for x in rest[1:4])
        pairs = keywords if type(keywords) is tuple else ((None,),)
        if not callable(func) or type(args) is not tuple or {type(k) for k, *_ in pairs} - {str}:
            raise CannotCross("malformed partial")
        return functools.partial(func, *args, **dict(keywords))
    builders = {"date": datetime.date, "time": datetime.time, "datetime": datetime.datetime}
    if kind not in builders:
        raise CannotCross(f"unknown value kind {kind[:20]!r}")
    made = builders[kind].fromisoformat(_str(rest[1]))
    if kind == "date":
        return made
    zone = None if rest[2] is None else decode(rest[2], depth)
    if zone is not None and type(zone) is not datetime.timezone:
        raise CannotCross("malformed zone")
    return made.replace(tzinfo=zone, fold=1 if rest[3] == 1 else 0)


def _signature(rest: list, decode, depth: int) -> inspect.Signature:
    empty = inspect.Parameter.empty

    def part(x: object) -> object:
        return empty if x is None else decode(x, depth)

    params = []
    for entry in _list(rest[1]):
        name, kind, default, annotation = _list(entry)
        if type(kind) is not int or not 0 <= kind < len(_PARAMETER_KINDS):
            raise CannotCross("malformed signature")
        try:
            made = inspect.Parameter(
                _str(name),
                _PARAMETER_KINDS[kind],
                default=part(default),
                annotation=part(annotation),
            )
        except ValueError:
            raise CannotCross("malformed signature") from None
        params.append(made)
    try:
        return inspect.Signature(params, return_annotation=part(rest[2]))
    except ValueError:
        raise CannotCross("malformed signature") from None


# -- decoding -----------------------------------------------------------------------------
class Decoder:
    """Builds values from a JSON tree; ``find_class(module, qualname)`` returns an admitted
    class or None (then the value cannot cross)."""

    def __init__(self, find_class) -> None:
        self.find_class = find_class
        self.made: dict = {}

    def cls(self, ref: object) -> type:
        if not (isinstance(ref, list) and len(ref) == 2 and all(isinstance(p, str) for p in ref)):
            raise CannotCross("malformed class reference")
        module, name = ref
        if module == "builtins" and name in _BUILTIN_TYPES:
            return _BUILTIN_TYPES[name]
        found = _STDLIB.get((module, name)) or self.find_class(module, name)
        if not isinstance(found, type):
            raise CannotCross(f"class {module}.{name} is not admitted here")
        return found

    def decode(self, node: object, depth: int = 0) -> object:
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise CannotCross("malformed value")
        if depth > MAX_DEPTH + 2:
            raise CannotCross(f"nested deeper than {MAX_DEPTH} levels")
        try:
            return self._decode(node[0], node[1:], depth + 1)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, OverflowError) as exc:
            raise CannotCross(f"malformed value ({type(exc).__name__})") from None

    def _decode(self, tag: str, rest: list, depth: int) -> object:
        if tag == "n":
            return None
        if tag == "b":
            return bool(rest[0] is True)
        if tag == "i":
            return int(_str(rest[0]), 16)
        if tag == "f":
            return float.fromhex(_str(rest[0]))
        if tag == "c":
            return complex(float.fromhex(_str(rest[0])), float.fromhex(_str(rest[1])))
        if tag == "s":
            return _str(rest[0])
        if tag == "y":
            return base64.b64decode(_str(rest[0]), validate=True)
        if tag == "v":
            return build_value(rest, self.decode, depth)
        if tag == "e":
            cls = self.cls(rest[0])
            if not issubclass(cls, enum.Enum):
                raise CannotCross("not an enum")
            return cls[_str(rest[1])]
        if tag == "k":
            return self.cls(rest[0])
        if tag == "r":
            if rest[0] not in self.made:
                raise CannotCross("a reference to a value not built yet")
            return self.made[rest[0]]
        ref = rest[0]
        if type(ref) is not int or ref in self.made:
            raise CannotCross("malformed reference id")
        if tag == "l":
            out: list = []
            self.made[ref] = out
            out.extend(self.decode(v, depth) for v in _list(rest[1]))
            return out
        if tag == "S":
            made: set = set()
            self.made[ref] = made
            made.update(self.decode(v, depth) for v in _list(rest[1]))
            return made
        if tag == "d":
            table: dict = {}
            self.made[ref] = table
            for pair in _list(rest[1]):
                key, value = _list(pair)
                table[self.decode(key, depth)] = self.decode(value, depth)
            return table
        if tag == "t":
            self.made[ref] = done = tuple(self.decode(v, depth) for v in _list(rest[1]))
            return done
        if tag == "F":
            self.made[ref] = done = frozenset(self.decode(v, depth) for v in _list(rest[1]))
            return done
        if tag == "B":
            self.made[ref] = done = bytearray(base64.b64decode(_str(rest[1]), validate=True))
            return done
        if tag == "o":
            return self._object(ref, *rest[1:7], depth=depth)
        raise CannotCross(f"unknown value tag {tag!r}")

    def _object(self, ref, class_ref, base_name, payload, extra, state, slots, depth=1) -> object:
        cls = self.cls(class_ref)
        base = classes.base_of(cls)
        if (base.__name__ if base else None) != base_name:
            raise CannotCross(f"{cls.__qualname__} does not have the builtin base {base_name}")
        if base in (tuple, frozenset):
            items = [self.decode(v, depth) for v in _list(payload)]
            obj = base.__new__(cls, items)
            self.made[ref] = obj
        elif base in (int, float, complex, str, bytes, bool):
            value = self.decode(payload, depth)
            if type(value) is not base:
                raise CannotCross("malformed scalar payload")
            obj = base.__new__(cls, value)
            self.made[ref] = obj
        else:
            obj = (base or object).__new__(cls)
            self.made[ref] = obj
            if base is collections.defaultdict:
                factory = self.decode(extra, depth)
                if factory is not None and not isinstance(factory, type):
                    raise CannotCross("a defaultdict's factory is not a class")
                obj.default_factory = factory
            if base in (dict, collections.defaultdict, collections.OrderedDict):
                for pair in _list(payload):
                    key, value = _list(pair)
                    base.__setitem__(obj, self.decode(key, depth), self.decode(value, depth))
            elif base is collections.deque:
                maxlen = extra if type(extra) is int and extra >= 0 else None
                collections.deque.__init__(obj, (), maxlen)
                collections.deque.extend(obj, [self.decode(v, depth) for v in _list(payload)])
            elif base is list:
                list.extend(obj, [self.decode(v, depth) for v in _list(payload)])
            elif base is set:
                set.update(obj, [self.decode(v, depth) for v in _list(payload)])
            elif base is bytearray:
                bytearray.extend(obj, self.decode(payload, depth))
        self.fill(obj, cls, state, slots, depth)
        return obj

    def fill(self, obj: object, cls: type, state: object, slots: object, depth: int = 1) -> None:
        """Write decoded attributes straight into ``__dict__`` and slots (no user code)."""
        if not isinstance(state, dict) or not isinstance(slots, dict):
            raise CannotCross("malformed object state")
        values = {_str(k): self.decode(v, depth) for k, v in state.items()}
        try:
            attrs = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            attrs = None
        if values and type(attrs) is not dict:
            raise CannotCross(f"{cls.__qualname__} objects have no plain __dict__")
        if type(attrs) is dict:
            dict.clear(attrs)
            dict.update(attrs, values)
        known = classes.slots(cls)
        if set(slots) - set(known):
            raise CannotCross(f"{cls.__qualname__} has no such slots")
        for name, desc in known.items():
            if name in slots:
                desc.__set__(obj, self.decode(slots[name], depth))
            else:
                with contextlib.suppress(AttributeError):
                    desc.__delete__(obj)


def _str(value: object) -> str:
    if type(value) is not str:
        raise CannotCross("malformed value")
    return value


def _int(value: object) -> int:
    if type(value) is not int:
        raise CannotCross("malformed value")
    return value


def _list(value: object) -> list:
    if type(value) is not list:
        raise CannotCross("malformed value")
    return value
