"""The loopback server: routes each request to its wire format, rejects what the real
API rejects, records every request, and replays scripted turns.

Hygiene, so that what a test times is the client and not the server's buffering:
``TCP_NODELAY`` on every connection (else a small frame can wait ~40 ms for a delayed
ACK); streams are sent with ``Connection: close`` (no keep-alive connection outlives a
stream) and flushed frame by frame; a client that goes away mid-stream is noticed (while
waiting between slow frames the socket is polled) and its time recorded in
:attr:`FakeServer.closes`.
"""

from __future__ import annotations

import itertools
import json
import re
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from .script import Turn
from .wire import Reject, Wire
from .wire_anthropic import AnthropicWire
from .wire_bedrock import BedrockWire
from .wire_gemini import GeminiWire
from .wire_openai import OpenAIChatWire, OpenAIResponsesWire

_ROUTES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^/v1/chat/completions$"), "openai"),
    (re.compile(r"^/v1/responses$"), "openai-responses"),
    (re.compile(r"^/v1/messages$"), "anthropic"),
    (re.compile(r"^/v1beta/models/(?P<model>[^/:]+):streamGenerateContent$"), "gemini"),
    (re.compile(r"^/model/(?P<model>.+)/converse-stream$"), "bedrock"),
]


def _route(path: str) -> tuple[str, re.Match[str]] | None:
    """The name of the wire that serves ``path`` and its route's match; ``None`` for no route."""
    for pattern, wire_name in _ROUTES:
        match = pattern.match(path)
        if match:
            return wire_name, match
    return None


@dataclass
class Recorded:
    """One request as received: which wire, path, lower-cased headers, JSON body; and, for
    a streamed answer, the frames the server sent (each as written on the socket)."""

    wire: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    model: str | None = None
    received_at: float = field(default_factory=time.monotonic)
    frames: list[bytes] = field(default_factory=list)
    read_at: float = 0.0  # the body read whole, before it is parsed (time.monotonic)
    answered_at: float = 0.0  # just before the answer's last bytes are written (0.0 while none)


@dataclass
class Close:
    """A client closed its connection while we were still streaming to it."""

    request_index: int
    at: float
    frames_sent: int


