"""Bedrock's reply stream read on a thread of its own: every event reaches the event loop in
order and then the end, a failure reaches it as an error, Stop hands on nothing more and
wakes a blocked read by shutting the socket down, and the round's messages are put in the
body only while that thread sends it."""

from __future__ import annotations

import asyncio
import socket
import threading
from types import SimpleNamespace

import pytest

from openprogram_jupyter.models import _bedrock_body
from openprogram_jupyter.models._bedrock_stream import StreamPump, close_stream


class Stream:
    """A botocore event stream stand-in: its events, then optionally a failure."""

    def __init__(self, events: list[dict], fail: Exception | None = None, before_each=None) -> None:
        self.events, self.fail, self.before_each = events, fail, before_each
        self.closed = 0

    def __iter__(self):
        for event in self.events:
            if self.before_each:
                self.before_each()
            yield event
        if self.fail:
            raise self.fail

    def close(self) -> None:
        self.closed += 1


class Client:
    def __init__(self, stream: Stream | None = None, refuse: Exception | None = None) -> None:
        self.stream, self.refuse = stream, refuse
        self.calls: list[tuple[dict, object]] = []

    def converse_stream(self, **payload):
        self.calls.append((payload, _bedrock_body.SENDING.messages))
        self.thread = threading.current_thread()
        if self.refuse:
            raise self.refuse
        return {"stream": self.stream}


async def closed_soon(stream: Stream) -> bool:
    """Whether the reading thread closes ``stream`` (once) within 5 seconds."""
    for _ in range(500):
        if stream.closed:
            break
        await asyncio.sleep(0.01)
    return stream.closed == 1


async def drained(pump: StreamPump, count: int) -> list[tuple[str, object]]:
    return [await asyncio.wait_for(pump.queue.get(), 5) for _ in range(count)]


async def test_every_event_reaches_the_loop_in_order_then_the_end():
    stream = Stream([{"a": 1}, {"b": 2}])
    client = Client(stream)
    pump = StreamPump(client, {"modelId": "m"}, asyncio.get_running_loop(), [b"{}"])
    pump.start()
    assert await drained(pump, 3) == [("event", {"a": 1}), ("event", {"b": 2}), ("end", None)]
    assert client.calls == [({"modelId": "m"}, [b"{}"])]  # the messages, while it sent
    # a thread of its own, named in a traceback, that never keeps the process alive
    assert (client.thread.name, client.thread.daemon) == ("bedrock-converse-stream", True)
    assert client.thread is not threading.current_thread()
    assert _bedrock_body.SENDING.__dict__.get("messages") is None  # not on this thread
    assert await closed_soon(stream)


async def test_a_refused_request_reaches_the_loop_as_its_error():
    refused = ValueError("no")
    client = Client(refuse=refused)
    pump = StreamPump(client, {}, asyncio.get_running_loop(), [])
    pump.start()
    assert await drained(pump, 1) == [("error", refused)]


async def test_a_stream_that_breaks_hands_on_what_arrived_then_its_error():
    broken = RuntimeError("cut")
    stream = Stream([{"a": 1}], fail=broken)
    pump = StreamPump(Client(stream), {}, asyncio.get_running_loop(), [])
    pump.start()
    assert await drained(pump, 2) == [("event", {"a": 1}), ("error", broken)]
    assert await closed_soon(stream)


async def test_after_stop_nothing_more_is_handed_on_and_the_stream_is_closed():
    loop = asyncio.get_running_loop()
    first_sent = threading.Event()
    go_on = threading.Event()
    pump: StreamPump

    def between():
        if first_sent.is_set():
            go_on.wait(5)
        first_sent.set()

    stream = Stream([{"a": 1}, {"b": 2}, {"c": 3}], fail=RuntimeError("after stop"), before_each=between)
    pump = StreamPump(Client(stream), {}, loop, [])
    pump.start()
    assert await drained(pump, 1) == [("event", {"a": 1})]
    pump.stop()
    assert stream.closed >= 1  # Stop closes it at once, from the loop's side
    go_on.set()
    await asyncio.sleep(0.2)
    assert pump.queue.empty()


async def test_stop_before_the_stream_opens_hands_on_nothing_and_closes_it():
    loop = asyncio.get_running_loop()
    stream = Stream([{"a": 1}])
    pump = StreamPump(Client(stream), {}, loop, [])
    pump.stop()
    pump.start()
    assert await closed_soon(stream)  # the thread closes it last
    await asyncio.sleep(0.05)  # anything it had handed on would be queued by now
    assert pump.queue.empty()


def test_events_for_a_closed_loop_are_dropped_and_reading_stops():
    loop = asyncio.new_event_loop()
    loop.close()
    stream = Stream([{"a": 1}, {"b": 2}, {"c": 3}])
    seen: list[dict] = []
    stream.before_each = lambda: seen.append({})
    pump = StreamPump(Client(stream), {}, loop, [])
    pump._run()
    # the first event found nobody listening: the second is read, found stopped, and no third
    assert len(seen) == 2
    assert stream.closed == 1


class Sock:
    def __init__(self, error: Exception | None = None) -> None:
        self.how: list[int] = []
        self.error = error

    def shutdown(self, how: int) -> None:
        self.how.append(how)
        if self.error:
            raise self.error


def test_close_shuts_the_connection_s_socket_down_both_ways_then_closes():
    sock = Sock()
    stream = Stream([])
    stream._raw_stream = SimpleNamespace(_connection=SimpleNamespace(sock=sock))
    close_stream(stream)
    assert sock.how == [socket.SHUT_RDWR]
    assert stream.closed == 1


def test_close_finds_the_socket_a_closing_response_was_handed():
    sock = Sock()
    stream = Stream([])
    raw = SimpleNamespace(_connection=None, _fp=SimpleNamespace(fp=SimpleNamespace(raw=SimpleNamespace(_sock=sock))))
    stream._raw_stream = raw
    close_stream(stream)
    assert sock.how == [socket.SHUT_RDWR]


def test_close_without_a_socket_shuts_the_response_down():
    shut: list[str] = []
    stream = Stream([])
    stream._raw_stream = SimpleNamespace(shutdown=lambda: shut.append("raw"))
    close_stream(stream)
    assert shut == ["raw"]
    assert stream.closed == 1


@pytest.mark.parametrize("error", [OSError("gone"), ValueError("closed"), RuntimeError("released")])
def test_close_of_an_already_closed_connection_still_closes_the_stream(error):
    stream = Stream([])
    stream._raw_stream = SimpleNamespace(_connection=SimpleNamespace(sock=Sock(error)))
    close_stream(stream)
    assert stream.closed == 1


def test_close_of_a_broken_stream_raises_nothing():
    class Broken:
        def close(self):
            raise OSError("broken")

    close_stream(Broken())
    close_stream(SimpleNamespace())  # no raw stream, no close: nothing to do
