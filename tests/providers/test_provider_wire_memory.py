"""Wire capture's memory is linear in the run's length: a 300-round run through the real
OpenAI SDK against the loopback server stores far less than its requests' total size."""

from __future__ import annotations

import gc
import json
import tracemalloc

from fakeserver import Call, Turn

from openprogram_jupyter.models._wire import WireLog
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, make_tools

ROUNDS = 300
PER_ROUND_ENVELOPE = 1024  # bytes a round may cost beyond its new messages and its frames
RETAINED_PER_ROUND = 2048  # the same, in memory as Python holds it (objects' overhead included)


async def test_300_round_capture_stays_within_a_linear_bound(server):
    server.script(
        *[Turn(text=f"step {n}", calls=[Call("add", {"a": n, "b": 1})]) for n in range(ROUNDS - 1)], Turn(text="done")
    )
    run = (
        await CASES[0]
        .runtime(server, capture_wire=True)
        .arun("Count to 300 with add.", tools=make_tools(), max_iterations=None, max_tool_calls=None)
    )
    assert run.stop_reason == "stop", run.error
    assert run.rounds == ROUNDS == len(server.requests)

    sent = [len(json.dumps(r.body)) for r in server.requests]
    frames = sum(len(json.dumps(run.wire(n)[1]["frames"])) for n in range(1, ROUNDS + 1))
    stored = run.wire_log.stored_bytes()
    # Linear: each distinct message once (all of them are in the last request) + the
    # frames + a fixed envelope per round. Storing every request whole would be sum(sent).
    bound = 2 * (sent[-1] + frames) + PER_ROUND_ENVELOPE * ROUNDS
    print(
        f"stored {stored:,} bytes; bound {bound:,}; whole requests {sum(sent):,}; last request {sent[-1]:,}; "
        f"frames {frames:,}"
    )
    assert stored <= bound
    assert sum(sent) > 3 * bound, "the run is long enough that quadratic storage could not pass the bound"
    # the deepest chain rebuilds exactly what the server received
    assert run.wire(ROUNDS)[0] == server.requests[-1].body
    assert run.wire(150)[0] == server.requests[149].body


def _message(number: int, size: int) -> dict:
    """Message ``number`` of a history that grows by a call and its result each round."""
    if number % 2 == 0:
        return {"role": "assistant", "content": f"call {number} " + "x" * size}
    return {"role": "tool", "tool_call_id": f"call_{number}", "content": f"result {number}"}


def _retained_by_a_log_of(rounds: int, size: int = 400) -> tuple[int, int]:
    """``(bytes retained, bytes of the distinct messages)`` when a wire log stores a run of
    ``rounds`` rounds whose history grows by two messages a round, measured by tracemalloc
    (what stays allocated once every body sent is gone), not by the log's own count. Each
    round's body is built afresh, as a provider builds it."""
    log = WireLog()
    conversation: list[str] = []
    tools = [{"name": "add", "description": "Add two numbers.", "parameters": {"type": "object"}}]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for number in range(1, rounds + 1):
        body = {"model": "m", "messages": [_message(k, size) for k in range(2 * number)], "tools": tools}
        recorder = log.recorder(number, ModelRequest(messages=conversation, tools=tools))
        recorder.request(body, "openai")
        recorder.attempt()
        recorder.frame({"choices": [{"delta": {"content": f"step {number}"}}]})
    del recorder, body
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    history = [_message(k, size) for k in range(2 * rounds)]
    assert log.request(rounds)["messages"] == history  # what was stored is all there
    return retained, sum(len(json.dumps(m)) for m in history)


def test_retained_memory_doubles_when_the_run_doubles():
    # 100 and 200 rounds tell linear from quadratic as well as longer runs do, and the
    # bodies built under tracemalloc cost time quadratic in the rounds.
    at_100, distinct_100 = _retained_by_a_log_of(100)
    at_200, _ = _retained_by_a_log_of(200)
    print(f"retained: {at_100:,} bytes at 100 rounds, {at_200:,} at 200 (distinct messages {distinct_100:,} at 100)")
    # Linear storage doubles (a little more for the dicts' growth); storing each round's body
    # whole would grow about four times.
    assert at_200 < 2.6 * at_100
    assert at_100 < 2 * distinct_100 + RETAINED_PER_ROUND * 100
