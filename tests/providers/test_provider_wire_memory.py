"""Wire capture's memory is linear in the run's length: a 300-round run through the real
OpenAI SDK against the loopback server stores far less than its requests' total size."""

from __future__ import annotations

import json

from fakeserver import Call, Turn

from .cases import CASES, make_tools

ROUNDS = 300
PER_ROUND_ENVELOPE = 1024  # bytes a round may cost beyond its new messages and its frames


async def test_300_round_capture_stays_within_a_linear_bound(server):
    server.script(*[Turn(text=f"step {n}", calls=[Call("add", {"a": n, "b": 1})]) for n in range(ROUNDS - 1)],
                  Turn(text="done"))
    run = await CASES[0].runtime(server, capture_wire=True).arun(
        "Count to 300 with add.", tools=make_tools(), max_iterations=None, max_tool_calls=None)
    assert run.stop_reason == "stop", run.error
    assert run.rounds == ROUNDS == len(server.requests)

    sent = [len(json.dumps(r.body)) for r in server.requests]
    frames = sum(len(json.dumps(run.wire(n)[1]["frames"])) for n in range(1, ROUNDS + 1))
    stored = run.wire_log.stored_bytes()
    # Linear: each distinct message once (all of them are in the last request) + the
    # frames + a fixed envelope per round. Storing every request whole would be sum(sent).
    bound = 2 * (sent[-1] + frames) + PER_ROUND_ENVELOPE * ROUNDS
    print(f"stored {stored:,} bytes; bound {bound:,}; whole requests {sum(sent):,}; last request {sent[-1]:,}; "
          f"frames {frames:,}")
    assert stored <= bound
    assert sum(sent) > 3 * bound, "the run is long enough that quadratic storage could not pass the bound"
    # the deepest chain rebuilds exactly what the server received
    assert run.wire(ROUNDS)[0] == server.requests[-1].body
    assert run.wire(150)[0] == server.requests[149].body
