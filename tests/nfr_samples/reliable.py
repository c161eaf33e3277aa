"""Exception handling on purpose: every handling statement is counted."""

import contextlib


def parse_int(text):
    """Two except clauses, an else and a finally; one raise from."""
    # a comment line does not count as code
    try:
        value = int(text)
    except ValueError as exc:
        raise TypeError(f"not an integer: {text!r}") from exc
    except (OverflowError, MemoryError):
        return None
    else:
        return value
    finally:
        print("parsed")


def check_sides(a, b, c):
    """Validation by raising (seed, Code 1); assert is not counted."""
    for side in (a, b, c):
        if not isinstance(side, (int, float)):
            raise TypeError("sides must be numbers")
    if a <= 0 or b <= 0 or c <= 0:
        raise ValueError("sides must be positive")
    assert a + b > c
    return sorted([a, b, c])


def cleanup_only(path):
    """try/finally without a handler: the finally counts."""
    handle = open(path, encoding="utf-8")
    try:
        return handle.read()
    finally:
        handle.close()


def groups():
    """except* handlers count like except; with and suppress do not."""
    try:
        raise ExceptionGroup("many", [ValueError(1), KeyError(2)])
    except* ValueError:
        pass
    except* KeyError:
        pass
    with contextlib.suppress(OSError):
        return 1


def reraise():
    """A bare raise inside a nested try."""
    try:
        try:
            return 1 / 0
        except ZeroDivisionError:
            raise
    except ArithmeticError:
        return 0
