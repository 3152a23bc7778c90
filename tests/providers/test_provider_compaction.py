"""Compaction on the wire (issue 47, item 2), with the real SDK clients of all five
providers against the loopback server: the summary request each provider accepts (no
tools, nothing else of the run), the requests after a compaction carrying the summary, the
pins and the last rounds verbatim, a repeated compaction keeping an earlier pin, and a
cassette replay and a fork of a compacted run making the same requests."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES

PAGE = "p" * 4_000  # about 1,000 tokens a result
PINNED_NOTE = "PINNED: every figure in metres"
COMPACT = 4_000  # tokens: a compaction every few rounds
ROUNDS = 12


def _is_summary_request(body: dict[str, Any]) -> bool:
    """The compaction's request is the only one sent without tools (Bedrock: toolConfig)."""
    return "tools" not in body and "toolConfig" not in body


class Responder:
    """Answers the loopback server: a summary request with ``summary N``, any other with a
    call of ``fetch(n)`` for ``n`` = 1 .. ``rounds`` (id ``call_n``), then ``done``. Each
    reply says it read about a quarter of the body's characters as tokens, so the run's
    size estimate follows the real request."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.replies = 0
        self.summaries = 0

    def __call__(self, recorded: Any, _wire: Any) -> Turn:
        tokens = len(json.dumps(recorded.body)) // 4
        if _is_summary_request(recorded.body):
            self.summaries += 1
            return Turn(text=f"summary {self.summaries}", input_tokens=tokens)
        if self.replies < self.rounds:
            self.replies += 1
            return Turn(calls=[Call("fetch", {"n": self.replies}, id=f"call_{self.replies}")], input_tokens=tokens)
        return Turn(text="done", input_tokens=tokens)


def _fetch(pin_page: int | None = None) -> op.Tool:
    def fetch(n: int) -> object:
        """Fetch page n."""
        text = f"page {n}: {PAGE}"
        return op.pin(text) if n == pin_page else text

    return op.function(fetch, register_globally=False)


def _texts(body: dict[str, Any]) -> str:
    """Every string of ``body`` joined, wherever its provider puts messages and results."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(body.get("messages") or body.get("input") or body.get("contents"))
    return "\n".join(found)


def _agent_bodies(server: Any) -> list[dict[str, Any]]:
    return [body for body in server.bodies() if not _is_summary_request(body)]


def _compacted_run(case, server, **options: Any) -> tuple[op.Run, Responder]:
    responder = Responder(ROUNDS)
    server.responder = responder
    pinned = op.pin(op.UserMessage(content=PINNED_NOTE))
    run = case.runtime(server, **options.pop("runtime", {})).run(
        "Read the pages.",
        tools=[_fetch(options.pop("pin_page", None))],
        messages=[pinned],
        compact=COMPACT,
        keep_last=2,
        max_iterations=None,
        **options,
    )
    assert run.stop_reason == "stop", run.error
    assert not server.rejections, server.rejections
    return run, responder


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_each_provider_takes_the_summary_request_and_the_compacted_requests(case, server):
    run, responder = _compacted_run(case, server)
    assert len(run.compactions) >= 2 and responder.summaries == len(run.compactions)
    summaries = [body for body in server.bodies() if _is_summary_request(body)]
    for body in summaries:  # nothing of the run's tools, the summary's own instructions
        assert "tool_choice" not in body and "toolChoice" not in json.dumps(body)
        assert "Summarise these" in _texts(body)
    after = _agent_bodies(server)[run.compactions[0].round - 1 :]
    for body in after:
        texts = _texts(body)
        assert PINNED_NOTE in texts
        assert "[Summary of " in texts
    last = _texts(_agent_bodies(server)[-1])
    assert f"page {ROUNDS}: {PAGE}" in last and f"page {ROUNDS - 1}: {PAGE}" in last  # the last rounds verbatim
    assert f"page 1: {PAGE}" not in last  # an old round is in the summary only
    assert f"summary {len(run.compactions)}" in last


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_repeated_compaction_keeps_a_result_pinned_before_the_first(case, server):
    run, _responder = _compacted_run(case, server, pin_page=2)
    assert len(run.compactions) >= 2
    for body in _agent_bodies(server)[2:]:  # from the request that first carried page 2's result
        assert f"page 2: {PAGE}" in _texts(body)
    later = [body for body in server.bodies() if _is_summary_request(body)][1:]
    assert later and "summary 1" in _texts(later[0])  # the earlier summary summarised again
    assert all(f"page 2: {PAGE}" not in _texts(body) for body in later)  # a pinned result is not summarised


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_replayed_compacted_run_rebuilds_the_requests_the_provider_received(case, server, tmp_path):
    cassette = tmp_path / "compacted.json"
    live, responder = _compacted_run(case, server, runtime={"record": cassette, "capture_wire": True})
    received = _agent_bodies(server)
    assert live.compactions
    summaries = responder.summaries
    replayed = op.Runtime(model=f"replay:{cassette}", capture_wire=True).run(
        "Read the pages.",
        tools=[_fetch()],
        messages=[op.pin(op.UserMessage(content=PINNED_NOTE))],
        compact=COMPACT,
        keep_last=2,
        max_iterations=None,
    )
    assert replayed.stop_reason == "stop", replayed.error
    assert responder.summaries == summaries and len(server.bodies()) == len(received) + summaries  # nothing sent
    assert [c.summary.text for c in replayed.compactions] == [c.summary.text for c in live.compactions]
    assert [c.dropped for c in replayed.compactions] == [c.dropped for c in live.compactions]
    assert [replayed.wire(n)[0] for n in range(1, len(received) + 1)] == received


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_fork_of_a_compacted_run_sends_the_same_requests(case, server):
    run, responder = _compacted_run(case, server)
    original = _agent_bodies(server)
    fork_round = run.compactions[-1].round
    server.requests.clear()
    summaries = responder.summaries
    responder.replies = fork_round - 1  # the live rounds go on where the original did
    fork = run.fork(fork_round, tools=[_fetch()])
    assert fork.stop_reason == "stop", fork.error
    assert responder.summaries == summaries  # the recorded compactions applied, none asked again
    assert not any(_is_summary_request(body) for body in server.bodies())
    assert server.bodies() == original[fork_round - 1 :]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_every_round_of_a_compacted_run_rebuilds_as_the_body_it_sent(case, server):
    run, _responder = _compacted_run(case, server, runtime={"capture_wire": True})
    received = _agent_bodies(server)
    assert run.compactions and len(received) == ROUNDS + 1
    assert [run.request_as(n, case.model) for n in range(1, ROUNDS + 2)] == received  # before and after each
