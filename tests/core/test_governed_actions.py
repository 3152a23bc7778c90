"""What a call does on the run's behalf under a name of its own (``ctx.governed_action``,
``engine/_call_questions.py``; an MCP server's sampling request is one): the run's approvers
clear it as a call of a tool named after it, its text or why there is none is recorded in
the call's result, and a rerun gives that back in order without asking or doing it again.
A plain tool calls ``governed_action`` here, so no MCP server (nor node) is needed."""

from __future__ import annotations

import asyncio
import threading

import openprogram_jupyter as op
from openprogram_jupyter.core.events import ToolExecutionUpdateEvent

from .conftest import call, results

ACTION = "mcp_sampling:docs"
ARGUMENTS = {"prompt": "Say hi", "model": "scripted"}
done: list[str] = []  # what each governed action's ``do`` was asked to do, in order


def _do(text: str):
    def do() -> str:
        done.append(text)
        return text

    return do


@op.function(register_globally=False)
def sample(ctx: op.ToolContext) -> str:
    """Asks the notebook's model for a reply, as the governed action ``mcp_sampling:docs``."""
    try:
        return "sampled: " + ctx.governed_action(ACTION, dict(ARGUMENTS), "Sample for docs?", _do("Hello."))
    except op.AskError as why:
        return f"not sampled ({type(why).__name__}): {why}"


@op.function(register_globally=False)
def sample_then_ask(ctx: op.ToolContext) -> str:
    """A governed action, then a question: both recorded, in order."""
    first = ctx.governed_action(ACTION, dict(ARGUMENTS), "Sample for docs?", _do("Hello."))
    return f"{first} / {ctx.ask('Keep it?', choices=['yes', 'no'])}"


@op.function(register_globally=False)
def sample_failing(ctx: op.ToolContext) -> str:
    """A governed action whose doing fails."""

    def broken() -> str:
        raise ConnectionError("the model is unreachable")

    return ctx.governed_action(ACTION, dict(ARGUMENTS), "Sample for docs?", broken)


def _run(tool, *, script=None, **options) -> op.Run:
    done.clear()
    model = op.ScriptedModel(script or [call(tool.name), "done"])
    return op.Runtime(model=model).run("go", tools=[tool], **options)


def test_with_no_policy_the_action_is_done_and_its_text_recorded_with_the_action_s_name():
    events: list[object] = []
    run = _run(sample, on_event=events.append)
    [result] = results(run)
    assert done == ["Hello."]
    assert result.text == "sampled: Hello."
    assert result.details["answers"] == [{"question": "Sample for docs?", "answer": "Hello.", "action": ACTION}]
    assert not [e for e in events if isinstance(e, ToolExecutionUpdateEvent)]  # nothing asked, nothing waited


def test_a_deny_rule_naming_the_action_refuses_it_in_the_policy_s_words_and_nothing_is_done():
    run = _run(sample, approve=op.policy(deny=["mcp_sampling:*"]))
    [result] = results(run)
    refusal = f"denied by rule 'deny mcp_sampling:*' of the approval policy: {ACTION} did not run"
    assert done == []
    assert result.text == f"not sampled (ActionRefused): {refusal}"
    assert result.details["answers"] == [{"question": "Sample for docs?", "unanswered": refusal, "action": ACTION}]


def test_a_rule_on_the_action_s_arguments_decides_by_them():
    allowed = _run(sample, approve=op.policy(allow=["sample", f"{ACTION}(model=scripted)"], default="deny"))
    assert results(allowed)[0].text == "sampled: Hello."
    refused = _run(sample, approve=op.policy(allow=["sample", f"{ACTION}(model=other)"], default="deny"))
    assert results(refused)[0].text.startswith("not sampled (ActionRefused): denied by the policy's default")


def test_under_default_ask_the_approver_is_asked_about_the_action_on_the_calling_call_s_card():
    asked: list[tuple[str, dict, dict]] = []
    events: list[object] = []

    def approver(request):
        asked.append((request.tool_name, dict(request.arguments), request.tool.spec))
        return request.tool_name == "sample"  # the call runs; its action is refused

    run = _run(sample, approve=op.policy(default="ask", ask_with=approver), on_event=events.append)
    [result] = results(run)
    # an approver written for any tool reads the action as one: its name, what it is, and a
    # schema of no parameters of its own
    action_spec = {
        "name": ACTION,
        "description": f"{ACTION}: an action a tool call does on the run's behalf",
        "parameters": {"type": "object", "properties": {}},
    }
    assert asked[1] == (ACTION, ARGUMENTS, action_spec)
    assert result.text == f"not sampled (ActionRefused): denied: the user did not approve this call to {ACTION}"
    waits = [(e.tool_call_id, e.tool_name, e.status) for e in events if isinstance(e, ToolExecutionUpdateEvent)]
    # the call's own wait, then its action's, under the same call id (the card the question shows in)
    assert waits == [
        (result.tool_call_id, "sample", "awaiting_approval"),
        (result.tool_call_id, "sample", "approved"),
        (result.tool_call_id, ACTION, "awaiting_approval"),
    ]
    assert done == []


