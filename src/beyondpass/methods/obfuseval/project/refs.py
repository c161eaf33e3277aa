"""Remote references: what crosses the boundary by reference instead of by value.

Real tests hand a function more than data: callbacks and key functions, classes used as
factories, iterators and generators, ``object()`` sentinels, instances of classes their
own modules define, exceptions. None of these can be rebuilt from data on the other side,
so each crosses as a **reference**: the side that holds the object keeps it in its export
table under an id of its parity (the test process even, the worker odd) and the other side
gets a stand-in that knows only the id:

- ``call``: a callable. Calling the stand-in asks the owner to call the object with the
  arguments (data, or references again) and returns the owner's answer or raises its
  exception — a callback runs in the process that handed it over, never in the other.
- ``iter``: an iterator (a generator, ``iter(...)``, ``map``...). ``next`` on the stand-in
  asks the owner for one item, in the order the code asks: a generator is consumed
  lazily, an endless one works with a ``take``-style test. A generator's ``send``,
  ``throw`` and ``close`` are asked of the owner the same way, and a ``return`` value
  comes back as the ``StopIteration``'s.
- ``obj`` (test process to worker only): any other object that is not data. The stand-in
  offers nothing but identity; using it in any other way raises
  ``ArgumentsCannotCross``.
- ``exc``: an exception, rebuilt on the other side under its own type (:func:`build_error`)
  and kept in its export table, so an exception raised by a test's callback propagates
  through the answer and back as the test's own exception object.
- ``cls`` (test process to worker only): a class the test defines (in a test module or
  inside a test function). The worker gets a *shadow* of it (``mirror.Mirror._shape``): a
  class of its name on the shadows or real classes of its bases, with the same slots and
  class constants, whose methods, properties, class and static methods — ``__init__``,
  ``__eq__``, ``__hash__``, ``__lt__`` and the other special methods among them — are
  references to the test's own functions. So an instance of a test's class crosses as
  data (its ``__dict__`` and slots, kept in step by the mirror), ``isinstance``,
  ``except`` and ``raise`` work with the shadow, and every method the answer calls on it
  runs in the test process, on the test's own object.

A reference that comes back resolves to the original object, so identity holds for
everything that crosses by reference. The worker may hand over only ``call``, ``iter`` and
``exc`` references (never an opaque object), and it can use a reference only by asking:
its stand-ins hold an id, never an object of the test process. References live as long as
the session (the test run).

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_refs``.
"""

import builtins
import datetime
import decimal
import fractions
import functools
import inspect
import types

import _beyondpass_callables as callables
import _beyondpass_classes as classes
import _beyondpass_codec as codec

KINDS = ("call", "iter", "obj", "exc", "cls")
#: a class's members that a shadow never gets: the machinery of the class itself
NOT_SHADOWED = frozenset(
    [
        "__dict__",
        "__weakref__",
        "__module__",
        "__qualname__",
        "__slots__",
        "__new__",
        "__del__",
        "__getattribute__",
        "__setattr__",
        "__delattr__",
        "__init_subclass__",
        "__set_name__",
        "__class_getitem__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "__setstate__",
        "__copy__",
        "__deepcopy__",
        "__classcell__",
    ]
)
_NAME_LIMIT, MESSAGE_LIMIT = callables.NAME_LIMIT, callables.MESSAGE_LIMIT
#: standard-library types whose values cross as data (the codec's ``v`` values), never
#: as references, though some are iterable or callable
_DATA_TYPES = (range, slice, datetime.date, datetime.time, datetime.timedelta,
               datetime.timezone, decimal.Decimal, fractions.Fraction,
               functools.partial, inspect.Signature)  # fmt: skip


class ArgumentsCannotCross(Exception):
    """An argument is not data and cannot be used through a reference."""


class NoRemoteAttribute(ArgumentsCannotCross, AttributeError):
    """A reference offers no such attribute (an ``AttributeError``, so ``hasattr`` and
    ``getattr`` with a default work as with an object that lacks it)."""


