"""Reading NoFunEval answers: the answer formats and the readers of edited programs.

``answers`` holds the registered answer formats (``nofuneval-edit``, ``nofuneval-edit-compat``,
``nofuneval-choice``), ``readers`` the robust and compat readers of an edited program, and
``parsable`` the compat fallback (the largest tree-sitter-parsable span).
"""
