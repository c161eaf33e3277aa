"""The Python API: what a researcher calls from a notebook or a script.

One module per concept, each doing the work its command does (the command line parses
arguments and prints; these functions are what it calls):

- :mod:`~beyondpass.api.runs` — :func:`open_run`: a finished (or interrupted) run's design,
  rows, evaluations and headline metrics, as typed records or a pandas DataFrame;
- :mod:`~beyondpass.api.studies` — :func:`run`: run a study into a run directory (the store,
  response cache and resume of ``beyondpass run``), and :func:`cost` (its ``--dry-run``);
- :mod:`~beyondpass.api.evaluations` — :func:`evaluate`: score a file of answers made
  elsewhere (``beyondpass evaluate``);
- :mod:`~beyondpass.api.comparisons` — :func:`compare`: two runs of the same design, their
  deltas and a ``fail_on`` gate (``beyondpass compare``);
- :mod:`~beyondpass.api.frames` — the optional pandas extra;
- :mod:`~beyondpass.api.executors` — where generated code runs, from the same few choices
  the command line offers.

The stable names are importable from :mod:`beyondpass` itself (``beyondpass.open_run``);
nothing is imported here, so the command line loads only the module it needs.
"""
