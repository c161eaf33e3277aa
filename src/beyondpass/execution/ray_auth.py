"""Ray's token authentication as beyondpass meets it: joining a head that requires its
token, a private instance on loopback, and one line when a head refuses the driver.

Ray 2.60 turns token authentication on by default, but only where it finds a token, and a
driver joining by ``host:port`` sends none unless told (docs/scale-out.md). Everything here
reads Ray's own settings and internals in one place, so a change of Ray's shows up here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

LOOPBACK = "127.0.0.1"
AUTH_MODE = "RAY_AUTH_MODE"  # Ray's switch: "token" or "disabled"; unset lets Ray choose
#: What Ray logs when it turns token authentication on by itself, with how to opt out.
AUTH_NOTICE = "Token authentication is enabled for this Ray cluster"
#: Ray's words for a token mode without a token (Python's check, then its C++ loader's).
NO_TOKEN = ("no authentication token was found", "couldn't find an authentication token")
AUTH_FIX = (
    "copy the head's token (`ray get-auth-token` on the head prints it) to ~/.ray/auth_token "
    "here, or name it with RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN, and leave RAY_AUTH_MODE "
    "unset or 'token'; or start the head with RAY_AUTH_MODE=disabled"
)


def send_token_if_any() -> None:
    """Join in token mode when this machine has a token and the user did not choose a mode.

    Ray 2.60 enables token authentication when the head finds a token (``ray start``:
    ``authentication_token_setup.maybe_enable_token_auth_if_token_available``) but, joining
    by ``host:port``, ``ray.init`` sends none unless ``RAY_AUTH_MODE=token``; this is the check
    Ray makes itself for ``auto``. A token-mode driver joins a head without authentication
    too; without a token the mode stays Ray's default, so such a head is still reachable.
    """
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def auth_cause(exc: BaseException, user_mode: str | None) -> str | None:
    """Why the head refused this driver for want of its token, or ``None`` for other causes.

    Ray reports a refused token as ``InvalidAuthToken`` in the last connection error under its
    ``ConnectionError``, and a token mode without a token as ``AuthenticationError``.
    """
    texts = []
    seen: BaseException | None = exc
    while seen is not None and len(texts) < 8:
        texts.append(f"{type(seen).__name__}: {seen}")
        seen = seen.__cause__ or seen.__context__
    text = "\n".join(texts)
    mode = os.environ.get(AUTH_MODE, "").lower()
    if any(marker in text for marker in NO_TOKEN):
        return "RAY_AUTH_MODE=token is set here but no authentication token was found"
    if "InvalidAuthToken" not in text:
        return None
    needs = "the cluster requires its authentication token"
    if mode == "token":
        return f"{needs}, and the one sent from {token_source()} is not the head's"
    if (user_mode or "").lower() == "disabled":
        return f"{needs}, and RAY_AUTH_MODE=disabled here sends none"
    return f"{needs}, and none was found here"


def token_source() -> str:
    """Where this machine's token came from, in the order Ray's token loader looks."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    return os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")


@contextlib.contextmanager
def loopback_node() -> Iterator[None]:
    """Let a private instance keep 127.0.0.1 as its node address.

    On Linux ``ray.init`` replaces a loopback ``_node_ip_address`` by the machine's network
    address (``services.resolve_ip_for_localhost``) unless multi-node clusters are off, as on
    macOS and Windows (``ray_constants.ENABLE_RAY_CLUSTER``); a private instance is one node,
    so they are off while it starts. Its GCS and raylet then listen on loopback only.
    """
    constants = sys.modules.get("ray._private.ray_constants")  # imported with ray
    saved = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if saved is None:  # another Ray: it keeps its own choice
        yield
        return
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved


class _DropAuthNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(AUTH_NOTICE)


@contextlib.contextmanager
def quiet_auth_notice() -> Iterator[None]:
    """Drop Ray's notice that it turned token authentication on (and how to opt out).

    Ray logs it on stderr whenever it chooses token mode (``ray.init`` of a new instance,
    ``authentication_token_setup._warn_token_auth_enabled``); for an instance of one run, or
    a driver that must send the head's token, opting out is not advice to follow.
    """
    logger = logging.getLogger("ray._private.authentication.authentication_token_setup")
    drop = _DropAuthNotice()
    logger.addFilter(drop)
    try:
        yield
    finally:
        logger.removeFilter(drop)
