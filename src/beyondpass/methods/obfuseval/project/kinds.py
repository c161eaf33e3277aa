"""How each value crosses: as data, as an instance of a shadow class, or by reference.

A value whose class the other side admits crosses as data; an instance of a class a test
defines crosses as data too, its class as a *shadow* the worker builds (:meth:`Kinds._shape`,
:meth:`Kinds._shadow`: the class's name, bases, slots and constants, its functions as
references to the test's own); everything else that is not data crosses by reference
(``_beyondpass_refs``). A mixin of the mirror (``_beyondpass_mirror``), whose encoder and
decoder it uses for the parts of a class and of a function's attributes.

This file imports nothing from beyondpass: it is copied into both sandboxes as
``_beyondpass_kinds``.
"""

import inspect

import _beyondpass_callables as callables
import _beyondpass_classes as classes
import _beyondpass_codec as codec
import _beyondpass_refs as refs
import _beyondpass_state as state

_SCALARS = state.SCALARS
_VALUES = state.VALUES


def shadowable(cls: type) -> bool:
    """A class defined in Python whose every base is too (or a builtin base the codec
    builds): a test's class, rebuilt as a shadow on the worker."""
    return all(k is object or k in classes.BASES or classes.in_python(k) for k in cls.__mro__)


def admitted(decoder: "codec.Decoder", cls: type) -> bool:
    """The other side admits what this side's own decoder admits (a builtin, one of the
    codec's standard containers, or a class ``find_class`` finds as itself)."""
    try:
        return decoder.cls(codec._class_ref(cls)) is cls
    except codec.CannotCross:
        return False