def test_an_approved_action_is_done_and_announced_approved():
    events: list[object] = []
    run = _run(
        sample,
        approve=op.policy(allow=["sample"], default="ask", ask_with=lambda request: True),
        on_event=events.append,
    )
    [result] = results(run)
    assert result.text == "sampled: Hello." and done == ["Hello."]
    statuses = [(e.tool_name, e.status) for e in events if isinstance(e, ToolExecutionUpdateEvent)]
    assert statuses == [(ACTION, "awaiting_approval"), (ACTION, "approved")]


def test_an_approver_s_edit_of_the_action_is_refused_instead_of_silently_doing_the_original():
    def approver(request):
        return True if request.tool_name == "sample" else op.edit(prompt="Say bye", model="scripted")

    run = _run(sample, approve=op.policy(default="ask", ask_with=approver))
    [result] = results(run)
    assert done == []  # not done with the model's arguments the user wanted changed
    assert result.text == (
        f"not sampled (ActionRefused): denied: the user's edited arguments for {ACTION} are invalid "
        f"(invalid arguments:\n- (arguments): {ACTION} cannot be done with other arguments; approve or "
        "deny it as asked); the call did not run"
    )


def test_step_mode_does_not_ask_again_about_the_action_of_a_call_it_let_run():
    asked: list[str] = []

    def approver(request):
        asked.append(request.tool_name)
        return True

    run = _run(sample, step=True, approve=approver)
    assert asked == ["sample"]  # the call was asked about; the action a policy does not name was not
    assert results(run)[0].text == "sampled: Hello."


def test_an_action_whose_doing_fails_is_recorded_with_its_error_and_the_call_fails():
    run = _run(sample_failing)
    [result] = results(run)
    assert result.status == "error" and "the model is unreachable" in result.text
    failure = f"{ACTION} failed: the model is unreachable"
    assert result.details["answers"] == [{"question": "Sample for docs?", "unanswered": failure, "action": ACTION}]


def test_a_stop_while_the_action_waits_for_approval_refuses_it_saying_so():
    abort = threading.Event()
    heard: list[str] = []
    finished = threading.Event()

    async def approver(request):
        if request.tool_name != ACTION:
            return True
        abort.set()  # the user clicks Stop instead of answering
        await asyncio.sleep(10)
        return True

    @op.function(register_globally=False)
    def sample_heard(ctx: op.ToolContext) -> str:
        """Samples, keeping what it heard."""
        try:
            return ctx.governed_action(ACTION, dict(ARGUMENTS), "Sample for docs?", _do("Hello."))
        except op.AskError as why:
            heard.append(str(why))
            return "not sampled"
        finally:
            finished.set()

    run = _run(sample_heard, approve=op.policy(default="ask", ask_with=approver), abort=abort)
    assert run.stop_reason == "aborted"
    assert finished.wait(5)
    assert heard == [f"{ACTION} was not answered: the run was stopped while it waited for approval"]
    assert done == []


def test_a_rerun_gives_the_recorded_text_back_without_asking_or_doing_it_again():
    asked: list[str] = []
    answers = iter(["yes"])
    recorded = _run(sample_then_ask, ask=lambda question, cancelled: next(answers))
    assert results(recorded)[0].text == "Hello. / yes" and done == ["Hello."]
    done.clear()
    events: list[object] = []

    def approver(request):
        asked.append(request.tool_name)
        return True

    again = recorded.rerun(approve=op.policy(default="ask", ask_with=approver), on_event=events.append)
    [result] = results(again)
    assert result.text == "Hello. / yes" and again.divergence is None
    assert done == [] and asked == ["sample_then_ask"]  # the call asked again; its action did not
    assert result.details["answers"] == [
        {"question": "Sample for docs?", "answer": "Hello.", "recorded": True},
        {"question": "Keep it?", "answer": "yes", "recorded": True},
    ]
    updates = [
        (e.status, e.data)
        for e in events
        if isinstance(e, ToolExecutionUpdateEvent) and e.tool_name == "sample_then_ask"
    ]
    assert ("answered", {"question": "Sample for docs?", "answer": "Hello.", "recorded": True}) in updates


def test_a_rerun_refuses_again_an_action_the_recording_refused_without_asking():
    recorded = _run(sample, approve=op.policy(deny=[ACTION]))
    assert done == []
    again = recorded.rerun(approve=None)
    [result] = results(again)
    words = "sample asked 'Sample for docs?'; in the recorded run it got no answer either (recorded)"
    assert result.text == f"not sampled (AskError): {words}" and done == []
    assert result.details["answers"] == [{"question": "Sample for docs?", "unanswered": words, "recorded": True}]
