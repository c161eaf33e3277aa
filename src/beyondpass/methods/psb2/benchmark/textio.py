"""How a PSB2 case becomes stdin and expected stdout, the same for every language.

One value per line, inputs in signature order, then outputs in signature order:
integers in decimal, floats as the shortest text that reads back as the same double
(Python's ``repr``), strings as they are (PSB2 strings hold no newline), Booleans as
``true``/``false``, vectors as their elements separated by single spaces (an empty vector
is an empty line). The prompt's program mode states exactly this format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from beyondpass.methods.psb2.benchmark.problems import Arg


def render_value(arg: Arg, value: Any) -> str:
    """One value as its line (without the newline)."""
    return _RENDER[arg.type](arg.name, value)


def render_lines(args: Sequence[Arg], values: Sequence[Any]) -> str:
    """The values, one line each, every line ending in a newline."""
    if len(args) != len(values):
        raise ValueError(f"{len(values)} values for {len(args)} arguments")
    return "".join(_RENDER[a.type](a.name, v) + "\n" for a, v in zip(args, values, strict=False))


def _string(name: str, value: Any) -> str:
    if "\n" in value or "\r" in value:
        raise ValueError(f"{name}: a PSB2 string cannot hold a line break")
    return str(value)


#: a renderer per type, ``(name, value) -> line``: looked up once per value, as loading a
#: benchmark renders every case (250,000 random ones for ``psb2``)
_RENDER: dict[str, Callable[[str, Any], str]] = {
    "int": lambda name, value: str(int(value)),
    "float": lambda name, value: repr(float(value)),
    "bool": lambda name, value: "true" if value else "false",
    "str": _string,
    "vec_int": lambda name, value: " ".join([str(int(v)) for v in value]),
    "vec_float": lambda name, value: " ".join([repr(float(v)) for v in value]),
}


def parse_value(arg: Arg, line: str) -> Any:
    """The inverse of :func:`render_value` (what a driver does with a line)."""
    t = arg.type
    if t == "int":
        return int(line)
    if t == "float":
        return float(line)
    if t == "bool":
        return line.strip() == "true"
    if t == "str":
        return line
    conv = int if t == "vec_int" else float
    return [conv(tok) for tok in line.split()]
