"""run.fork(round=N): the rounds before N are replayed from the record — no model request,
no tool run — and the run goes on live from round N with the changes."""

from __future__ import annotations

import pickle

import pytest

import openprogram_jupyter as op

from .conftest import call

CALLS: list[tuple[float, float]] = []


def make_add(description: str = "Add two numbers."):
    def add(a: float, b: float) -> float:
        CALLS.append((a, b))
        return a + b

    add.__doc__ = description
    return op.function(add)


@pytest.fixture
def original():
    """A four-round run: three additions, then the answer."""
    CALLS.clear()
    make_add()
    model = op.ScriptedModel([call("add", a=1, b=2), call("add", a=3, b=3), call("add", a=6, b=4), "Ten."])
    run = op.Runtime(model=model).run("Add 1, 2, 3 and 4.")
    assert run.rounds == 4 and len(CALLS) == 3
    CALLS.clear()
    return run, model


def test_rounds_before_the_fork_make_no_model_request_and_run_no_tool(original):
    run, model = original
    live = op.ScriptedModel([call("add", a=6, b=40), "Forty-six."])
    forked = run.fork(3, model=live)
    assert len(model.requests) == 4  # the original model was not asked again
    assert len(live.requests) == 2  # round 3 and round 4 only
    assert CALLS == [(6.0, 40.0)]  # only round 3's call ran
    sent = live.requests[0].messages
    assert [m.role for m in sent] == ["user", "assistant", "toolResult", "assistant", "toolResult"]
    assert [r.content[0].text for r in sent if r.role == "toolResult"] == ["3.0", "6.0"]  # the recorded results
    assert forked.rounds == 4 and forked.text == "Forty-six."


def test_the_replayed_rounds_say_so_and_cost_nothing(original):
    run, _ = original
    forked = run.fork(3, model=op.ScriptedModel([call("add", a=6, b=4), "Ten."]))
    notices = [e for e in forked.events if e.type == "message_update" and e.update.kind == "notice"]
    assert len(notices) == 2 and all(f"replayed from {run.run_id}" in n.update.delta for n in notices)
    ended = [e.status for e in forked.events if e.type == "tool_execution_end"]
    assert ended == ["done", "done", "done"]
    assert "replayed from" in repr(forked)


def test_a_fork_bills_only_its_live_rounds():
    """The original's rounds cost money; a fork that counted its replayed rounds again
    would bill them twice (the scripts above carry no usage, so this one does)."""
    make_add()

    def priced(item, cost):
        blocks = [item] if isinstance(item, op.ToolCall) else [op.TextContent(text=item)]
        return op.AssistantMessage(
            content=blocks,
            stop_reason="toolUse" if isinstance(item, op.ToolCall) else "stop",
            usage=op.Usage(input=100, output=10, total_tokens=110, cost=cost),
        )

    model = op.ScriptedModel(
        [priced(call("add", a=1, b=2), 0.01), priced(call("add", a=3, b=3), 0.02), priced("Six.", 0.04)]
    )
    run = op.Runtime(model=model).run("Add.")
    assert run.usage.cost == pytest.approx(0.07)
    forked = run.fork(3, model=op.ScriptedModel([priced("Six, again.", 0.5)]))
    assert forked.usage.cost == pytest.approx(0.5)  # round 3 only: rounds 1-2 were replayed
    assert forked.usage.input == 100


def test_a_new_description_reaches_the_model_from_the_fork_on(original):
    run, _ = original
    live = op.ScriptedModel([call("add", a=6, b=4), "Ten."])
    new_add = make_add("Add two numbers; both must be integers.")
    run.fork(3, model=live, tools=[new_add])
    assert live.requests[0].tools[0]["description"] == "Add two numbers; both must be integers."


def test_by_default_the_fork_takes_the_tools_as_they_are_registered_now(original):
    run, _ = original
    make_add("Redefined since the run.")
    live = op.ScriptedModel(["Ten."])
    run.fork(4, model=live)
    assert live.requests[0].tools[0]["description"] == "Redefined since the run."


