"""``compact="provider"`` (issue 47, item 2): the provider's own compaction where it has
one — Anthropic's ``compact_20260112`` context-management edit under its beta, OpenAI
Responses' ``context_management`` — asked for at 0.8 of the window; what the provider
compacted to kept in the reply and sent back next round as the API takes it; a notice
saying what it did. Elsewhere (Chat Completions, Gemini, Bedrock) a one-line notice, and
the package's own compaction runs at that threshold. Asserted on what the loopback server
received from the real SDK clients."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models._provider_common import make_usage

from .cases import CASES
from .test_provider_compaction import Responder, _fetch, _is_summary_request, _texts

BY_PREFIX = {case.prefix: case for case in CASES}
SUMMARY = "The user asked to add numbers; add(1, 2) was called."
WINDOW = 100_000  # compact="provider" asks for compaction past 80,000 tokens


def adder() -> op.Tool:
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    return op.function(add, register_globally=False)


def notices(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


async def test_anthropic_asks_for_its_compaction_and_sends_the_block_back_as_it_came(server):
    case = BY_PREFIX["anthropic"]
    server.script(
        Turn(compaction=SUMMARY, calls=[Call("add", {"a": 1, "b": 2}, id="toolu_1")], input_tokens=2_345),
        Turn(text="3."),
    )
    run = await case.runtime(server).arun("Add 1 and 2.", tools=[adder()], compact="provider", context_window=WINDOW)
    assert run.stop_reason == "stop", run.error
    assert not server.rejections, server.rejections
    first, second = server.requests
    for sent in (first, second):
        assert sent.path == "/v1/messages?beta=true"
        assert sent.headers["anthropic-beta"] == "compact-2026-01-12"
        assert sent.body["context_management"] == {
            "edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 80_000}}]
        }
    assert second.body["messages"][1]["content"] == [
        {"type": "compaction", "content": SUMMARY, "encrypted_content": "enc-52", "signature": "sig-52"},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
    ]
    said = [n.removeprefix(f"{case.model}: ") for n in notices(run)]
    assert said == [
        "Anthropic compacted the conversation itself past 80,000 tokens, into a summary of 52 characters; "
        "the request then counted 2,345 input tokens"
    ]
    assert not run.compactions, "the provider compacted: the package did not"
    reply = run.messages[1].usage  # the compaction's own 900 + 120 tokens are in its total and cost, not its counts
    assert (reply.input, reply.output, reply.total_tokens) == (2_345, 7, 2_345 + 7 + 900 + 120)
    assert reply.cost == pytest.approx(make_usage(case.model, 2_345, 7).cost + make_usage(case.model, 900, 120).cost)
    assert reply.cost > make_usage(case.model, 2_345, 7).cost > 0
    assert "thinking" not in repr(run), "the kept block has nothing to show"


async def test_openai_responses_asks_for_its_compaction_and_sends_only_the_newest_item_on(server):
    case = BY_PREFIX["openai-responses"]
    server.script(
        Turn(compaction="enc-summary-1", calls=[Call("add", {"a": 1, "b": 2}, id="call_1")], input_tokens=1_234),
        Turn(calls=[Call("add", {"a": 3, "b": 4}, id="call_2")]),
        Turn(text="3 and 7."),
    )
    run = await case.runtime(server).arun(
        "Add 1 and 2, then 3 and 4.", tools=[adder()], compact="provider", context_window=WINDOW
    )
    assert run.stop_reason == "stop", run.error
    assert not server.rejections, server.rejections
    first, second, third = (r.body for r in server.requests)
    for body in (first, second, third):
        assert body["context_management"] == [{"type": "compaction", "compact_threshold": 80_000}]
    assert first["input"][0]["role"] == "user"
    compaction = second["input"][0]
    assert compaction == {"type": "compaction", "id": compaction["id"], "encrypted_content": "enc-summary-1"}
    assert [item.get("type") for item in second["input"]] == ["compaction", "function_call", "function_call_output"]
    assert "Add 1 and 2" not in str(second["input"]), "the compaction item stands for what came before it"
    assert third["input"][0] == compaction and len(third["input"]) == 5
    said = [n.removeprefix(f"{case.model}: ") for n in notices(run)]
    assert said == [
        "OpenAI Responses compacted the conversation itself past 80,000 tokens, into an encrypted summary; "
        "the request then counted 1,234 input tokens"
    ]


@pytest.mark.parametrize("prefix", ["anthropic", "openai-responses"])
async def test_a_number_for_compact_asks_the_provider_for_nothing(prefix, server):
    case = BY_PREFIX[prefix]
    server.script(Turn(compaction=SUMMARY, text="Hi."))
    run = await case.runtime(server).arun("Hi.", compact=0.8, context_window=WINDOW)
    assert run.stop_reason == "stop", run.error
    sent = server.requests[0]
    assert "context_management" not in sent.body and "anthropic-beta" not in sent.headers
    assert sent.path in ("/v1/messages", "/v1/responses")
    assert notices(run) == []


WITHOUT_COMPACTION = ["openai", "gemini", "bedrock"]


@pytest.mark.parametrize("prefix", WITHOUT_COMPACTION)
def test_a_provider_without_compaction_says_so_and_the_package_compacts(prefix, server):
    case = BY_PREFIX[prefix]
    responder = Responder(8)
    server.responder = responder
    run = case.runtime(server).run(
        "Read the pages.",
        tools=[_fetch()],
        compact="provider",
        context_window=5_000,  # the package compacts past 4,000 tokens
        keep_last=2,
        max_iterations=None,
    )
    assert run.stop_reason == "stop", run.error
    assert not server.rejections, server.rejections
    assert run.compactions and responder.summaries == len(run.compactions)
    assert all(c.threshold == 4_000 for c in run.compactions)
    agent_bodies = [body for body in server.bodies() if not _is_summary_request(body)]
    assert all("context_management" not in body for body in server.bodies())
    assert "[Summary of " in _texts(agent_bodies[-1])
    said = [n.removeprefix(f"{case.model}: ") for n in notices(run)]
    assert said == [
        f"{case.model} has no compaction of its own: the package's compaction runs instead, past 4,000 tokens "
        "(compact='provider' asked)"
    ]


def test_compact_provider_is_taken_as_a_keyword_and_a_flag():
    from openprogram_jupyter.engine._compact_checks import fraction_or_tokens

    assert fraction_or_tokens("provider") == "provider"
    runtime = op.Runtime(model=op.ScriptedModel(["ok"]), compact="provider")
    run = runtime.run("go", context_window=10_000)
    assert run.stop_reason == "stop", run.error
    assert notices(run) == [
        "scripted has no compaction of its own: the package's compaction runs instead, past 8,000 tokens "
        "(compact='provider' asked)"
    ]


def _anthropic_compacting(server) -> None:
    server.script(
        Turn(compaction=SUMMARY, calls=[Call("add", {"a": 1, "b": 2}, id="toolu_1")], input_tokens=2_345),
        Turn(text="3."),
    )


@pytest.mark.parametrize("prefix", ["anthropic", "openai-responses"])
def test_each_round_of_a_provider_compacted_run_rebuilds_and_replays_as_the_body_it_sent(prefix, server, tmp_path):
    case = BY_PREFIX[prefix]
    server.script(Turn(compaction=SUMMARY, calls=[Call("add", {"a": 1, "b": 2}, id="call_1")]), Turn(text="3."))
    cassette = tmp_path / "compacted.json"
    options = {"tools": [adder()], "compact": "provider", "context_window": WINDOW}
    live = case.runtime(server, record=cassette, capture_wire=True).run("Add 1 and 2.", **options)
    assert live.stop_reason == "stop", live.error
    received = server.bodies()
    assert all("context_management" in body for body in received), "recording keeps the provider's compaction"
    if prefix == "anthropic":  # the wire view's folded reply holds the block as the stream set it
        assert live.wire(1)[1]["final"]["content"][0] == {
            "type": "compaction",
            "content": SUMMARY,
            "encrypted_content": "enc-52",
            "signature": "sig-52",
        }
    assert [live.request_as(n, case.model) for n in (1, 2)] == received
    replayed = op.Runtime(model=f"replay:{cassette}", capture_wire=True).run("Add 1 and 2.", **options)
    assert replayed.stop_reason == "stop", replayed.error
    assert notices(replayed) == [], "a replay of the provider's compaction is not the package's fallback"
    assert len(server.bodies()) == 2, "a replay sends nothing"
    assert [replayed.wire(n)[0] for n in (1, 2)] == received


def test_the_provider_s_compaction_shows_in_the_transcripts_as_one_line(server, tmp_path):
    _anthropic_compacting(server)
    run = (
        BY_PREFIX["anthropic"]
        .runtime(server)
        .run("Add 1 and 2.", tools=[adder()], compact="provider", context_window=WINDOW)
    )
    line = "Anthropic compacted the conversation itself past 80,000 tokens, into a summary of 52 characters"
    for suffix in (".html", ".md", ".txt"):
        path = tmp_path / f"run{suffix}"
        run.save(path)
        assert path.read_text().count(line) == 1, suffix
    assert SUMMARY not in repr(run), "the summary is the provider's, sent back, not shown as the reply's text"


@pytest.mark.parametrize("prefix", ["anthropic", "openai-responses"])
def test_a_fork_after_the_provider_compacted_sends_the_same_request(prefix, server):
    case = BY_PREFIX[prefix]
    server.script(Turn(compaction=SUMMARY, calls=[Call("add", {"a": 1, "b": 2}, id="call_1")]), Turn(text="3."))
    run = case.runtime(server).run("Add 1 and 2.", tools=[adder()], compact="provider", context_window=WINDOW)
    assert run.stop_reason == "stop", run.error
    second = server.bodies()[1]
    assert "compaction" in str(second["messages" if prefix == "anthropic" else "input"])
    server.requests.clear()
    server.script(Turn(text="3."))
    fork = run.fork(2, tools=[adder()])
    assert fork.stop_reason == "stop", fork.error
    assert server.bodies() == [second]


async def test_anthropic_is_asked_for_no_lower_trigger_than_it_takes_and_says_so(server):
    case = BY_PREFIX["anthropic"]
    server.script(Turn(text="Hi."))
    run = await case.runtime(server).arun("Hi.", compact="provider", context_window=20_000)
    assert run.stop_reason == "stop", run.error
    assert not server.rejections, server.rejections
    edit = server.requests[0].body["context_management"]["edits"][0]
    assert edit["trigger"] == {"type": "input_tokens", "value": 50_000}
    said = [n.removeprefix(f"{case.model}: ") for n in notices(run)]
    assert said == [
        "Anthropic compacts past no fewer than 50,000 input tokens: its compaction was asked for past 50,000, "
        "not 16,000"
    ]
