"""What each round sends the model: the run's settings reach every request as given, the
first round's forced tool choice then ``"auto"``, and a budget's output cap counts the
latest reply's whole input (docs/semantics.md, "Limits")."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .conftest import call


def echo_tool():
    @op.function
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return echo


def two_rounds(**settings) -> op.ScriptedModel:
    """A model asked two rounds: one call of ``echo``, then an answer."""
    model = op.ScriptedModel([call("echo", text="hi"), "done"])
    op.Runtime(model=model).run("Echo hi.", tools=[echo_tool()], **settings)
    return model


def test_a_forced_tool_choice_holds_for_the_first_round_only():
    model = two_rounds(tool_choice="required")
    assert [r.tool_choice for r in model.requests] == ["required", "auto"]


def test_tool_choice_none_holds_for_every_round():
    model = two_rounds(tool_choice="none")
    assert [r.tool_choice for r in model.requests] == ["none", "none"]


def test_the_run_settings_reach_every_request():
    model = two_rounds(
        system="Be brief.",
        parallel_tool_calls=False,
        prompt_cache=False,
        reasoning="high",
        temperature=0.25,
        stop_sequences=["END"],
        allowed_tools=["echo"],
    )
    for request in model.requests:
        assert request.system == "Be brief."
        assert request.parallel_tool_calls is False
        assert request.prompt_cache is False
        assert request.reasoning == "high"
        assert request.temperature == 0.25
        assert list(request.stop_sequences) == ["END"]
        assert list(request.allowed_tools or ()) == ["echo"]
        assert request.menu_explicit is True
        assert request.deferred_tools == []


def test_strict_tools_asks_strict_mode_of_every_tool_and_plain_tools_do_not():
    strict = two_rounds(strict_tools=True)
    plain = two_rounds()
    assert [t["name"] for t in strict.requests[0].tools] == ["echo"]
    assert all(t.get("strict") is True for r in strict.requests for t in r.tools)
    assert not any("strict" in t for r in plain.requests for t in r.tools)


def test_the_answer_round_at_a_limit_keeps_the_run_s_system_prompt_and_adds_why():
    model = op.ScriptedModel([call("echo", text="a"), call("echo", text="b"), "answer"])
    op.Runtime(model=model).run("Echo.", tools=[echo_tool()], system="Be brief.", max_iterations=2)
    last = model.requests[-1]
    assert last.tool_choice == "none"
    assert last.system.startswith("Be brief.") and "Do not call any tool" in last.system


def test_a_token_budget_caps_the_next_reply_by_the_latest_reply_s_whole_input():
    usage = op.Usage(input=100, cache_read=200, cache_write=300, output=50, total_tokens=650)
    first = op.AssistantMessage(content=[call("echo", text="hi")], usage=usage)
    model = op.ScriptedModel([first, "done"])
    op.Runtime(model=model).run("Echo hi.", tools=[echo_tool()], max_tokens=10_000)
    # 10,000 - 650 spent - 600 the next request's input at least (100 + 200 cached + 300 written)
    assert [r.max_output_tokens for r in model.requests] == [10_000, 8_750]


def deferred_tools():
    def weather(city: str) -> str:
        """The weather in a city."""
        return "sun"

    return [echo_tool(), op.function(weather, register_globally=False, defer=True)]


def test_the_provider_s_tool_search_is_sent_the_deferred_tools_and_no_other_setting_is():
    searched = op.ScriptedModel(["done"])
    op.Runtime(model=searched).run("Hi.", tools=deferred_tools(), tool_search="provider", strict_tools=True)
    loose = op.ScriptedModel(["done"])
    op.Runtime(model=loose).run("Hi.", tools=deferred_tools(), tool_search="provider")
    plain = op.ScriptedModel(["done"])
    op.Runtime(model=plain).run("Hi.", tools=deferred_tools())
    assert [(t["name"], t.get("strict")) for t in searched.requests[0].deferred_tools] == [("weather", True)]
    assert [(t["name"], t.get("strict")) for t in loose.requests[0].deferred_tools] == [("weather", None)]
    assert plain.requests[0].deferred_tools == []


def test_compact_provider_on_a_model_without_its_own_says_so_once_in_the_first_reply():
    model = op.ScriptedModel([call("echo", text="hi"), "done"])
    run = op.Runtime(model=model).run("Echo hi.", tools=[echo_tool()], compact="provider", context_window=100_000)
    replies = [m for m in run.messages if isinstance(m, op.AssistantMessage)]
    notices = [
        (e.message, e.update.delta)
        for e in run.events
        if e.type == "message_update" and e.update is not None and e.update.kind == "notice"
    ]
    assert notices == [
        (
            replies[0],
            "scripted has no compaction of its own: the package's compaction runs instead, "
            "past 80,000 tokens (compact='provider' asked)",
        )
    ]
    assert [r.model for r in replies] == ["scripted", "scripted"]


def test_a_request_past_the_context_window_is_not_sent_and_fails_the_reply_naming_the_model():
    model = op.ScriptedModel(["never"])
    run = op.Runtime(model=model).run("Hi " * 400, context_window=100)
    reply = run.messages[-1]
    assert model.requests == [] and run.stop_reason == "error"
    assert isinstance(reply, op.AssistantMessage) and reply.error is not None
    assert reply.error.kind == "context_length"
    assert reply.error_message.startswith(
        "scripted: the next request would carry about 300 tokens, more than scripted's context window of 100"
    )


def test_each_streamed_piece_of_the_reply_is_shown_as_it_comes_as_an_update_of_that_reply():
    run = op.Runtime(model=op.ScriptedModel(["a longer text reply"])).run("Hi.")
    updates = [e for e in run.events if e.type == "message_update"]
    assert [e.update.delta for e in updates] == ["a ", "longer ", "text ", "reply"]
    assert all(e.message is run.messages[-1] for e in updates)


def test_calls_sharing_an_id_are_renamed_apart_and_the_reply_says_exactly_which():
    first = op.AssistantMessage(
        content=[op.ToolCall(name="echo", arguments={"text": t}, id="dup") for t in ("a", "b", "c")]
    )
    run = op.Runtime(model=op.ScriptedModel([first, "done"])).run("Echo.", tools=[echo_tool()])
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    assert notices == [
        "the model gave two or more calls the same id; renamed to keep them apart: dup -> dup_2, dup -> dup_3"
    ]


class SelfCompactingModel(op.ScriptedModel):
    """A scripted model that compacts the conversation itself, as some providers do."""

    native_compaction = True


def test_a_model_that_compacts_itself_is_sent_the_threshold_and_one_without_is_not():
    own = SelfCompactingModel(["done"])
    op.Runtime(model=own).run("Hi.", compact="provider", context_window=100_000)
    other = op.ScriptedModel(["done"])
    op.Runtime(model=other).run("Hi.", compact="provider", context_window=100_000)
    assert own.requests[0].provider_compaction == 80_000
    assert other.requests[0].provider_compaction is None


def test_a_captured_run_records_each_round_s_request_under_its_number():
    model = op.ScriptedModel([call("echo", text="hi"), "done"])
    run = op.Runtime(model=model, capture_wire=True).run("Echo hi.", tools=[echo_tool()])
    assert [len(run.request_as(n, "anthropic")["messages"]) for n in (1, 2)] == [1, 3]
    with pytest.raises(ValueError, match="round 3 was not captured; the captured rounds are 1 to 2"):
        run.request_as(3, "anthropic")
