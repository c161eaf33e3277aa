"""Inline pragmas are honoured as pylint honours them, and recorded."""


def grade(score):  # pylint: disable=too-many-return-statements
    """no-else-return suppressed by the next pragma."""
    # pylint: disable-next=no-else-return
    if score > 5:
        return 1
    else:
        return 0


def Bad_Name():  # pylint: disable=invalid-name
    """Suppressed invalid-name."""
    return [x for x in range(3)]
