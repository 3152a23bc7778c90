"""The wire-level fuzzer: what the loopback server sends for OpenAI Chat, Responses and
Anthropic is damaged (:mod:`.damage`), or is an HTTP error with a random body, and the real
SDK client reads it. Whatever arrives, the run keeps the invariants of every run
(:func:`.conftest.check_run`), and a run that ends in an error has a typed
:class:`~openprogram_jupyter.core.errors.ProviderError` as ``run.error``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakeserver import Call, FakeServer, Turn
from fakeserver.wire import Reject
from hypothesis import event, example, given
from hypothesis import strategies as st
from providers.cases import CASES

import openprogram_jupyter as op
from openprogram_jupyter.core.errors import ProviderError

from .conftest import PLANTED, check_run, counted, fuzz_settings
from .damage import damaged, damages
from .strategies import arguments, json_like, texts

FUZZED = [case for case in CASES if case.prefix in ("openai", "openai-responses", "anthropic")]
turns = st.builds(
    lambda text, calls: Turn(text=text, calls=[Call("echo", args) for args in calls]),
    texts,
    st.lists(st.one_of(arguments, st.builds(lambda t: {"text": t}, texts)), max_size=2),
)
statuses = st.sampled_from([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529, 418, 302])
bodies = st.one_of(
    json_like,
    st.fixed_dictionaries({"error": json_like}),
    st.fixed_dictionaries({"error": st.fixed_dictionaries({"message": json_like, "type": json_like})}),
)
retry_after = st.sampled_from([None, "0", "0.01", "junk", "-5", "Wed, 21 Oct 2015 07:28:00 GMT", "nan", "1e400"])
failures = st.one_of(
    st.tuples(st.just("stream"), damages), st.tuples(st.just("http"), st.tuples(statuses, bodies, retry_after))
)


@op.function(register_globally=False)
def echo(text: str = "") -> str:
    """Echo the text."""
    return text


@pytest.fixture(scope="module")
def server():
    with FakeServer() as fake:
        yield fake


def _answer(server: FakeServer, prefix: str, turn: Turn, failure: tuple[str, Any]) -> None:
    """Answer the run's first request with ``turn`` damaged as ``failure`` says, and every
    later one (a retry, the round after the calls) with a plain text."""
    wire = server.wires[prefix]
    first = [True]

    def respond(recorded: Any, _wire: Any) -> Turn:
        if not first[0]:
            return Turn(text="done")
        first[0] = False
        if failure[0] == "http":
            return Turn(status=500)  # answered by the http_error set below
        return Turn(raw_frames=damaged(wire.frames(turn, recorded.body, server.new_id), failure[1]), cut_after=None)

    server.turns.clear()
    server.responder = respond
    if failure[0] == "http":
        status, body, wait = failure[1]
        headers = {} if wait is None else {"retry-after": wait}
        wire.http_error = lambda _status, _message: Reject(status, body, headers)  # type: ignore[method-assign]
    else:
        vars(wire).pop("http_error", None)


@fuzz_settings(short_examples=30)
@pytest.mark.parametrize("case", FUZZED, ids=[c.prefix for c in FUZZED])
@given(turn=turns, failure=failures)
@example(turn=Turn(calls=[Call("echo", {"text": "x\ud83dy"})]), failure=("stream", [("duplicate", 3, 0)])).via(
    "a lone surrogate in a tool call's arguments"
)
@example(turn=Turn(text=PLANTED), failure=("http", (400, {"error": {"message": PLANTED}}, None))).via(
    "the key in an error body"
)
def test_a_damaged_stream_or_an_error_reply_ends_the_run_soundly(server, case, turn, failure):
    counted(f"wire:{case.prefix}")
    _answer(server, case.prefix, turn, failure)
    run = case.runtime(server).run("go", tools=[echo])
    event(f"{failure[0]}: {run.stop_reason}, {run.error.kind if isinstance(run.error, ProviderError) else ''}")
    check_run(run)
    if run.stop_reason == "error":
        assert isinstance(run.error, ProviderError), run.error
        json.dumps(run.error.message)
