"""Which calls a test will make, read from its source, so they can be sent ahead in one go.

Every call from the judge to the candidate is a round trip between two processes; a task
with a hundred one-line tests (HumanEval-ET, MBPP-ET) pays a hundred of them. When a test's
source fixes its calls completely — a straight line of ``assert`` statements whose calls to
the program have literal arguments, like ``assert add(2, 3) == 5`` or HumanEval's
``def check(candidate): assert candidate([1, 2]) == 3 ...`` — the judge sends all of them at
once and the candidate streams the answers back while the judge checks them.

The tests still run exactly as written, in the judge, on the values the candidate returned;
the plan only decides which answers are requested early. Anything this module cannot read
with certainty (loops, conditionals, short-circuit operators, computed arguments, names of
the program used as values) returns ``None``, and that test and all after it run call by call.

This file must import nothing from beyondpass: it runs in the sandboxed judge.
"""

import ast
import functools

Call = tuple  # (name, args: list, kwargs: dict)
_NO_CALLS_INSIDE = (
    ast.BoolOp,
    ast.IfExp,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.Starred,
)


class _Unplannable(Exception):
    pass


@functools.lru_cache(maxsize=4096)  # a task's tests recur for every sample of the task
def planned_calls(source: str, callables: frozenset, program_names: frozenset):
    """The calls ``source`` makes to the program's ``callables``, in order; ``None`` when
    that cannot be known from the source alone. ``program_names`` are all names the program
    defines (a test that reads one as a value, or rebinds one, is not planned).

    The returned arguments are shared between calls with the same source: never mutate them.
    """
    try:
        tree = ast.parse(source)
        return _module(tree.body, callables, program_names)
    except (_Unplannable, SyntaxError, ValueError, RecursionError):
        return None


def _module(body: list, callables: frozenset, names: frozenset) -> list:
    calls: list = []
    functions: dict = {}  # test-defined check(candidate) functions: name -> (param, body)
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring
        if isinstance(node, (ast.Pass, ast.Import, ast.ImportFrom)):
            _bound_names(node, names)
            continue
        if isinstance(node, ast.Assign):
            _bound_names(node, names)
            calls += _expression(node.value, callables, names, {})
            continue
        if isinstance(node, ast.Assert):
            calls += _assert(node, callables, names, {})
            continue
        if isinstance(node, ast.FunctionDef) and _is_check_function(node, names):
            functions[node.name] = (node.args.args[0].arg, node.body)
            continue
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id in functions
        ):
            call = node.value
            if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
                raise _Unplannable()
            target = call.args[0].id
            if target not in callables:
                raise _Unplannable()
            param, fbody = functions[call.func.id]
            for stmt in fbody:
                calls += _function_statement(stmt, callables, names, {param: target})
            continue
        raise _Unplannable()
    return calls


def _is_check_function(node: ast.FunctionDef, names: frozenset) -> bool:
    args = node.args
    return (
        node.name not in names
        and not node.decorator_list
        and len(args.args) == 1
        and not (args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg)
        and not args.defaults
    )


def _function_statement(node: ast.stmt, callables, names, aliases: dict) -> list:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return []
    if isinstance(node, (ast.Pass, ast.Import, ast.ImportFrom)):
        _bound_names(node, names)
        return []
    if isinstance(node, ast.Assert):
        return _assert(node, callables, names, aliases)
    raise _Unplannable()


def _bound_names(node: ast.stmt, names: frozenset) -> None:
    """A test that rebinds one of the program's names changes what later code calls."""
    if isinstance(node, ast.Assign):
        bound = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        if any(not isinstance(t, ast.Name) for t in node.targets):
            raise _Unplannable()
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        bound = [(a.asname or a.name).split(".")[0] for a in node.names]
    else:
        bound = []
    if any(b in names for b in bound):
        raise _Unplannable()


def _assert(node: ast.Assert, callables, names, aliases: dict) -> list:
    if node.msg is not None and _touches_program(node.msg, names, aliases):
        raise _Unplannable()  # the message is evaluated only when the assertion fails
    return _expression(node.test, callables, names, aliases)


def _touches_program(node: ast.AST, names: frozenset, aliases: dict) -> bool:
    return any(
        isinstance(n, ast.Name) and (n.id in names or n.id in aliases) for n in ast.walk(node)
    )


def _expression(node: ast.AST, callables, names, aliases: dict) -> list:
    """Calls to the program in ``node``, in Python's evaluation order."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        target = aliases.get(node.func.id, node.func.id if node.func.id in callables else None)
        if target is not None:
            return [_literal_call(target, node)]
    if isinstance(node, ast.Name):
        if node.id in names or node.id in aliases:
            raise _Unplannable()  # the program's object used as a value
        return []
    if isinstance(node, _NO_CALLS_INSIDE):
        if _touches_program(node, names, aliases):
            raise _Unplannable()  # evaluated a number of times the source does not fix
        return []
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) > 1
        and any(_touches_program(c, names, aliases) for c in node.comparators[1:])
    ):
        raise _Unplannable()  # a chained comparison stops early
    calls: list = []
    for child in _evaluation_order(node):
        calls += _expression(child, callables, names, aliases)
    return calls


def _evaluation_order(node: ast.AST) -> list:
    if isinstance(node, ast.Call):
        return [node.func, *node.args, *(k.value for k in node.keywords)]
    if isinstance(node, ast.Dict):
        return [x for pair in zip(node.keys, node.values, strict=True) for x in pair if x]
    return list(ast.iter_child_nodes(node))


def _literal_call(target: str, node: ast.Call) -> Call:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        raise _Unplannable()
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Unplannable() from None
    return (target, args, kwargs)