class FakeServer:
    """``with FakeServer() as server:`` — a server on ``127.0.0.1`` with a free port.

    ``script(*turns)`` queues turns (one per request, in order, shared by all routes);
    ``responder`` (a callable ``(Recorded, wire) -> Turn``) answers when the queue is
    empty. With neither, a request gets a 500 saying the script ran out. ``expected_key``,
    when set, makes a request with another key a 401 in the wire's error shape.

    ``read_body`` (benchmarks only): a callable ``(raw bytes, wire name) -> dict`` used in
    place of parsing each body; what it returns is kept and answered from, unchecked. A
    benchmark of long runs uses it so that the server's work does not grow with the body.

    ``cors_origin`` (for a page that calls the server from another origin, the JupyterLite
    site's): when set, every answer carries ``Access-Control-Allow-Origin: <cors_origin>``,
    and a CORS preflight (``OPTIONS``) is answered 204, allowing ``POST`` and the request
    headers the preflight names, only when its ``Origin`` is ``cors_origin``; each preflight's
    lower-cased headers are kept in :attr:`preflights`. Unset (the default), an ``OPTIONS``
    gets http.server's 501 and no answer names an origin, as a server without CORS does.
    """

    def __init__(self) -> None:
        self.wires: dict[str, Wire] = {
            "openai": OpenAIChatWire(),
            "openai-responses": OpenAIResponsesWire(),
            "anthropic": AnthropicWire(),
            "gemini": GeminiWire(),
            "bedrock": BedrockWire(),
        }
        self.turns: deque[Turn] = deque()
        self.responder: Callable[[Recorded, Wire], Turn] | None = None
        self.expected_key: str | None = None
        self.read_body: Callable[[bytes, str], dict[str, Any]] | None = None
        self.cors_origin: str | None = None
        self.preflights: list[dict[str, str]] = []
        self.requests: list[Recorded] = []
        self.rejections: list[tuple[int, Reject]] = []
        self.closes: list[Close] = []
        self.closed = threading.Event()
        self.keep_alive = False  # streams end with Connection: close unless set (the benchmarks set it)
        self.stream_progress = threading.Condition()
        self.frames_sent = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> FakeServer:
        server = self

        class Handler(_Handler):
            fake = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    # -- scripting ---------------------------------------------------------------------

    def script(self, *turns: Turn) -> None:
        self.turns.extend(turns)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):04d}"

    def bodies(self, wire: str | None = None) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if wire is None or r.wire == wire]

    def next_turn(self, recorded: Recorded, wire: Wire) -> Turn | None:
        with self._lock:
            if self.turns:
                return self.turns.popleft()
        return self.responder(recorded, wire) if self.responder else None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY: no 40 ms delayed-ACK stalls

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except ConnectionResetError:  # a client dropped a kept-alive connection between requests
            pass

    def end_headers(self) -> None:
        if self.fake.cors_origin is not None:
            self.send_header("Access-Control-Allow-Origin", self.fake.cors_origin)
            self.send_header("Vary", "Origin")
        super().end_headers()

    def do_OPTIONS(self) -> None:  # http.server's naming
        """A CORS preflight, answered only for :attr:`FakeServer.cors_origin`."""
        allowed = self.fake.cors_origin
        if allowed is None:
            self.send_error(501, f"Unsupported method ({self.command!r})")
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake.preflights.append(headers)
        self.send_response(204 if headers.get("origin") == allowed else 403)
        if headers.get("origin") == allowed:
            self.send_header("Access-Control-Allow-Methods", "POST")
            self.send_header("Access-Control-Allow-Headers", headers.get("access-control-request-headers", ""))
            self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # http.server's naming
        split = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        read_at = time.monotonic()
        routed = _route(split.path)
        if routed is None:
            self._reply(Reject(404, {"error": f"fake server: no route for {split.path}"}))
            return
        wire_name, match = routed
        wire = self.fake.wires[wire_name]
        try:
            body = json.loads(raw or b"{}") if self.fake.read_body is None else self.fake.read_body(raw, wire_name)
        except json.JSONDecodeError:
            self._reply(wire.http_error(400, "We could not parse the JSON body of your request."))
            return
        model = unquote(match.groupdict().get("model") or body.get("model") or "")
        recorded = Recorded(
            wire_name, self.path, {k.lower(): v for k, v in self.headers.items()}, body, model, read_at=read_at
        )
        with self.fake._lock:
            self.fake.requests.append(recorded)
            request_index = len(self.fake.requests) - 1
        if wire_name == "gemini" and "alt=sse" not in split.query:
            self._reply(wire.http_error(400, "fake server: only alt=sse streaming is implemented"))
            return
        expected = self.fake.expected_key
        if expected is not None and wire.key(recorded.headers) != expected:
            self._reply(wire.http_error(401, f"Incorrect API key provided: {wire.key(recorded.headers)}"))
            return
        rejected = wire.validate(body) if self.fake.read_body is None else None
        if rejected is not None:
            self.fake.rejections.append((request_index, rejected))
            self._reply(rejected)
            return
        turn = self.fake.next_turn(recorded, wire)
        if turn is None:
            self._reply(wire.http_error(500, f"fake server: the script ran out at request {request_index + 1}"))
            return
        if turn.status is not None:
            reply = wire.http_error(turn.status, turn.error_message or f"scripted HTTP {turn.status}")
            if turn.error_body is not None:
                reply = Reject(turn.status, turn.error_body)
            if turn.retry_after is not None:
                reply.headers["retry-after"] = f"{turn.retry_after:g}"
            self._reply(reply)
            return
        if body.get("stream") is not True and hasattr(wire, "complete"):  # Chat Completions without stream
            self._reply(Reject(200, wire.complete(turn, body, self.fake.new_id)))
            return
        frames = turn.raw_frames if turn.raw_frames is not None else wire.frames(turn, body, self.fake.new_id)
        # The parsed body is freed now, before the answer: freed after it (when this method
        # returns), a long history's objects were released while the client turned the
        # answer into its next request, and the benchmarks that time that turnaround
        # (bench/provider_overhead.py --long) counted the server's work as the client's.
        del body, raw, recorded
        self._stream(wire, turn, frames, request_index)

    # -- replies -----------------------------------------------------------------------

    def _reply(self, reject: Reject) -> None:
        """Send ``reject``: its body as JSON, or as it is when it is ``bytes`` (a proxy's page)."""
        raw = isinstance(reject.body, bytes)
        payload = reject.body if raw else json.dumps(reject.body).encode()
        self.send_response(reject.status)
        self.send_header("Content-Type", "text/html" if raw else "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in reject.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _stream(self, wire: Wire, turn: Turn, frames: list[bytes], request_index: int) -> None:
        """Send the turn's frames with chunked transfer encoding, as the real APIs do (a
        close-delimited body would make urllib3 — hence boto3 — wait for 64 KiB or the
        end before handing over a single event)."""
        if turn.error_after is not None:
            frames = [*frames[: turn.error_after], wire.error_frame(turn.error_message or "scripted stream error")]
        elif turn.cut_after is not None:
            frames = frames[: turn.cut_after]
        record = self.fake.requests[request_index]
        record.frames = list(frames)
        self.send_response(200)
        for name, value in wire.stream_headers().items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        if not self.fake.keep_alive:
            self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = not self.fake.keep_alive
        sent = 0
        try:
            self.wfile.flush()
            for frame in frames:
                if turn.frame_delay and self._client_gone_within(turn.frame_delay):
                    self._record_close(request_index, sent)
                    return
                self.wfile.write(b"%x\r\n%b\r\n" % (len(frame), frame))
                self.wfile.flush()
                sent += 1
                with self.fake.stream_progress:
                    self.fake.frames_sent += 1
                    self.fake.stream_progress.notify_all()
            record.answered_at = time.monotonic()  # before the client can have the answer's end
            if turn.cut_after is None or turn.cut_cleanly:
                self.wfile.write(b"0\r\n\r\n")  # a cut that is not clean drops the connection mid-body
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._record_close(request_index, sent)

    def _client_gone_within(self, seconds: float) -> bool:
        """Wait ``seconds``; true as soon as the client closes its end (EOF or reset)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], left)
            if not readable:
                return False
            try:
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    return True
            except (ConnectionResetError, OSError):
                return True
            time.sleep(min(left, 0.005))  # unexpected bytes: keep waiting
        return False

    def _record_close(self, request_index: int, sent: int) -> None:
        self.fake.closes.append(Close(request_index, time.monotonic(), sent))
        self.fake.closed.set()
