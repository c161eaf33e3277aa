"""Java function mode: the signature a model is asked for, and how its answer is run.

The prompt asks for ``public static <T> <camelName>(<params>)`` in a class ``Solution``
(``java_signature``). The answer's code is run unchanged: the sample records the call
(``drivers.function_call``: the method and the problem's typed I/O), which makes the
executor compile the program with the trusted ``FunctionRunner.java`` and run every case
of the sample in one JVM, calling the method by reflection in a loop (docs/psb2.md,
"Java function mode"). No Java code is
generated, so the answer's own compile errors stay ``compile_error``, and a method that
cannot be found or called is the runner's status ``function_not_found`` (exit 97, the
Python driver's code), never a compile error or a wrong answer.
"""

from __future__ import annotations

from importlib import resources

from beyondpass.methods.psb2.benchmark.problems import Problem

JAVA_CLASS = "Solution"
#: the Java type of each PSB2 type (every PSB2 integer fits an ``int``)
JAVA_TYPES = {
    "int": "int",
    "float": "double",
    "str": "String",
    "bool": "boolean",
    "vec_int": "int[]",
    "vec_float": "double[]",
}
#: problems with a Java reference solution (``data/references/java/<problem>.java``)
JAVA_REFERENCES = (
    "basement",
    "bouncing_balls",
    "bowling",
    "camel_case",
    "coin_sums",
    "cut_vector",
    "dice_game",
    "find_pair",
    "fizz_buzz",
    "fuel_cost",
    "gcd",
    "indices_of_substring",
    "leaders",
    "luhn",
    "mastermind",
    "middle_character",
    "paired_digits",
    "shopping_list",
    "snow_day",
    "solve_boolean",
    "spin_words",
    "square_digits",
    "substitution_cipher",
    "twitter",
    "vector_distance",
)


def camel(name: str) -> str:
    """``fuel_cost`` -> ``fuelCost``: the Java naming a model writes for the method and
    its parameters."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def java_return_type(problem: Problem) -> str:
    """One output: its type; several (all PSB2's are of one type): an array of them, in
    the order of the outputs."""
    types = {JAVA_TYPES[a.type] for a in problem.outputs}
    one = JAVA_TYPES[problem.outputs[0].type]
    if len(problem.outputs) == 1:
        return one
    if len(types) != 1:
        raise ValueError(f"{problem.name}: outputs of different types have no Java array")
    return one + "[]"


def java_signature(problem: Problem) -> str:
    """The method declaration shown to the model."""
    params = ", ".join(f"{JAVA_TYPES[a.type]} {camel(a.name)}" for a in problem.inputs)
    return f"public static {java_return_type(problem)} {camel(problem.name)}({params})"


def java_prompt_signature(problem: Problem) -> str:
    """The function-mode addition to the prompt, in Java."""
    text = (
        f"Implement this method in a class named {JAVA_CLASS}:\n"
        f"{java_signature(problem)}\n"
        "Write the whole class (with any imports it needs); no main method is needed."
    )
    if len(problem.outputs) > 1:
        names = ", ".join(a.name for a in problem.outputs)
        text += f"\nReturn the {len(problem.outputs)} results in one array, in this order: {names}."
    return text


def java_adaptation(problem: Problem) -> str:
    """The note recorded with every Java function-mode sample: how it is run."""
    return (
        "the answer's code runs unchanged; the trusted FunctionRunner "
        f"calls {camel(problem.name)} (class {JAVA_CLASS} first, else any class of the "
        "program) by reflection on each case, with the conversions of docs/psb2.md"
    )


def java_reference_source(name: str) -> str:
    """Our Java reference solution to ``name`` (class ``Solution``), as the model would
    answer in function mode."""
    if name not in JAVA_REFERENCES:
        raise KeyError(f"no Java reference for {name!r}")
    here = resources.files("beyondpass.methods.psb2") / "data" / "references" / "java"
    return (here / f"{name}.java").read_text(encoding="utf-8")
