"""Module docstring:
three lines that are not code.
"""

# comment-only line

MESSAGE = (
    "implicitly concatenated strings "
    "are code, even when a line starts with a string"
)
TEMPLATE = """a multi-line string
in an expression: every line
is code"""


def joined(parts):
    """One-line docstring."""
    "a bare string statement is documentation, not code"
    return ", ".join(
        "<" + p + ">"
        for p in parts
    )


def continued(a, b):
    '''Docstring with 'single' quotes
    over two lines.'''
    total = a + \
        b
    x = 1; y = 2  # two statements, one line
    return total + x + y


NAME = "café"; "doc after a non-ASCII string on the same line"
