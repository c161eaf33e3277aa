"""C project mode: a model's C function spliced into a real C project.

``grammar`` parses C with tree-sitter-c; ``names`` maps an obfuscated answer's names back
with the setting's symbol dictionary; ``splice`` puts the answer's function in place of the
original definition (and says what happens to the helpers, ``#include``s and macros it
adds); ``seed_splice`` is the seed's own text matcher, the compat reading.
"""
