"""A scripted HTTP server speaking the OpenAI and Anthropic chat wire formats, and the
OpenAI-compatible text completion format (``/v1/completions``, as vLLM and llama.cpp serve).

Tests drive the real SDKs against it, so what is checked is what actually goes over the
wire: the request bodies the SDKs send and how our providers react to real status codes,
headers and timeouts. The server answers from a script of replies, in order; when the
script runs out it echoes the last user message (a completion: its prompt). With
``chat_only=True`` it answers ``/v1/completions`` with 404, like a chat-only server. A
request with ``n`` > 1 gets n choices (choice j > 0 is the answer text plus `` [choice j]``);
``n_choices="reject"`` answers it with HTTP 400 instead, ``"one"`` ignores ``n``.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENAI_PATH = "/v1/chat/completions"
COMPLETIONS_PATH = "/v1/completions"
ANTHROPIC_PATH = "/v1/messages"


@dataclass(frozen=True)
class Reply:
    """One scripted behaviour: a status, headers, an answer text or error, and a delay."""

    status: int = 200
    text: str | None = None  # None with status 200: echo the last user message
    error: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    model: str | None = None  # the model string to report (default: the requested one)
    finish_reason: str = "stop"


def ok(text: str | None = None, *, model: str | None = None, delay: float = 0.0) -> Reply:
    """A successful answer (``text=None`` echoes the prompt)."""
    return Reply(text=text, model=model, delay=delay)


def rate_limited(retry_after: str | None = "3", message: str = "Rate limit reached") -> Reply:
    """HTTP 429, optionally with a Retry-After header (seconds or an HTTP-date)."""
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return Reply(status=429, error=message, headers=headers)


def server_error(status: int = 500, message: str = "The server had an error") -> Reply:
    """A 5xx answer."""
    return Reply(status=status, error=message)


def bad_request(message: str = "Invalid value for 'temperature'", status: int = 400) -> Reply:
    """A 4xx rejection with an error body."""
    return Reply(status=status, error=message)


def slow(seconds: float, text: str | None = None) -> Reply:
    """A successful answer sent only after ``seconds`` (longer than the client's timeout)."""
    return Reply(text=text, delay=seconds)


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)  # names lower-cased


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class FakeEndpoint:
    """Context manager running the scripted server on 127.0.0.1 in a daemon thread.

    ``hold_until`` makes every request wait (up to ``hold_timeout`` s) until that many
    requests have been in flight at once, so concurrency limits can be checked without
    relying on timing.
    """

    def __init__(
        self,
        *replies: Reply,
        hold_until: int = 0,
        hold_timeout: float = 5.0,
        responder: Callable[[str], str | Reply] | None = None,
        chat_only: bool = False,
        n_choices: str = "all",
    ) -> None:
        self.chat_only = chat_only
        self.n_choices = n_choices  # what a request with n > 1 gets: all, reject, one
        self._script: list[Reply] = list(replies)
        self.responder = responder  # answers from the last user message once the script is out
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._held = threading.Event()
        self.hold_until = hold_until
        self.hold_timeout = hold_timeout
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- script ----------------------------------------------------------------------------
    def push(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._script:
                return self._script.pop(0)
        if self.responder is not None:
            answer = self.responder(_prompt_text(body))  # a text, or a whole Reply
            return answer if isinstance(answer, Reply) else Reply(text=answer)
        return Reply()

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    # -- addresses -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> FakeEndpoint:
        endpoint = self

        class Handler(_Handler):
            owner = endpoint

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # wake handlers sleeping in slow replies
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    # -- handling --------------------------------------------------------------------------
    def _enter_request(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.hold_until and self.in_flight >= self.hold_until:
                self._held.set()
        if self.hold_until:
            self._held.wait(self.hold_timeout)

    def _leave_request(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    owner: FakeEndpoint
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        pass

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        owner = self.owner
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if len(raw) < length:  # the client died while sending (a killed run): nothing asked
            self.close_connection = True
            return
        body = json.loads(raw or b"{}")
        path = self.path.split("?", 1)[0]
        with owner._lock:
            headers = {k.lower(): v for k, v in self.headers.items()}
            owner.requests.append(RecordedRequest(path, body, headers))
        owner._enter_request()
        try:
            reply = owner._next_reply(body)
            if reply.delay and owner._stop.wait(reply.delay):
                return
            if _asks_n(body) and owner.n_choices == "reject":
                reply = Reply(status=400, error="n must be 1 with this server")
                payload = _openai_payload(reply, body)
            elif path == COMPLETIONS_PATH and owner.chat_only:
                reply = Reply(status=404, error=f"no route {path}")
                payload = _openai_payload(reply, body)
            elif path == COMPLETIONS_PATH:
                payload = _completions_payload(reply, body)
            elif path == OPENAI_PATH:
                payload = _openai_payload(reply, body)
            elif path == ANTHROPIC_PATH:
                payload = _anthropic_payload(reply, body)
            else:
                reply = Reply(status=404, error=f"no route {path}")
                payload = _openai_payload(reply, body)
            if _asks_n(body) and owner.n_choices == "all" and reply.status == 200:
                first = payload["choices"][0]
                field = "text" if "text" in first else "message"
                for j in range(1, int(body["n"])):
                    extra = json.loads(json.dumps(first))
                    extra["index"] = j
                    if field == "text":
                        extra["text"] += f" [choice {j}]"
                    else:
                        extra["message"]["content"] += f" [choice {j}]"
                    payload["choices"].append(extra)
            data = json.dumps(payload).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer
        finally:
            owner._leave_request()


def _asks_n(body: dict[str, Any]) -> bool:
    return isinstance(body.get("n"), int) and body["n"] > 1


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _prompt_text(body: dict[str, Any]) -> str:
    """What a responder answers: a completion's prompt, else the last user message."""
    if isinstance(body.get("prompt"), str):
        return str(body["prompt"])
    return _last_user_text(body.get("messages", []))


def _completions_payload(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    if reply.status != 200:
        return _openai_payload(reply, body)
    text = reply.text if reply.text is not None else "echo: " + str(body.get("prompt", ""))
    payload = _openai_payload(reply, body)
    payload.update(id="cmpl-fake", object="text_completion")
    payload["choices"][0].pop("message")
    payload["choices"][0]["text"] = text
    payload["usage"] = {"prompt_tokens": 13, "completion_tokens": 5, "total_tokens": 18}
    return payload


def _openai_payload(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    if reply.status != 200:
        kind = "rate_limit_exceeded" if reply.status == 429 else "invalid_request_error"
        return {"error": {"message": reply.error, "type": kind, "param": None, "code": None}}
    messages = body.get("messages", [])
    text = reply.text if reply.text is not None else "echo: " + _last_user_text(messages)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": reply.model or body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": reply.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def _anthropic_payload(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    if reply.status != 200:
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(reply.status)
        kind = kind or ("api_error" if reply.status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": reply.error}}
    text = reply.text if reply.text is not None else "echo: " + _last_user_text(body["messages"])
    stop = "end_turn" if reply.finish_reason == "stop" else reply.finish_reason
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": reply.model or body.get("model", ""),
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 7},
    }
