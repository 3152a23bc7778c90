"""Decisions (docs/decisions.md): one re-ask carrying the problem, then DecisionError; the ambient runtime."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
import openprogram_jupyter.engine.runtime as runtime_module
from openprogram_jupyter.lab.decision import DecisionError

from .conftest import pick, scripted_runtime


def refund(amount: float) -> str:
    """Refund the customer."""
    return f"refunded {amount}"


OPTIONS = {"refund": refund, "close": "closed", "plan": ("Plan it.", {"steps": [str], "why": str})}


def reask_text(model: op.ScriptedModel) -> str:
    return model.requests[1].messages[-1].text


@pytest.mark.parametrize(
    ("first_reply", "words"),
    [
        ('{"call": "refund", "args": {"amount": 3,}}', "malformed JSON"),
        ('{"call": "close"} {"call": "refund", "args": {"amount": 1}}', "two picks"),
        (pick("reopen"), "unknown option 'reopen'; the options are: refund, close, plan"),
        (pick("refund", amount="three"), "amount: Input should be a valid number"),
        (pick("plan", steps=["a"]), "why: missing required argument"),
        (pick("plan", steps="a", why="b"), "- steps: Input should be a valid"),
        ("I would close it.", "no pick found"),
    ],
    ids=["malformed", "two-picks", "unknown-option", "wrong-type", "missing-field", "nested-wrong-type", "no-pick"],
)
def test_bad_first_pick_is_reasked_with_the_problem_and_the_second_pick_wins(first_reply, words):
    rt, model = scripted_runtime(first_reply, pick("close"))
    assert rt.exec("Handle it.", choices=OPTIONS, tools=[]) == "closed"
    assert words in reask_text(model)
    assert rt.last_run.decision.attempts == 2


def test_reask_names_the_valid_options():
    rt, model = scripted_runtime(pick("reopen"), pick("close"))
    rt.exec("Handle it.", choices=OPTIONS, tools=[])
    assert "naming one of: refund, close, plan." in reask_text(model)


def test_reask_continues_the_same_run():
    rt, _ = scripted_runtime(pick("reopen"), pick("close"))
    run = rt.run("Handle it.", choices=OPTIONS, tools=[])
    assert [m.role for m in run.messages] == ["user", "assistant", "user", "assistant"]
    assert run.rounds == 2


def test_second_bad_pick_raises_decision_error_naming_attempts_last_error_and_reply_start():
    rt, _ = scripted_runtime(pick("reopen"), "Still thinking about " + pick("refund", amount="x"))
    with pytest.raises(DecisionError) as raised:
        rt.exec("Handle it.", choices=OPTIONS, tools=[])
    message = str(raised.value)
    assert message.startswith("no valid decision after 2 attempts: ")
    assert "the arguments for 'refund' do not fit its schema" in message
    assert "The reply began: 'Still thinking about" in message


def test_decision_error_is_a_value_error_carrying_every_error_and_the_run():
    rt, _ = scripted_runtime("no idea", "still no idea")
    with pytest.raises(ValueError) as raised:
        rt.exec("Handle it.", choices=OPTIONS, tools=[])
    error = raised.value
    assert isinstance(error, op.DecisionError)
    assert error.attempts == 2
    assert len(error.errors) == 2 and all("no pick found" in e for e in error.errors)
    assert error.reply == "still no idea"
    assert error.run is rt.last_run and error.run.result is None


def test_round_cap_reached_before_any_pick_raises_decision_error_saying_so():
    @op.function(register_globally=False)
    def look() -> str:
        return "more"

    rt, _ = scripted_runtime(op.ToolCall(name="look"), op.ToolCall(name="look"))
    with pytest.raises(DecisionError, match=r"round cap \(max_iterations=2\) before the model finished"):
        rt.exec("Look, then choose.", choices=OPTIONS, tools=[look], max_iterations=2)


def test_round_cap_reached_before_the_reask_raises_decision_error_saying_so():
    rt, _ = scripted_runtime(pick("reopen"), pick("close"))
    with pytest.raises(DecisionError) as raised:
        rt.exec("Handle it.", choices=OPTIONS, tools=[], max_iterations=1)
    assert "unknown option 'reopen'" in raised.value.errors[0]
    assert "before the re-ask could be sent" in str(raised.value)


def test_failed_model_call_raises_run_error_not_decision_error():
    failure = op.AssistantMessage(content=[], stop_reason="error", error_message="HTTP 500")
    rt, _ = scripted_runtime(failure)
    with pytest.raises(op.RunError, match="HTTP 500"):
        rt.exec("Handle it.", choices=OPTIONS, tools=[])


def test_queued_follow_up_is_delivered_before_the_pick_is_read():
    import threading

    queued = threading.Event()

    def first_round(request):
        queued.wait(5)  # the user queues the follow-up while the model is still thinking
        return "Let me think."

    def second_round(request):
        assert request.messages[-1].text == "Also check the date."
        return pick("close")

    rt, model = scripted_runtime(first_round, second_round)
    handle = rt.start("Handle it.", choices=OPTIONS, tools=[])
    handle.follow_up("Also check the date.")
    queued.set()
    assert handle.wait(timeout=10).result == "closed"
    assert model.rounds_played == 2


# -- the runtime a decision uses ----------------------------------------------------------


def test_make_inside_an_agentic_function_uses_the_runtime_running_it():
    @op.agentic_function(register_globally=False)
    def triage(ticket: str) -> str:
        """Triage a ticket."""
        return op.decision.make(f"Triage {ticket}.", ["urgent", "later"])

    rt, model = scripted_runtime(op.ToolCall(name="triage", arguments={"ticket": "T1"}), pick("later"), "Done.")
    run = rt.run("Triage T1", tools=[triage])
    assert run.tool_results[0].text == "later"
    assert model.requests[1].messages[0].text.startswith("Triage T1.\n\nChoose exactly one")
    assert any(e.depth == 1 for e in run.events)


def test_make_outside_any_run_uses_the_default_runtime(monkeypatch):
    model = op.ScriptedModel([pick("later")])
    monkeypatch.setattr(runtime_module, "_default_runtime", op.Runtime(model=model))
    assert op.decision.make("Triage.", ["urgent", "later"]) == "later"
    assert model.rounds_played == 1


async def test_amake_decides_in_async_code():
    rt, _ = scripted_runtime(pick("urgent"))
    assert await op.decision.amake("Triage.", ["urgent", "later"], runtime=rt) == "urgent"


def test_offline_model_picks_the_first_option_and_says_it_is_offline():
    rt = op.Runtime(model="offline")
    assert rt.exec("Triage.", choices=OPTIONS, tools=[]) == "refunded 1.5"
    assert "offline model" in rt.last_run.text
