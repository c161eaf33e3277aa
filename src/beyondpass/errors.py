"""User-facing errors.

Every error a user can cause (bad file, unknown name, unreachable endpoint) is raised as a
:class:`BeyondpassError` carrying one precise line: what went wrong, where, and what to do.
The CLI prints that line and exits non-zero; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

#: Exit code of a command whose work finished incomplete (what was done is stored).
EXIT_INCOMPLETE = 1
#: Exit code of a command a model endpoint failed (what was done is stored).
EXIT_MODEL_FAILED = 3


class BeyondpassError(Exception):
    """An error caused by input or environment, reported to the user as one line."""

    exit_code = 2


class DataError(BeyondpassError):
    """A dataset or input file is missing or malformed."""


class ConfigError(BeyondpassError):
    """A study file, model spec or option is invalid."""


class MissingExtra(ConfigError):
    """An optional part is used whose dependencies are not installed; the message names the
    extra that brings them (``pip install 'beyondpass[pandas]'``)."""


class ModelError(BeyondpassError):
    """A model endpoint failed after retries (refused, timed out, rejected the request)."""

    exit_code = EXIT_MODEL_FAILED
