"""The half of execution that runs *inside* a sandbox: judge, fork server, runners, codec.

Inside a sandbox these files sit in one directory (``/opt/beyondpass``, bound read-only by
``execution/sandbox.py``) and import each other by bare name; they import nothing of
beyondpass, so the sandbox holds none of the harness. The host side
(:mod:`beyondpass.execution`) may import the pure modules here (the codec, the job schema,
timing and comparison rules) so that both halves share one definition.
"""