class Stand:
    """Base of the stand-ins: what a side holds for the other side's object."""

    __slots__ = ("_ref", "_owner", "_names", "_attrs", "__weakref__")

    def __init__(
        self,
        ref: int,
        owner: "References",
        names: "dict | None" = None,
        attrs: "dict | None" = None,
    ) -> None:
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_owner", owner)
        object.__setattr__(self, "_names", names or {})
        object.__setattr__(self, "_attrs", attrs or {})

    def __repr__(self) -> str:
        names = object.__getattribute__(self, "_names")
        label = names.get("__qualname__") or f"#{object.__getattribute__(self, '_ref')}"
        return f"<remote {type(self).__name__.lower()} {label}>"

    def __getattr__(self, name: str) -> object:
        names = object.__getattribute__(self, "_names")
        if name in callables.NAMES and name in names:
            return names[name]
        attrs = object.__getattribute__(self, "_attrs")
        if name in attrs:  # a function's own attributes (``cache_info`` of a cached one)
            found = attrs[name]
            if name == "__signature__" and type(found) is tuple:  # as the original fails
                raise found[0](found[1])
            return found
        raise NoRemoteAttribute(
            f"a remote reference offers no attribute {name[:_NAME_LIMIT]!r} (it is used only "
            "by calling or iterating it, as it was handed over)"
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise ArgumentsCannotCross("a remote reference cannot be changed")

    def __reduce_ex__(self, protocol: object) -> object:
        raise ArgumentsCannotCross("a remote reference cannot be copied or pickled")


class Call(Stand):
    """A callable of the other side."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> object:
        if name in callables.NAMES:  # its own names, not this class's
            names = object.__getattribute__(self, "_names")
            return names.get(name)
        return object.__getattribute__(self, name)

    def __call__(self, *args: object, **kwargs: object) -> object:
        owner = object.__getattribute__(self, "_owner")
        return owner.ask("call", object.__getattribute__(self, "_ref"), (args, kwargs))


class Iter(Stand):
    """An iterator of the other side, read one item per request."""

    __slots__ = ()

    def __iter__(self) -> "Iter":
        return self

    def __next__(self) -> object:
        return self._ask("next", None)

    def send(self, value: object) -> object:
        """A generator's ``send``, done by the owner on the generator itself."""
        return self._ask("send", value)

    def throw(self, exc: object, *legacy: object) -> object:
        """A generator's ``throw`` (an exception instance or class, as Python takes it)."""
        if isinstance(exc, type) and issubclass(exc, BaseException):
            exc = exc(*legacy[:1])
        return self._ask("throw", exc)

    def close(self) -> None:
        self._ask("close", None)

    def _ask(self, op: str, value: object) -> object:
        owner = object.__getattribute__(self, "_owner")
        return owner.ask(op, object.__getattribute__(self, "_ref"), value)


class Opaque(Stand):
    """Any other object of the test process: identity only, and its truth when its class
    does not define one (then it is true, as every plain object)."""

    __slots__ = ()

    def __bool__(self) -> bool:
        if object.__getattribute__(self, "_names").get("plain") is True:
            return True
        raise ArgumentsCannotCross("a remote object's truth is its class's, not known here")


def kind_of(value: object, side: int) -> "str | None":
    """The reference kind ``value`` crosses as from ``side``, or None when it is not for a
    reference (data, or something this side may not hand over)."""
    if isinstance(value, BaseException):
        return "exc"
    if isinstance(value, type) and classes.in_python(value) and side == 0:
        return "cls"
    if isinstance(value, _DATA_TYPES):
        return None
    kind = type(value)
    if isinstance(value, types.GeneratorType) or (
        hasattr(kind, "__next__") and hasattr(kind, "__iter__")
    ):
        return "iter"
    if callable(value):
        return "call"
    return "obj" if side == 0 else None


class References:
    """One side's table of exported objects and of the other side's stand-ins.

    ``ask(op, ref, value)`` is set by the session: it sends a request for a stand-in's use
    and returns the answer (or raises the other side's exception)."""

    def __init__(self, side: int) -> None:
        self.side = side
        self.exported: dict = {}  # id -> object of this side
        self.ids: dict = {}  # id(object) -> its export id
        self.stands: dict = {}  # id of the other side -> stand-in (or rebuilt exception)
        self.stood: dict = {}  # id(stand-in) -> id of the other side
        self.next = side
        self.ask = _no_session
        self.named: set = set()  # (module, name) of the builtins that crossed by name
        self.sent: set = set()  # ids of this side whose whole node the other side has
        self._sending: set = set()  # ... in the message being made (kept on commit)

    def home(self, value: object) -> "list | None":
        """``["R", id]`` when ``value`` is a stand-in of the other side's object."""
        ref = self.stood.get(id(value))
        if ref is not None and self.stands.get(ref) is value:
            return ["R", ref]
        return None

    def node(self, value: object, error_of, shape_of=None, attrs_of=None) -> "list | None":
        """The ``R`` node of ``value``: a stand-in going home, or this side's object
        exported (the same id every time); None when it is not for a reference.
        ``error_of``/``shape_of``/``attrs_of``: the mirror's data of an exception, of a
        class and of a function's own attributes. A standard-library builtin goes by
        name instead (:func:`builtin_name`): from the test process, or back to it."""
        going_home = self.home(value)
        if going_home is not None:
            return going_home
        named = callables.builtin_name(value)
        if named is not None and (self.side == 0 or (named[1], named[2]) in self.named):
            self.named.add((named[1], named[2]))
            return named
        kind = kind_of(value, self.side)
        if kind is None:
            return None
        ref = self.ids.get(id(value))
        if ref is None:
            ref, self.next = self.next, self.next + 2
            self.exported[ref] = value
            self.ids[id(value)] = ref
        if ref in self.sent:  # the other side has its stand-in: the id is enough
            return ["R", ref]
        self._sending.add(ref)  # (whole in every place of this message: read in any order)
        if kind == "exc":
            return ["R", ref, kind, error_of(value)]
        if kind == "cls":
            if shape_of is None:
                raise codec.CannotCross("a class crosses only through the mirror")
            return ["R", ref, kind, shape_of(value)]
        if kind == "call":
            return ["R", ref, kind, callables.names(value), attrs_of(value) if attrs_of else {}]
        if kind == "obj":  # true unless its class says otherwise (read, not called)
            cls = type(value)
            return [
                "R",
                ref,
                kind,
                {"plain": not hasattr(cls, "__bool__") and not hasattr(cls, "__len__")},
            ]
        return ["R", ref, kind]

    def resolve(self, rest: list, decoder: "codec.Decoder", decode=None, shadow=None) -> object:
        """The object an ``R`` node names: this side's own, or the other side's stand-in
        (``decode``: the receiver's decoder of nodes, for an exception's class;
        ``shadow``: the mirror's builder of a shadow class)."""
        ref = rest[0]
        if type(ref) is not int or ref < 0:
            raise codec.CannotCross("malformed reference")
        if ref % 2 == self.side:
            if ref not in self.exported:
                raise codec.CannotCross("a reference this side never handed over")
            return self.exported[ref]
        if ref in self.stands:
            return self.stands[ref]
        kind = rest[1] if len(rest) > 1 else None
        if kind not in KINDS or (kind in ("obj", "cls") and self.side == 0):
            raise codec.CannotCross(f"a reference of kind {str(kind)[:20]!r} is not taken here")
        if kind == "exc":
            made: object = build_error(rest[2], decoder, decode)
        elif kind == "cls":
            if shadow is None:
                raise codec.CannotCross("a class crosses only through the mirror")
            made = shadow(rest[2])
        elif kind == "call":
            attrs = rest[3] if len(rest) > 3 and isinstance(rest[3], dict) else {}
            if attrs and decode is None:
                raise codec.CannotCross("a function's attributes cross only through the mirror")
            signature = callables.signature_from(attrs.pop("__signature__", None), decode)
            made = Call(
                ref,
                self,
                callables.names_of(rest[2] if len(rest) > 2 else None),
                {codec._str(k): decode(v, 1) for k, v in attrs.items()},
            )
            if signature is not None:
                object.__getattribute__(made, "_attrs")["__signature__"] = signature
        elif kind == "obj":
            shape = rest[2] if len(rest) > 2 and isinstance(rest[2], dict) else {}
            made = Opaque(ref, self, {"plain": shape.get("plain") is True})
        else:
            made = Iter(ref, self)
        self.stands[ref] = made
        self.stood[id(made)] = ref
        return made

    def commit(self) -> None:
        """The message was sent: the other side has the stand-ins of its whole nodes."""
        self.sent |= self._sending
        self._sending = set()

    def rollback(self, forget: bool = False) -> None:
        """The message was not sent (``forget``: nor did the other side take the last one
        whole; send whole nodes again)."""
        self._sending = set()
        if forget:
            self.sent = set()

    def builtin(self, rest: list) -> object:
        """The builtin a ``G`` node names. The worker imports its standard-library module;
        the test process takes only a builtin it handed over itself (an answer cannot have
        it call ``os.system``)."""
        module, name = codec._str(rest[0]), codec._str(rest[1])
        if self.side == 0 and (module, name) not in self.named:
            raise codec.CannotCross("a builtin the test process never handed over")
        found = callables.find_builtin(module, name)
        self.named.add((module, name))
        return found

    def target(self, ref: object, op: str) -> object:
        """This side's exported object a request names, if it may be used that way."""
        found = self.exported.get(ref) if type(ref) is int else None
        if found is None:
            raise codec.CannotCross("a request names a reference this side never handed over")
        if kind_of(found, self.side) != ("call" if op == "call" else "iter"):
            raise codec.CannotCross(f"that reference cannot be used by {op!r}")
        return found


def remote_method(call: object) -> object:
    """A function (so that it binds as a method) that calls ``call`` — a reference to the
    test's own function — with the instance and the arguments."""

    def method(*args: object, **kwargs: object) -> object:
        return call(*args, **kwargs)  # type: ignore[operator]

    return method


def _no_session(op: str, ref: int, value: object) -> object:
    raise ArgumentsCannotCross("a remote reference used outside a call")


def builtin_base(bases: object) -> type:
    for other in bases if isinstance(bases, list) else ():
        candidate = getattr(builtins, other, None) if isinstance(other, str) else None
        if isinstance(candidate, type) and issubclass(candidate, Exception):
            return candidate
    return Exception


def error_of(exc: BaseException, class_node=None) -> dict:
    """An exception as data: its type, bases and class, message and arguments (plain
    data only: arguments that cannot cross are left out, the message stays);
    ``class_node``: its class by reference when the other side has it only that way."""
    cls = type(exc)
    try:
        message = str(exc)[:MESSAGE_LIMIT]
    except Exception:
        message = ""
    try:
        args = codec.encode(tuple(exc.args))
    except Exception:
        args = None
    try:
        ref = codec._class_ref(cls)
    except Exception:
        ref = None
    found = {
        "type": cls.__name__,
        "bases": [c.__name__ for c in cls.__mro__],
        "class": ref,
        "message": message,
        "args": args,
        "suppress_context": exc.__suppress_context__ is True,
    }
    if class_node is not None:  # a class the other side has only as a stand-in
        found["cref"] = class_node
    return found


def build_error(error: object, decoder: "codec.Decoder", decode=None) -> BaseException:
    """:func:`_error` of ``error``, raised ``from None`` there when it was so raised."""
    made = _error(error, decoder, decode)
    if isinstance(error, dict) and error.get("suppress_context") is True:
        made.__suppress_context__ = True  # (``popitem``'s ``KeyError`` of a mapping)
    return made


def _error(error: object, decoder: "codec.Decoder", decode=None) -> BaseException:
    """The exception ``error`` (from :func:`error_of`) as one of this process: of the class
    its ``cref`` names (``decode``: the receiver's decoder of nodes), a builtin exception by
    name, an admitted class of that name, or else a new class of that name on its nearest
    builtin base. ``SystemExit`` is itself (pytest reports it as the test's failure, unless
    the test expects it); ``KeyboardInterrupt`` and ``GeneratorExit`` become plain
    exceptions of their name (a failure here, never the end of the run)."""
    if not isinstance(error, dict):
        raise codec.CannotCross("malformed exception")
    name = error.get("type")
    if not isinstance(name, str) or not name.isidentifier() or len(name) > _NAME_LIMIT:
        name = "Exception"
    message = error.get("message")
    message = message[:MESSAGE_LIMIT] if isinstance(message, str) else ""
    try:
        fresh = codec.Decoder(decoder.find_class)  # the args' ids are their own encoding's
        args = fresh.decode(error["args"]) if error.get("args") else (message,)
        if type(args) is not tuple:
            args = (message,)
    except (codec.CannotCross, ValueError, TypeError):
        args = (message,)
    cls = None
    try:
        if error.get("cref") is not None and decode is not None:
            found = decode(error["cref"], 1)  # a class only the other side defines
            if isinstance(found, type) and issubclass(found, BaseException):
                cls = found
        else:  # an admitted class of that name; a builtin is made by name below
            found = decoder.cls(error.get("class"))
            admitted = found.__module__ != "builtins" and issubclass(found, Exception)
            cls = found if admitted and found.__name__ == name else None
    except (codec.CannotCross, TypeError):
        pass
    builtin = getattr(builtins, name, None)
    if cls is None and isinstance(builtin, type) and issubclass(builtin, (Exception, SystemExit)):
        try:
            return builtin(*args)
        except Exception:  # an odd argument list for this type
            return builtin(message)
    if cls is not None:
        try:
            exc = BaseException.__new__(cls, *args)
            exc.args = args
            return exc
        except Exception:
            pass
    made = type(name, (builtin_base(error.get("bases")),), {"__module__": "worker"})
    try:
        return made(*args)
    except Exception:
        return made(message)
