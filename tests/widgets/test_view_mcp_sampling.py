"""An MCP server's sampling request under a policy's ``default="ask"``: it waits on the
calling tool's card as ``mcp_sampling:<server>``, and the card's buttons answer it —
Approve runs the nested run, Always deny refuses it and adds the session rule."""

from __future__ import annotations

import sys
from pathlib import Path

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import SessionRules
from openprogram_jupyter.jupyter._cell import _approver
from openprogram_jupyter.jupyter._live import LiveRun

from .test_view_always import waits
from .test_view_step_mode import click

SAMPLING_SERVER = [sys.executable, str(Path(__file__).parents[1] / "tool_sources" / "sampling_server.py")]
ASK = op.ToolCall(name="smp_ask_model", arguments={"prompt": "Say hi"})


def _run_with_card(script, answer: str, rules: SessionRules) -> op.Run:
    live = LiveRun(widgets=True, clicks=True, session_rules=rules)
    with op.Runtime(model=op.ScriptedModel(script)) as runtime:
        server = op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime, register_globally=False)
        policy = op.policy(allow=["smp_*"], default="ask")
        handle = runtime.start(
            "go", tools=server.tools, approve=_approver(policy, live), on_event=live.on_event, abort=live.abort
        )
        waits(live, "mcp_sampling:smp")
        click(live, answer)
        return handle.wait(30)


def test_approve_on_the_calling_tool_s_card_lets_the_sampling_request_run(recorder):
    run = _run_with_card([ASK, "Hi.", "done"], "Approve", SessionRules())
    [result] = run.tool_results
    assert result.text == "sampled scripted: Hi."
    assert result.details["answers"] == [
        {"question": "smp asks the model (scripted): Say hi", "answer": "Hi.", "action": "mcp_sampling:smp"}
    ]


def test_always_deny_refuses_it_and_adds_a_session_rule_for_the_action(recorder):
    rules = SessionRules()
    run = _run_with_card([ASK, "done"], "Always deny", rules)
    [result] = run.tool_results
    assert result.status == "error"
    assert (
        "the notebook refused the sampling request: denied: the user did not approve this call to mcp_sampling:smp"
        in (result.text)
    )
    assert [str(rule) for rule in rules.rules()] == ["deny mcp_sampling:smp"]
