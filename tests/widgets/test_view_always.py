"""Always allow / Always deny on a waiting card: the click answers that call and adds a
session rule for its tool alone, which answers the tool's later calls without a card."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import SessionRules
from openprogram_jupyter.jupyter._cell import _approver
from openprogram_jupyter.jupyter._live import LiveRun

from .test_view_step_mode import card_widgets, click, wait_for


def start(tools, script, *, own=None, step=False, rules=None):
    live = LiveRun(widgets=True, clicks=True, step=step, session_rules=rules if rules is not None else SessionRules())
    handle = op.Runtime(model=op.ScriptedModel(script)).start(
        "go", tools=tools, step=step, approve=_approver(own, live), on_event=live.on_event, abort=live.abort
    )
    return live, handle


def make(name, ran, requires_approval=True):
    @op.function(name=name, requires_approval=requires_approval, register_globally=False)
    def tool(n: int = 0) -> str:
        """A tool."""
        ran.append((name, n))
        return "ok"

    return tool


def waits(live, name):
    """Until the call waiting for an answer is a call to ``name`` (a click on an earlier
    call's card can still be on screen for a moment after it was answered)."""
    wait_for(
        live,
        lambda: [w.request.tool_name for w in live._approvals.values()] == [name],
        f"a call to {name} waiting in its card",
    )


def rules_of(result):
    return result.details.get("approval_by"), result.details.get("approval_rule")


def test_always_allow_answers_the_tools_later_calls_and_no_other_tools(recorder):
    ran: list = []
    launch, land = make("launch", ran), make("land", ran)
    rules = SessionRules()
    live, handle = start(
        [launch, land],
        [
            op.ToolCall(name="launch", arguments={"n": 1}),
            op.ToolCall(name="launch", arguments={"n": 2}),
            op.ToolCall(name="land"),
            "done",
        ],
        rules=rules,
    )
    click(live, "Always allow")
    waits(live, "land")
    assert ran == [("launch", 1), ("launch", 2)]  # the second launch asked no one
    click(live, "Deny")
    run = handle.wait(10)
    assert [str(rule) for rule in rules.rules()] == ["allow launch"]
    assert [(r.status, r.details["approval"]) for r in run.tool_results] == [
        ("done", "approved"),
        ("done", "approved"),
        ("denied", "denied"),
    ]
    assert [rules_of(r) for r in run.tool_results] == [
        (None, None),
        ("policy", {"action": "allow", "pattern": "launch", "from": "session"}),
        (None, None),
    ]


def test_always_deny_in_step_mode_denies_the_tools_later_calls_unseen(recorder):
    ran: list = []
    add, sub = make("add", ran, requires_approval=False), make("sub", ran, requires_approval=False)
    live, handle = start(
        [add, sub],
        [
            op.ToolCall(name="add", arguments={"n": 1}),
            op.ToolCall(name="add", arguments={"n": 2}),
            op.ToolCall(name="sub", arguments={"n": 3}),
            "done",
        ],
        step=True,
    )
    click(live, "Always deny")
    waits(live, "sub")
    click(live, "Run")  # sub still waits: the rule is add's alone
    run = handle.wait(10)
    assert ran == [("sub", 3)]
    assert [r.status for r in run.tool_results] == ["denied", "denied", "done"]
    assert rules_of(run.tool_results[1]) == ("policy", {"action": "deny", "pattern": "add", "from": "session"})
    assert "denied by session rule 'deny add'" in run.tool_results[1].text


def test_a_runtime_policy_keeps_its_rules_behind_the_session_rules_and_is_not_changed(recorder):
    ran: list = []
    write = make("write_file", ran, requires_approval=False)
    policy = op.policy(ask=["write_*"])
    live, handle = start(
        [write],
        [
            op.ToolCall(name="write_file", arguments={"n": 1}),
            op.ToolCall(name="write_file", arguments={"n": 2}),
            "done",
        ],
        own=policy,
    )
    click(live, "Always allow")  # the policy's ask rule put the first call in a card: its buttons answered it
    run = handle.wait(10)
    assert ran == [("write_file", 1), ("write_file", 2)]
    assert rules_of(run.tool_results[0]) == ("user", {"action": "ask", "pattern": "write_*", "from": "policy"})
    assert rules_of(run.tool_results[1])[1]["from"] == "session"
    assert policy.session is None and [str(rule) for rule in policy.rules] == ["ask write_*"]


def test_an_approver_that_is_not_a_policy_keeps_every_call():
    def mine(request):
        return True

    assert _approver(mine, LiveRun(widgets=False, clicks=False, session_rules=SessionRules())) is mine


@pytest.mark.parametrize("step", [True, False])
def test_without_session_rules_the_cards_offer_no_always(recorder, step):
    ran: list = []
    live = LiveRun(widgets=True, clicks=True, step=step)
    handle = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="launch"), "done"])).start(
        "go", tools=[make("launch", ran)], step=step, approve=live.approve, on_event=live.on_event
    )
    answer = "Run" if step else "Approve"
    wait_for(live, lambda: card_widgets(live, "Button", description=answer), f"the {answer} button")
    assert not card_widgets(live, "Button", description="Always allow")
    assert not card_widgets(live, "Button", description="Always deny")
    click(live, answer)
    handle.wait(10)


@pytest.mark.parametrize("step", [True, False])
def test_with_session_rules_both_cards_offer_always(recorder, step):
    ran: list = []
    live, handle = start([make("launch", ran)], [op.ToolCall(name="launch"), "done"], step=step)
    wait_for(live, lambda: card_widgets(live, "Button", description="Always deny"), "Always deny")
    assert len(card_widgets(live, "Button", description="Always allow")) == 1
    click(live, "Always allow")
    assert handle.wait(10).tool_results[0].status == "done"
