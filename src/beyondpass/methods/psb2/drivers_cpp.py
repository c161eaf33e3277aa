"""C++ function mode: the signature shown to the model and the batched driver appended.

Types (docs/psb2.md, "C++ function mode"): PSB2 integers are ``int`` (every PSB2
integer domain and output fits in 32 bits, and ``int`` is what a model writes), floats
``double``, strings ``std::string``, Booleans ``bool``, vectors ``std::vector<int>`` /
``std::vector<double>``, taken by const reference; two outputs are a ``std::pair``, more
a ``std::tuple`` (the driver reads any of them, and ``std::array``, with ``std::get``).

The driver is appended to the answer's code unchanged and speaks the batch protocol of
``execution/compiled_judge.py`` (the one ``BatchRunner.java`` speaks): one process runs
many cases, reading one case's input at a time from the judge's channel and answering
with its exit status and output; the expected output never enters the process. It runs
from a static object's constructor, after the answer's own globals are built and before
any ``main``, so an answer that brought its own ``main`` (examples, a demo) still works:
that ``main`` never runs. A ``main`` is appended only when the answer has none.

Whether the answer's function can be called with the signature's arguments is decided
at compile time (an overload chosen by SFINAE): when it cannot, every case ends with
exit status :data:`~beyondpass.methods.psb2.drivers.NOT_CALLABLE_EXIT` and the
marker line, counted as ``function_not_found``, never as the answer's compile error.
"""

from __future__ import annotations

import re
from importlib import resources

from beyondpass.methods.psb2.benchmark.problems import Problem
from beyondpass.methods.psb2.drivers import NOT_CALLABLE_EXIT, NOT_CALLABLE_MARK

#: the method's shipped data: the driver's fixed part and our C++ reference functions
_DATA = resources.files(__package__).joinpath("data")
_CPP_REFERENCES = _DATA.joinpath("references", "cpp")

_CPP_TYPE = {
    "int": "int",
    "float": "double",
    "str": "std::string",
    "bool": "bool",
    "vec_int": "std::vector<int>",
    "vec_float": "std::vector<double>",
}
_PARAM = {
    "int": "int",
    "float": "double",
    "bool": "bool",
    "str": "const std::string&",
    "vec_int": "const std::vector<int>&",
    "vec_float": "const std::vector<double>&",
}
_PUT = {
    "int": "put_int",
    "float": "put_double",
    "str": "put_str",
    "bool": "put_bool",
    "vec_int": "put_vec_int",
    "vec_float": "put_vec_double",
}
_FITS = {
    "int": "fits_int",
    "float": "fits_double",
    "str": "fits_str",
    "bool": "fits_bool",
    "vec_int": "fits_vec_int",
    "vec_float": "fits_vec_double",
}
_PARSE = {
    "int": "parse_int",
    "float": "parse_double",
    "str": "parse_str",
    "bool": "parse_bool",
    "vec_int": "parse_vec_int",
    "vec_float": "parse_vec_double",
}

_COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL
)
_MAIN = re.compile(r"\bmain\s*\(")


def return_type(p: Problem) -> str:
    """The C++ return type of ``p``'s function."""
    outs = [_CPP_TYPE[a.type] for a in p.outputs]
    if len(outs) == 1:
        return outs[0]
    template = "std::pair" if len(outs) == 2 else "std::tuple"
    return f"{template}<{', '.join(outs)}>"


def cpp_signature(p: Problem) -> str:
    """The function-mode signature shown to the model."""
    params = ", ".join(f"{_PARAM[a.type]} {a.name}" for a in p.inputs)
    return f"{return_type(p)} {p.name}({params})"


def has_main(code: str) -> bool:
    """Whether the code defines a ``main`` (comments and literals ignored)."""
    return bool(_MAIN.search(_COMMENT_OR_STRING.sub(" ", code)))


def cpp_driver(p: Problem, with_main: bool = True, batch: bool = True) -> str:
    """The driver appended to a C++ answer in function mode: the batch loop (run it with
    the sample's ``drivers.function_call``, which gives the request ``CPP_BATCH`` cases per
    process), or with ``batch=False`` one case per process (stdin/stdout, for
    comparisons)."""
    args = ", ".join(f"a{i}" for i in range(len(p.inputs)))
    reads = "\n".join(
        f"    typename bp_drv::Id<Z, {_CPP_TYPE[a.type]}>::type a{i} = "
        f"bp_drv::{_PARSE[a.type]}(lines, {i});"
        for i, a in enumerate(p.inputs)
    )
    if len(p.outputs) == 1:
        fits = f"bp_drv::{_FITS[p.outputs[0].type]}<R>::value"
        puts = f"        bp_drv::{_PUT[p.outputs[0].type]}(out, r);"
    else:
        n = len(p.outputs)
        checks = " && ".join(
            f"bp_drv::{_FITS[a.type]}<bp_drv::Elem<{i}, R>>::value" for i, a in enumerate(p.outputs)
        )
        fits = f"bp_drv::TupleOf<R, {n}>::value && ({checks})"
        puts = "\n".join(
            f"        bp_drv::{_PUT[a.type]}(out, std::get<{i}>(r));"
            for i, a in enumerate(p.outputs)
        )
    wanted = cpp_signature(p).replace('"', "'")
    call = f"""
// beyondpass: function-mode driver, {"many cases" if batch else "one case"} per process
{_DATA.joinpath("driver_prelude.cpp").read_text(encoding="utf-8")}
template <class... A>
auto bp_call(int, A&... a) -> decltype({p.name}(a...)) {{ return {p.name}(a...); }}
template <class... A>
bp_drv::Missing bp_call(long, A&...) {{ return {{}}; }}

template <class Z>
int bp_case(const std::vector<std::string>& lines, std::string& out, std::string& err) {{
{reads}
    using R = std::decay_t<decltype(bp_call(0, {args}))>;
    if constexpr (std::is_same_v<R, bp_drv::Missing>) {{
        err = "{NOT_CALLABLE_MARK} {p.name} cannot be called as {wanted}\\n";
        return {NOT_CALLABLE_EXIT};
    }} else if constexpr (!({fits})) {{
        err = "{NOT_CALLABLE_MARK} {p.name} does not return {return_type(p)}\\n";
        return {NOT_CALLABLE_EXIT};
    }} else {{
        const auto& r = bp_call(0, {args});
{puts}
        return 0;
    }}
}}

static bp_drv::{"Loop" if batch else "Once"} bp_driver(&bp_case<void>);
"""
    if with_main:
        call += "\nint main() { return 0; }\n"
    return call


def cpp_program(function_code: str, p: Problem, batch: bool = True) -> str:
    """The answer's code, unchanged, then the driver (with a ``main`` only if it has none)."""
    driver = cpp_driver(p, with_main=not has_main(function_code), batch=batch)
    return function_code.rstrip() + "\n" + driver


def reference_source(p: Problem) -> str | None:
    """Our C++ reference function for ``p``, or ``None`` when there is none."""
    path = _CPP_REFERENCES.joinpath(f"{p.name}.cpp")
    return path.read_text(encoding="utf-8") if path.is_file() else None


def reference_names() -> list[str]:
    """The problems that have a C++ reference function."""
    return sorted(f.name[:-4] for f in _CPP_REFERENCES.iterdir() if f.name.endswith(".cpp"))