class Kinds:
    """The mirror's choices of how a value crosses (see the module docstring)."""

    def _as_data(self, value: object) -> bool:
        """Whether ``value`` crosses as data: data types, admitted classes and their
        members and instances; never an exception or a stand-in (those go by reference)."""
        kind = type(value)
        if kind in _VALUES:
            return True
        if isinstance(value, (BaseException, refs.Stand)):
            return False
        is_class = isinstance(value, type)
        cls = value if is_class else kind
        known = self._sendable.get((cls, is_class))
        if known is None:
            data = is_class or classes.in_python(kind) or kind in classes.BASES
            data = data or isinstance(value, codec.enum.Enum)
            known = bool(data) and (
                self.sendable(cls)
                or self.refs.home(cls) is not None  # a shadow of the test's class
                or (not is_class and self.side == 0 and shadowable(cls))
            )
            self._sendable[(cls, is_class)] = known
        return known

    def _class_node(self, cls: type) -> list:
        """How ``cls`` is named in a message: its module and name when the other side has
        it, else a reference (a shadow of the test's class, or the original coming home)."""
        home = self.refs.home(cls)
        if home is not None:
            return home
        if self.sendable(cls):
            return codec._class_ref(cls)
        if refs.kind_of(cls, self.side) != "cls":
            raise codec.CannotCross(f"class {cls.__qualname__} is not data")
        return self.refs.node(cls, self._error, self._shape)

    def _attrs(self, function: object) -> dict:
        """A function's own attributes that cross with its reference: the functions among
        them (by reference) and plain scalars (``cache_info`` of a cached function)."""
        try:
            table = object.__getattribute__(function, "__dict__")
        except AttributeError:
            table = None
        found = {}
        for name, value in list(table.items()) if type(table) is dict else ():
            if type(name) is not str or name.startswith("__"):
                continue
            if type(value) in _SCALARS or (callable(value) and not self._as_data(value)):
                found[name] = self._enc(value, 1)
        signature = self._signature(function)
        if signature is not None:
            found["__signature__"] = signature
        return found

    def _signature(self, function: object) -> "list | None":
        """What ``inspect.signature`` says of a callable, for its stand-in (code that
        inspects a callback sees the callback's parameters): the signature as a value, or
        the error it raises (a builtin without one: ``["!", "ValueError", message]``);
        None when a default or an annotation cannot cross."""
        try:
            found = inspect.signature(function)
        except (ValueError, TypeError) as exc:
            return ["!", type(exc).__name__, str(exc)[: callables.MESSAGE_LIMIT]]
        except Exception:
            return None
        try:
            return self._enc(found, 1)  # a codec ``signature`` value
        except codec.CannotCross:  # a default or an annotation that cannot cross
            return None

    def _shape(self, cls: type) -> dict:
        """A test class as the worker rebuilds it (``refs`` kind ``cls``): its bases, slots,
        class constants, and its functions as references (encoded in this message)."""
        members: dict = {}
        for name, member in list(vars(cls).items()):
            if type(name) is not str or name in refs.NOT_SHADOWED:
                continue
            kind = type(member)
            if kind is refs.types.FunctionType:
                members[name] = ["m", self._enc(member, 1)]
            elif kind in (staticmethod, classmethod):
                members[name] = [kind.__name__[0], self._enc(member.__func__, 1)]
            elif kind is property:
                parts = (member.fget, member.fset, member.fdel)
                members[name] = ["p", *(None if f is None else self._enc(f, 1) for f in parts)]
            elif kind in _SCALARS or (kind is tuple and set(map(type, member)) <= _SCALARS):
                members[name] = ["v", self._enc(member, 1)]
        declared = vars(cls).get("__slots__", ())
        slots = [declared] if isinstance(declared, str) else list(declared)
        return {
            "name": cls.__name__,
            "qualname": cls.__qualname__,
            "bases": [self._class_node(b) for b in cls.__bases__ if b is not object],
            "slots": [s for s in slots if type(s) is str],
            "members": members,
        }

    def _shadow(self, shape: object) -> type:
        """The worker's shadow of a test class (see :meth:`_shape`): nothing of the test's
        code runs here; each of its functions is called through its reference."""
        if not isinstance(shape, dict) or not isinstance(shape.get("members"), dict):
            raise codec.CannotCross("malformed class shape")
        name, qualname = codec._str(shape.get("name")), codec._str(shape.get("qualname"))
        if not name.isidentifier():
            raise codec.CannotCross("malformed class name")
        bases = tuple(self._cls(b) for b in codec._list(shape.get("bases")))
        space: dict = {"__module__": "worker", "__qualname__": qualname}
        slots = [codec._str(x) for x in codec._list(shape.get("slots", []))]
        if slots:
            space["__slots__"] = tuple(slots)
        wrap = refs.remote_method
        for key, node in shape["members"].items():
            kind, *parts = codec._list(node)
            made = [None if x is None else self._dec(x, 1) for x in parts]
            if kind == "m":
                space[key] = wrap(made[0])
            elif kind in ("s", "c"):
                space[key] = (staticmethod if kind == "s" else classmethod)(wrap(made[0]))
            elif kind == "p":
                space[key] = property(*(None if f is None else wrap(f) for f in made[:3]))
            elif kind == "v":
                space[key] = made[0]
        try:
            return type(name, bases, space)
        except Exception as exc:
            raise codec.CannotCross(f"class {name} cannot be rebuilt here ({exc})") from None

    def _cls(self, node: object) -> type:
        """A class a message names: by module and name, or by reference."""
        if isinstance(node, list) and node[:1] == ["R"]:
            found = self._dec(node, 1)
            if not isinstance(found, type):
                raise codec.CannotCross("a class reference names no class")
            return found
        return self.decoder.cls(node)

    def _error(self, exc: BaseException) -> dict:
        """An exception as data; its class by reference when the other side has it only
        that way (a test's class, or the worker's shadow of one going home)."""
        cls = type(exc)
        try:
            own = None if self.sendable(cls) else self._class_node(cls)
        except codec.CannotCross:
            own = None
        return refs.error_of(exc, own)
