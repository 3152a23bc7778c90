"""Gemini's ``thoughtSignature``s survive the round trip: a reply streamed from the loopback
server through ``GeminiModel`` is sent back in the next request with every signature on
the part it came on, in order, and no two parts merged when either is signed (Google's
thought-signature rules: return each signature unchanged on its own part; never merge a
signed part with another part, signed or not).

Each case is the reply's parts as streamed (one SSE chunk each) and the model parts the
next request sends back for them."""

from __future__ import annotations

import pytest
from fakeserver import Turn
from fakeserver.wire import sse

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.models.gemini import GeminiModel

from .cases import CASES, FAST_RETRY, SECRET, make_tools, stream_once

GO = UserMessage(content="go")
NEXT = UserMessage(content="and then?")
GEMINI = next(case for case in CASES if case.prefix == "gemini")


def _chunk(part: dict, finish: str | None = None) -> bytes:
    candidate: dict = {"content": {"role": "model", "parts": [part]}}
    if finish:
        candidate["finishReason"] = finish
    return sse({"candidates": [candidate]})


async def _sent_back(server, parts: list[dict]) -> list[dict]:
    """The model parts the round after a reply streamed as ``parts`` sends for that reply."""
    model = GeminiModel("gemini-3-pro-preview", api_key=SECRET, base_url=server.url, retry=FAST_RETRY)
    frames = [_chunk(p) for p in parts] + [_chunk({"text": ""}, finish="STOP")]
    server.script(Turn(raw_frames=frames), Turn(text="ok"))
    _, reply = await stream_once(model, ModelRequest(messages=[GO]))
    assert reply.stop_reason == "stop", reply.error_message
    _, answer = await stream_once(model, ModelRequest(messages=[GO, reply, NEXT]))
    assert answer.stop_reason == "stop", answer.error_message
    model_contents = [c for c in server.requests[-1].body["contents"] if c["role"] == "model"]
    assert len(model_contents) == 1
    return model_contents[0]["parts"]


SIGNED_A = {"text": "A", "thoughtSignature": "c2lnLTE="}
SIGNED_B = {"text": "B", "thoughtSignature": "c2lnLTI="}
EMPTY_SIGNED = {"text": "", "thoughtSignature": "c2lnLTI="}
THOUGHT_SIGNED_1 = {"text": "Think one.", "thought": True, "thoughtSignature": "dGgtMQ=="}
THOUGHT_SIGNED_2 = {"text": "Think two.", "thought": True, "thoughtSignature": "dGgtMg=="}
THOUGHT = {"text": "Think on.", "thought": True}

CASES_SENT_BACK = {
    "two signed text parts": ([SIGNED_A, SIGNED_B], [SIGNED_A, SIGNED_B]),
    "a signed text, then a signed empty part": ([SIGNED_A, EMPTY_SIGNED], [SIGNED_A, EMPTY_SIGNED]),
    "a signed text, then plain text": ([SIGNED_A, {"text": "B"}], [SIGNED_A, {"text": "B"}]),
    "two signed thought parts": ([THOUGHT_SIGNED_1, THOUGHT_SIGNED_2], [THOUGHT_SIGNED_1, THOUGHT_SIGNED_2]),
    "a signed thought, then an unsigned one": ([THOUGHT_SIGNED_1, THOUGHT], [THOUGHT_SIGNED_1, THOUGHT]),
    "a thought, then a signed empty part": ([THOUGHT, EMPTY_SIGNED], [THOUGHT, EMPTY_SIGNED]),
    "a signed text, then a thought": ([SIGNED_A, THOUGHT], [SIGNED_A, THOUGHT]),
}


@pytest.mark.parametrize(("streamed", "expected"), CASES_SENT_BACK.values(), ids=CASES_SENT_BACK.keys())
async def test_each_signature_goes_back_on_the_part_it_came_on_in_order(server, streamed, expected):
    assert await _sent_back(server, streamed) == expected


async def test_a_text_streamed_in_pieces_goes_back_as_one_part_with_the_signature_its_last_piece_carried(server):
    # Pieces of one part: only its last chunk is signed, so the pieces stay one part.
    streamed = [{"text": "Hel"}, {"text": "lo."}, {"text": "", "thoughtSignature": "c2lnLTE="}]
    assert await _sent_back(server, streamed) == [{"text": "Hello.", "thoughtSignature": "c2lnLTE="}]


async def test_a_run_s_next_round_sends_back_every_signed_part_of_a_reply_with_calls(server):
    # Through the loop, as a notebook runs it: thoughts, a signed text, a signed call and
    # the trailing signature all go back on their own parts in the round after.
    call = {"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}, "thoughtSignature": "Y2FsbA=="}
    streamed = [THOUGHT_SIGNED_1, THOUGHT, SIGNED_A, call, EMPTY_SIGNED]
    server.script(Turn(raw_frames=[*map(_chunk, streamed[:-1]), _chunk(EMPTY_SIGNED, finish="STOP")]), Turn(text="3."))
    run = await GEMINI.runtime(server).arun("Add 1 and 2.", tools=make_tools())
    assert server.rejections == [] and run.text == "3.", run.error
    assert server.requests[1].body["contents"][1]["parts"] == streamed
