"""Compaction (issue 47, item 2): older rounds replaced by a summary the model writes
before a request would cross ``compact``; pins and the last ``keep_last`` rounds kept; a
call never parted from its result; repeated compaction losing no pin; forks and reruns
replaying the same compaction; the item every transcript shows."""

from __future__ import annotations

import dataclasses

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from openprogram_jupyter.engine._compaction import SUMMARY_SYSTEM, groups, to_replace

RESULT = "r" * 4000  # about 1,000 tokens a round


class LongModel(op.Model):
    """Calls ``fetch`` every round until ``rounds`` replies, then answers; a summary
    request (the compaction's system prompt) is answered ``summary N``. Keeps every
    request it was sent."""

    name = "long"
    context_window = 8_000

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.requests: list[op.ModelRequest] = []
        self.replies = 0
        self.summaries = 0

    async def stream(self, request, out):
        self.requests.append(dataclasses.replace(request, messages=list(request.messages)))  # as it was sent
        if request.system == SUMMARY_SYSTEM:
            self.summaries += 1
            yield out.text_delta(f"summary {self.summaries}")
        elif self.replies < self.rounds:
            self.replies += 1
            for update in out.tool_call("fetch", {"n": self.replies}, id=f"call_{self.replies}"):
                yield update
        else:
            yield out.text_delta("done")
        out.finish()


def _fetch(pin_round: int | None = None):
    @op.function(register_globally=False)
    def fetch(n: int) -> object:
        """Fetch page n."""
        text = f"page {n}: {RESULT}"
        return op.pin(text) if n == pin_round else text

    return fetch


def _texts(request: op.ModelRequest) -> list[str]:
    return [message.text for message in request.messages]


def _agent_requests(model: LongModel) -> list[op.ModelRequest]:
    return [request for request in model.requests if request.system != SUMMARY_SYSTEM]


def _paired(request: op.ModelRequest) -> bool:
    """Every call of the request has its result right after its reply, and every result its call."""
    for span in groups(request.messages):
        first = request.messages[span.start]
        if isinstance(first, ToolResultMessage):
            return False
        if isinstance(first, AssistantMessage):
            calls = [call.id for call in first.tool_calls]
            if [request.messages[i].tool_call_id for i in span[1:]] != calls:
                return False
    return True


def test_compaction_keeps_the_pinned_message_and_the_last_rounds_and_fits_the_window():
    model = LongModel(rounds=20)
    pinned = op.pin(UserMessage(content="PINNED: answer in French"))
    run = op.Runtime(model=model).run(
        "Read the pages.", tools=[_fetch()], messages=[pinned], compact=0.5, keep_last=3, max_iterations=None
    )
    assert run.stop_reason == "stop", run.error
    assert run.compactions, "no compaction ran"
    for request in _agent_requests(model):
        assert "PINNED: answer in French" in _texts(request)
        assert _paired(request)
    last = _agent_requests(model)[-1]
    assert any(text.startswith("[Summary of ") for text in _texts(last))
    # the last three groups are the last rounds as they were: replies and results verbatim
    assert last.messages[-1].text == f"page 20: {RESULT}"
    assert last.messages[-3].text == f"page 19: {RESULT}"
    assert len(run.messages) == 1 + 2 * 20 + 1  # the run's record keeps everything
    summaries = [request for request in model.requests if request.system == SUMMARY_SYSTEM]
    assert len(summaries) == len(run.compactions) and not summaries[0].tools


def test_no_request_crosses_the_window_over_a_long_run():
    model = LongModel(rounds=60)
    run = op.Runtime(model=model).run("Read.", tools=[_fetch()], compact=0.6, keep_last=2, max_iterations=None)
    assert run.stop_reason == "stop", run.error
    from openprogram_jupyter.engine._context import request_tokens

    sizes = [request_tokens(request) for request in _agent_requests(model)]
    assert max(sizes) <= 8_000 and len(run.compactions) >= 3


