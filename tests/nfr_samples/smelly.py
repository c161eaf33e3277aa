"""Code smells on purpose: pylint's Refactor checker should flag most functions."""


class Account(object):
    """A useless object base class (useless-object-inheritance)."""

    def __init__(self, owner, kind, rate, limit, currency, region):
        self.owner = owner
        self.kind = kind
        self.rate = rate
        self.limit = limit
        self.currency = currency
        self.region = region
        self.history = dict()


def grade(score):
    """Many returns after else (no-else-return)."""
    if score >= 90:
        return "A"
    elif score >= 80:
        return "B"
    else:
        return "C"


def is_weekend(day):
    """consider-using-in and simplifiable-if-statement."""
    if day == "sat" or day == "sun":
        return True
    else:
        return False


def maybe_first(items):
    """inconsistent-return-statements."""
    if items:
        return items[0]


def between(low, value, high):
    """chained-comparison."""
    return low < value and value < high


def copy_all(values):
    """unnecessary-comprehension."""
    return [v for v in values]


def read_config(path):
    """consider-using-with."""
    handle = open(path, encoding="utf-8")
    data = handle.read()
    handle.close()
    return data
