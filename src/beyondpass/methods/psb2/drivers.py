"""Generated drivers: what turns a function into a stdin/stdout program, per language.

Function mode asks a model for one function with a given signature; the driver beyondpass
appends reads the case from stdin in the documented format (``psb2.textio``), calls the
function and prints its results. The model's code is never edited: the program is the
answer's code followed by the driver, and that adaptation is recorded with the sample.
The sample also records the call (:func:`function_call`, a typed
:class:`~beyondpass.benchmarks.task.FunctionCall`), which makes the executor call the
function case after case in one process (Python: ``python_function_runner.py``; C++: the
driver's own batch loop; Java: ``FunctionRunner.java``); without it the program runs once
per case. C++ and Java drivers are in ``drivers_cpp`` and ``drivers_java``.
"""

from __future__ import annotations

import inspect

# NOT_CALLABLE_EXIT: the exit status of a driver that cannot find or call the answer's
# function; the evaluator reports it as ``function_not_found`` instead of a wrong answer
from beyondpass.benchmarks.task import FunctionCall
from beyondpass.execution import NOT_CALLABLE_EXIT, NOT_CALLABLE_MARK
from beyondpass.methods.psb2.benchmark import reference
from beyondpass.methods.psb2.benchmark.problems import Problem
from beyondpass.methods.psb2.drivers_java import camel

_PY_DRIVER = """

def _bp_main():
    import sys as _sys
    _lines = _sys.stdin.read().split("\\n")
    _types = {inputs!r}
    _outs = {outputs!r}
    _args = []
    for _i, _t in enumerate(_types):
        _line = _lines[_i] if _i < len(_lines) else ""
        if _t == "int":
            _args.append(int(_line))
        elif _t == "float":
            _args.append(float(_line))
        elif _t == "str":
            _args.append(_line)
        else:
            _conv = int if _t == "vec_int" else float
            _args.append([_conv(_x) for _x in _line.split()])
    _fn = globals().get({name!r})
    if not callable(_fn):
        print({mark!r}, {name!r}, "is not defined", file=_sys.stderr)
        _sys.exit({code})
    try:
        _res = _fn(*_args)
    except TypeError as _e:
        if "positional argument" in str(_e) or "takes" in str(_e):
            print({mark!r}, _e, file=_sys.stderr)
            _sys.exit({code})
        raise
    if len(_outs) == 1:
        _res = (_res,)
    _res = tuple(_res)
    for _t, _v in zip(_outs, _res):
        if _t == "bool":
            print("true" if _v else "false")
        elif _t == "float":
            print(repr(float(_v)))
        elif _t in ("vec_int", "vec_float"):
            print(" ".join(repr(float(_x)) if _t == "vec_float" else str(_x) for _x in _v))
        else:
            print(_v)


if __name__ == "__main__":
    _bp_main()
"""


def function_call(problem: Problem, language: str) -> FunctionCall:
    """The call function mode makes on every case: the function the prompt asked for (Java
    names methods in camel case) and the problem's typed I/O."""
    name = camel(problem.name) if language == "java" else problem.name
    return FunctionCall(
        name, tuple(a.type for a in problem.inputs), tuple(a.type for a in problem.outputs)
    )


def python_driver(problem: Problem) -> str:
    """The driver appended to a Python answer in function mode. Run as a program (one
    process per case) it reads stdin and prints; a request with the sample's
    :func:`function_call` runs the program through the batched Python function runner
    instead (``python_function_runner.py`` does what ``_bp_main`` does, per case)."""
    return _PY_DRIVER.format(
        inputs=[a.type for a in problem.inputs],
        outputs=[a.type for a in problem.outputs],
        name=problem.name,
        mark=NOT_CALLABLE_MARK,
        code=NOT_CALLABLE_EXIT,
    )


def python_program(function_code: str, problem: Problem) -> str:
    """A whole stdin/stdout program: the function's code, unchanged, then the driver."""
    return function_code.rstrip() + "\n" + python_driver(problem)


def reference_program(problem: Problem) -> str:
    """Our reference solution to ``problem`` as a runnable Python program."""
    source = inspect.getsource(getattr(reference, problem.name))
    return python_program(source, problem)


def python_signature(problem: Problem) -> str:
    """The function-mode signature shown to the model, with Python type hints."""
    hint = {
        "int": "int",
        "float": "float",
        "str": "str",
        "bool": "bool",
        "vec_int": "list[int]",
        "vec_float": "list[float]",
    }
    params = ", ".join(f"{a.name}: {hint[a.type]}" for a in problem.inputs)
    outs = [hint[a.type] for a in problem.outputs]
    ret = outs[0] if len(outs) == 1 else f"tuple[{', '.join(outs)}]"
    return f"def {problem.name}({params}) -> {ret}:"
