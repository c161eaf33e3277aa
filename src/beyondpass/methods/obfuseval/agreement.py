"""The agreement check: a rewritten reference must do what the original does on the tests'
own calls.

Benchmark tests are asserts (MBPP) or a ``check(candidate)`` function (HumanEval); their
inputs are not data we could read out. So the program run in the sandbox is the rewritten
reference with its entry point wrapped: every call the tests make runs the rewritten
function on the real arguments and the original (executed from its source in a namespace of
its own) on a deep copy, and raises ``AssertionError`` unless both return equal values of
the same type (or raise the same exception type) and leave their arguments equal. The tests
then see the rewritten function's result, so one run checks both "passes its tests" and
"agrees with the original". Recursive calls inside the rewritten function are not compared
again (that would multiply the work); the outermost call covers them.
"""

from __future__ import annotations

_HARNESS = """

def __bp_agreement(original_source, entry):
    import copy

    namespace = {"__name__": "__bp_original__"}
    exec(compile(original_source, "<original reference>", "exec"), namespace)
    original = namespace[entry]
    rewritten = globals()[entry]
    if not callable(rewritten) or isinstance(rewritten, type):
        raise AssertionError("agreement check: the entry point is not a function")
    depth = [0]

    def same(a, b):
        if type(a) is not type(b):
            return False
        try:
            if a == b:
                return True
        except Exception:
            pass
        return repr(a) == repr(b)

    def outcome(function, args, kwargs):
        try:
            return True, function(*args, **kwargs)
        except Exception as exc:
            return False, exc

    def checked(*args, **kwargs):
        if depth[0]:
            return rewritten(*args, **kwargs)
        depth[0] += 1
        try:
            try:
                copied = copy.deepcopy((args, kwargs))
            except Exception as exc:
                raise AssertionError(
                    f"agreement check: the arguments cannot be copied ({type(exc).__name__})"
                ) from None
            ok, got = outcome(rewritten, args, kwargs)
            ok0, want = outcome(original, copied[0], copied[1])
        finally:
            depth[0] -= 1
        if ok != ok0 or not same(got if ok else type(got), want if ok0 else type(want)):
            shown = lambda v, good: repr(v)[:120] if good else f"raises {type(v).__name__}"
            raise AssertionError(
                f"agreement check: rewritten {shown(got, ok)} but original {shown(want, ok0)}"
                f" for arguments {repr(copied)[:160]}"
            )
        if not same((args, kwargs), copied):
            raise AssertionError("agreement check: the arguments are left different")
        if not ok:
            raise got
        return got

    checked.__name__ = getattr(rewritten, "__name__", entry)
    globals()[entry] = checked


__bp_agreement(__BP_SOURCE__, __BP_ENTRY__)
del __bp_agreement
"""


def agreement_program(rewritten: str, original: str, entry: str) -> str:
    """``rewritten`` followed by the wrapper comparing its ``entry`` with ``original``'s."""
    tail = _HARNESS.replace("__BP_SOURCE__", repr(original)).replace("__BP_ENTRY__", repr(entry))
    return rewritten.rstrip("\n") + "\n" + tail