def test_a_new_system_prompt_is_sent_from_the_fork_on(original):
    run, _ = original
    live = op.ScriptedModel(["Ten."])
    run.fork(4, model=live, system="Answer in words.")
    assert live.requests[0].system == "Answer in words."


def test_forking_at_round_one_replays_nothing(original):
    run, _ = original
    live = op.ScriptedModel(["Ten."])
    forked = run.fork(1, model=live)
    assert len(live.requests) == 1 and [m.role for m in live.requests[0].messages] == ["user"]
    assert forked.rounds == 1


def test_messages_delivered_between_rounds_are_replayed_too():
    make_add()
    follow_ups = [["And now double it."]]
    model = op.ScriptedModel(["Ten.", "Twenty."])
    run = op.Runtime(model=model).run("Add.", get_follow_up_messages=lambda: follow_ups.pop() if follow_ups else [])
    live = op.ScriptedModel(["Twenty, surely."])
    forked = run.fork(2, model=live)
    assert [m.text for m in live.requests[0].messages] == ["Add.", "Ten.", "And now double it."]
    assert forked.text == "Twenty, surely."


def test_a_round_that_is_not_in_the_run_is_refused(original):
    run, _ = original
    for bad in (0, 5, "2", True):
        with pytest.raises(op.SetupError, match="between 1 and 4"):
            run.fork(bad, model=op.ScriptedModel(["x"]))


def test_a_tool_that_is_gone_is_named(original):
    run, _ = original
    op.default_registry.clear()
    run.spec = None  # as after a trip to another process: only the names are left
    with pytest.raises(op.SetupError, match="'add', which is no longer registered"):
        run.fork(2, model=op.ScriptedModel(["x"]))


def test_a_run_that_travelled_can_still_be_forked(original):
    run, _ = original
    travelled = pickle.loads(pickle.dumps(run))
    assert travelled.spec is None and travelled.runtime is None and travelled.text == "Ten."
    live = op.ScriptedModel(["Ten."])
    assert travelled.fork(4, model=live, runtime=op.Runtime(model=live)).text == "Ten."


def test_scripted_call_ids_stay_unique_when_one_model_also_serves_a_nested_run():
    make_add()

    @op.agentic_function
    def helper(runtime=None) -> str:
        """Ask again."""
        return runtime.exec("inner", tools=[op.default_registry.get("add")])

    model = op.ScriptedModel([call("helper"), call("add", a=1, b=1), "inner done", "outer done"])
    run = op.Runtime(model=model).run("outer", tools=[helper])
    ids = [e.tool_call_id for e in run.events if e.type == "tool_execution_start"]
    assert len(ids) == 2 and len(set(ids)) == 2  # the outer call and the nested one


def test_a_replayed_call_shows_its_arguments_and_took_no_time(original):
    """The view draws a replayed call from its start and end events, as a live one."""
    run, _ = original
    forked = run.fork(3, model=op.ScriptedModel([call("add", a=6, b=4), "Ten."]))
    starts = [e.arguments for e in forked.events if e.type == "tool_execution_start"]
    assert starts == [{"a": 1, "b": 2}, {"a": 3, "b": 3}, {"a": 6, "b": 4}]
    ends = [e.duration for e in forked.events if e.type == "tool_execution_end"]
    assert ends[:2] == [0.0, 0.0] and ends[2] > 0.0


def test_a_fork_at_a_round_the_run_does_not_have_says_which_rounds_it_has(original):
    run, _ = original
    with pytest.raises(op.SetupError) as refused:
        run.fork(5, model=op.ScriptedModel(["never"]))
    assert refused.value.option == "round"
    assert str(refused.value) == f"fork: round must be a round of run {run.run_id} (between 1 and 4), got 5"


def test_a_fork_given_tools_runs_its_live_rounds_with_them(original):
    run, _ = original
    used = []

    @op.function(register_globally=False)
    def add(a: float, b: float) -> float:
        """Add, and say so."""
        used.append((a, b))
        return a + b

    forked = run.fork(3, model=op.ScriptedModel([call("add", a=6, b=4), "Ten."]), tools=[add])
    assert used == [(6.0, 4.0)] and CALLS == [] and forked.text == "Ten."
