"""docs/semantics.md §5: every run emits its events in one documented order."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.core.events import EVENT_TYPES

from .conftest import call


def test_event_sequence_for_one_tool_round_then_text():
    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    seen = []
    model = op.ScriptedModel([call("add", a=1, b=2), "3"])
    run = op.Runtime(model=model).run("go", tools=[add], on_event=seen.append)
    compact = [e.type for e in run.events if e.type != "message_update"]
    assert compact == [
        "agent_start",
        "message_start",
        "message_end",  # the prompt
        "turn_start",
        "message_start",
        "message_end",  # the reply with the call
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",  # the tool result
        "turn_end",
        "turn_start",
        "message_start",
        "message_end",  # the final text
        "turn_end",
        "agent_end",
    ]
    assert seen == run.events
    assert {e.type for e in run.events} <= set(EVENT_TYPES)
    assert all(e.run_id == run.run_id and e.depth == 0 and e.parent_tool_call_id is None for e in run.events)


def test_message_updates_stream_text_and_tool_call_pieces():
    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    model = op.ScriptedModel([[op.ToolCall(name="add", arguments={"a": 1, "b": 2})], "one two three"])
    run = op.Runtime(model=model).run("go", tools=[add])
    kinds = [e.update.kind for e in run.events if e.type == "message_update"]
    assert kinds == ["toolcall_start", "toolcall_delta", "toolcall_end", "text_delta", "text_delta", "text_delta"]
    deltas = "".join(e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "text_delta")
    assert deltas == "one two three"


def test_agent_end_carries_the_runs_new_messages():
    model = op.ScriptedModel(["hello"])
    run = op.Runtime(model=model).run("go")
    end = run.events[-1]
    assert end.type == "agent_end" and end.stop_reason == "stop"
    assert [m.role for m in end.messages] == ["user", "assistant"]


def test_turn_end_lists_the_rounds_tool_results():
    @op.function
    def ping() -> str:
        """Ping."""
        return "pong"

    model = op.ScriptedModel([[call("ping"), call("ping")], "done"])
    run = op.Runtime(model=model).run("go", tools=[ping])
    first_turn_end = next(e for e in run.events if e.type == "turn_end")
    assert [r.text for r in first_turn_end.tool_results] == ["pong", "pong"]


def test_a_raising_on_event_watcher_does_not_break_the_run():
    def broken(event):
        raise RuntimeError("watcher bug")

    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = op.Runtime(model=op.ScriptedModel(["fine"])).run("go", on_event=broken)
    assert run.text == "fine"
    assert len([w for w in caught if "watcher bug" in str(w.message)]) == 1


def test_usage_is_summed_over_rounds():
    usage = op.Usage(input=10, output=5, total_tokens=15, cost=0.5)
    model = op.ScriptedModel(
        [
            op.AssistantMessage(content=[op.ToolCall(name="noop", arguments={})], usage=usage),
            op.AssistantMessage(content=[op.TextContent(text="ok")], usage=usage),
        ]
    )

    @op.function
    def noop() -> str:
        """Nothing."""
        return ""

    run = op.Runtime(model=model).run("go", tools=[noop])
    assert (run.usage.input, run.usage.output, run.usage.total_tokens, run.usage.cost) == (20, 10, 30, 1.0)


def test_unknown_price_in_any_round_makes_cost_none():
    model = op.ScriptedModel(
        [
            op.AssistantMessage(content=[op.ToolCall(name="noop", arguments={})], usage=op.Usage(input=1, cost=0.1)),
            op.AssistantMessage(content=[op.TextContent(text="ok")], usage=op.Usage(input=1, cost=None)),
        ]
    )

    @op.function
    def noop() -> str:
        """Nothing."""
        return ""

    assert op.Runtime(model=model).run("go", tools=[noop]).usage.cost is None
