"""The CPR check inside the worker's sandbox: import the module, then prove it returned.

Copied into the worker copy as ``_beyondpass_importcheck.py``; imports nothing from
beyondpass. Usage: ``python _beyondpass_importcheck.py FD MODULE``. Only after
``import_module`` has returned does it say ``imported`` on the socket ``FD``; the harness
then sends a fresh nonce, which is echoed back. The nonce does not exist in this process
while the answer's import-time code runs, so printing a marker, exiting with status 0 or
writing to any descriptor during the import never counts as compiled.
"""

import importlib
import socket
import sys


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    sock.set_inheritable(False)
    importlib.import_module(sys.argv[2])  # an error: traceback on stderr, no handshake
    sock.sendall(b"imported\n")
    nonce = sock.recv(64)
    sock.sendall(nonce)
    sock.close()


if __name__ == "__main__":
    main()