def test_repeated_compaction_keeps_a_pin_and_summarises_the_earlier_summary():
    model = LongModel(rounds=24)
    run = op.Runtime(model=model).run(
        "Read.", tools=[_fetch(pin_round=2)], compact=0.5, keep_last=2, max_iterations=None
    )
    assert len(run.compactions) >= 2
    after_pin = _agent_requests(model)[2:]
    assert all(f"page 2: {RESULT}" in _texts(request) for request in after_pin)
    second_summary_request = [request for request in model.requests if request.system == SUMMARY_SYSTEM][1]
    assert "summary 1" in second_summary_request.messages[0].text  # the earlier summary, summarised again
    assert [m for m in run.tool_results if m.pinned] == [run.tool_results[1]]


def test_what_cannot_be_replaced_is_said_and_nothing_is_dropped():
    assert to_replace([UserMessage(content="a"), UserMessage(content="b")], keep_last=2) == []
    pinned = op.pin(UserMessage(content="a"))
    assert to_replace([pinned, UserMessage(content="b"), UserMessage(content="c")], keep_last=1) == [1]


def test_compaction_costs_are_in_the_run_usage_and_its_record():
    model = LongModel(rounds=12)
    run = op.Runtime(model=model).run("Read.", tools=[_fetch()], compact=0.5, keep_last=2, max_iterations=None)
    [first, *_] = run.compactions
    assert first.summary.text == "summary 1" and first.tokens_after < first.tokens_before
    assert first.dropped_lines[0] == "user: Read."
    replies = sum(
        (e.message.usage.output for e in run.events if e.type == "message_end" and e.message.role == "assistant"),
        0,
    )
    assert run.usage.output == replies + sum(c.summary.usage.output for c in run.compactions)


def test_every_transcript_shows_what_was_compacted():
    model = LongModel(rounds=12)
    run = op.Runtime(model=model).run("Read.", tools=[_fetch()], compact=0.5, keep_last=2, max_iterations=None)
    count = len(run.compactions[0].dropped)
    html, markdown, plain = run._repr_html_(), run._repr_markdown_(), repr(run)
    from openprogram_jupyter.render.plain import render_plain

    plain = render_plain(run)
    for text in (html, markdown, plain):
        assert f"compacted: {count} messages" in text
        assert "summary 1" in text and "user: Read." in text
    assert "compacting older rounds" not in plain  # the notice became the record


def test_a_fork_of_a_compacted_run_sends_the_same_requests():
    model = LongModel(rounds=12)
    runtime = op.Runtime(model=model)
    run = runtime.run("Read.", tools=[_fetch()], compact=0.5, keep_last=2, max_iterations=None)
    compacted_round = run.compactions[-1].round
    original = _agent_requests(model)
    model.requests.clear()
    model.replies = compacted_round - 1  # the live rounds go on where the original did
    fork = run.fork(compacted_round, tools=[_fetch()])
    assert fork.stop_reason == "stop", fork.error
    assert model.summaries == len(run.compactions)  # no new summary was asked for
    forked = [request for request in model.requests if request.system != SUMMARY_SYSTEM]
    assert [_texts(r) for r in forked] == [_texts(r) for r in original[compacted_round - 1 :]]


def test_a_rerun_of_a_compacted_run_replays_its_compactions():
    model = LongModel(rounds=10)
    runtime = op.Runtime(model=model)
    run = runtime.run("Read.", tools=[_fetch()], compact=0.5, keep_last=2, max_iterations=None)
    summaries = model.summaries
    again = run.rerun(tools=[_fetch()])
    assert again.stop_reason == "stop" and again.divergence is None
    assert model.summaries == summaries
    assert [c.dropped for c in again.compactions] == [c.dropped for c in run.compactions]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("server", "compact must be a fraction of the context window .* 'provider', or None, got 'server'"),
        (1.5, "compact must be a fraction of the context window above 0 and at most 1"),
        (10, "a token count of at least 1,000"),
        (True, "compact must be"),
    ],
)
def test_bad_compact_values_are_refused_naming_them(value, message):
    with pytest.raises(op.SetupError, match=message):
        op.Runtime(model=op.ScriptedModel(["ok"])).run("go", compact=value)


def test_a_reply_cannot_be_pinned_alone():
    with pytest.raises(TypeError, match="pin the result of its call"):
        op.pin(AssistantMessage())
