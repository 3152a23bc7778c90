"""The benchmarks' scripted replies, and the loopback fake server run in a child process.

A provider is never inside the client's process. The fake server in a thread of the
bench's own process shares its interpreter lock: while the server thread reads or parses
a request, the client's threads wait for the lock, so a body that grows with the run
slows the client by the server's work. ``ServerProcess`` serves the same scripted turns
from a child process (its own interpreter, the machine's other core), and hands back each
request's timestamps (``time.monotonic``, one clock for the whole machine on Linux).
"""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable
from typing import Any

from fakeserver import Call, FakeServer, Turn

RESULT_MARKS = {
    "openai": b'"tool_call_id"',
    "openai-responses": b'"function_call_output"',
    "anthropic": b'"tool_result"',
    "gemini": b'"functionResponse"',
    "bedrock": b'"toolResult"',
}
"""What only a tool result holds, per wire, in the bench's bodies (whose texts are numbers)."""


def counted_body(raw: bytes, wire: str) -> dict[str, Any]:
    """A body read without parsing it (``FakeServer.read_body``): its tool results counted
    by their mark (:data:`RESULT_MARKS`), found at C speed; the server's work stays flat."""
    return {"stream": True, "results": raw.count(RESULT_MARKS[wire])}


def responder(rounds: int) -> Callable[[Any, Any], Turn]:
    """The bench's script: a request holding N tool results is answered with call N + 1
    (``add(N, 1)``) while N < ``rounds``, then with a final text."""

    def reply(recorded: Any, wire: Any) -> Turn:
        body = recorded.body
        done = body["results"] if "results" in body else wire.result_count(body)
        if done < rounds:
            return Turn(calls=[Call("add", {"a": done, "b": 1})])
        return Turn(text=f"Done after {done} calls.")

    return reply


def lean(reply: Callable[[Any, Any], Turn]) -> Callable[[Any, Any], Turn]:
    """``reply``, dropping each request's parsed body from the server's record once read:
    kept, the bodies of a 2,000-round run hold gigabytes of objects that every garbage
    collection in the server's process walks."""

    def answer(recorded: Any, wire: Any) -> Turn:
        turn = reply(recorded, wire)
        recorded.body = {}
        return turn

    return answer


Timing = tuple[float, float]  # a request's (read_at, answered_at), as FakeServer records them


def parsing_extra(reply: Callable[[Any, Any], Turn], extra: bytes) -> Callable[[Any, Any], Turn]:
    """``reply``, after parsing the JSON ``extra`` once more for each request: the work a
    server does for a long body, without the body (bench/server_interference.py)."""

    def answer(recorded: Any, wire: Any) -> Turn:
        json.loads(extra)
        return reply(recorded, wire)

    return answer


def ballast(size: int) -> bytes:
    """About ``size`` bytes of JSON shaped like a conversation's messages."""
    item = {"role": "user", "content": [{"type": "text", "text": "x" * 50}]}
    return json.dumps([item] * max(1, size // len(json.dumps(item)))).encode()


class ServerProcess:
    """``with ServerProcess(rounds) as server:`` — ``FakeServer`` answering ``lean(responder(
    rounds))`` in a child process; ``url`` and ``openai_base_url`` as ``FakeServer``'s.
    ``take_timings()`` returns the timings of the requests served since the last call,
    in arrival order, and forgets them there. ``extra_bytes``: the server also parses that
    much JSON per request before it answers (:func:`parsing_extra`). ``flat``: it reads
    each body without parsing or checking it (:func:`counted_body`). ``keep_alive``: a
    connection stays open after a stream, as the providers' APIs keep it (else closed)."""

    def __init__(self, rounds: int, *, extra_bytes: int = 0, flat: bool = False, keep_alive: bool = False) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process with threads running
        self._pipe, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, rounds, extra_bytes, flat, keep_alive), daemon=True)
        self.url = self.openai_base_url = ""

    def __enter__(self) -> ServerProcess:
        self._process.start()
        self.url, self.openai_base_url = self._pipe.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._pipe.send("stop")
        self._process.join(10)

    def take_timings(self) -> list[Timing]:
        self._pipe.send("timings")
        timings: list[Timing] = self._pipe.recv()
        return timings


def _serve(pipe: Any, rounds: int, extra_bytes: int, flat: bool, keep_alive: bool) -> None:
    with FakeServer() as server:
        server.responder = lean(responder(rounds))
        server.keep_alive = keep_alive
        if flat:
            server.read_body = counted_body
        if extra_bytes:
            server.responder = parsing_extra(server.responder, ballast(extra_bytes))
        pipe.send((server.url, server.openai_base_url))
        while pipe.recv() != "stop":
            taken, server.requests[:] = list(server.requests), []
            pipe.send([(r.read_at, r.answered_at) for r in taken])
