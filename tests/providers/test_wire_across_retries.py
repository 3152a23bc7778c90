"""Wire capture across retries (issue 45 item 3): when a stream is cut, or sends an error,
before anything arrived and the round is retried, the captured reply holds the frames of
the attempt that succeeded alone — as many as a round that never failed — and one error
entry per failed attempt; the request is captured once."""

from __future__ import annotations

import pytest
from fakeserver import Turn

from .cases import CASE_IDS, CASES, make_tools

PARTIAL = "This never arrives whole."


async def _captured(case, server, *first: Turn):
    server.script(*first, Turn(text="Hello there."))
    run = await case.runtime(server, capture_wire=True).arun("Hi.", tools=make_tools())
    assert run.stop_reason == "stop", run.error
    return run.wire(1)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("failure", ["cut", "error frame"])
async def test_a_retried_round_keeps_only_the_frames_of_the_attempt_that_succeeded(case, server, failure):
    _, clean = await _captured(case, server)
    early = 1 if case.prefix != "gemini" else 0
    broken = Turn(text=PARTIAL, cut_after=early) if failure == "cut" else Turn(text=PARTIAL, error_after=early)
    request, retried = await _captured(case, server, broken)
    assert retried["attempts"] == 2 and [e["attempt"] for e in retried["errors"]] == [1]
    assert len(retried["frames"]) == len(clean["frames"])
    assert "This never" not in str(retried["frames"]) and "Hello there." in str(retried["final"])
    assert request == server.requests[-1].body == server.requests[-2].body  # one request, sent twice
