"""Confinement of an analyser process with bubblewrap, where it works.

Tools that load or compile what they read (cppcheck follows ``#include``, a compiler
expands macros) run with a read-only ``/usr``, their scratch directory as ``/work``, no
network and a cleared environment, so a hostile ``#include "/etc/..."`` sees nothing
private and writes nowhere. Tools that only parse (pylint, bandit, ruff) need none.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path


@functools.cache
def bwrap_works() -> bool:
    """Whether bubblewrap is installed and may create namespaces here (probed once)."""
    if shutil.which("bwrap") is None:
        return False
    try:
        probe = subprocess.run(
            [*bwrap_prefix(Path("/tmp")), "true"], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


def bwrap_prefix(workdir: Path) -> list[str]:
    """The bubblewrap command line that confines a process to ``workdir`` (as ``/work``)."""
    cmd = ["bwrap", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin"):
        p = Path("/") / name
        if p.is_symlink():
            cmd += ["--symlink", str(p.readlink()), str(p)]
        elif p.is_dir():
            cmd += ["--ro-bind", str(p), str(p)]
    if Path("/etc/alternatives").is_dir():
        cmd += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    return [
        *cmd,
        "--bind", str(workdir), "/work",
        "--chdir", "/work",
        "--unshare-all", "--uid", "65534", "--gid", "65534", "--die-with-parent",
        "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
        "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
    ]  # fmt: skip
