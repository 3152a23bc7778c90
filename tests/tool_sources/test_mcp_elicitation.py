"""An MCP server's ``elicitation/create`` asked of the user as the calling tool's questions
(``ctx.ask``): against a FastMCP server of our own that elicits (eliciting_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._live import LiveRun
from tests.widgets.conftest import recorder as recording_comms
from tests.widgets.test_view_step_mode import card_widgets, wait_for

ELICITING = [sys.executable, str(Path(__file__).with_name("eliciting_server.py"))]


@pytest.fixture
def eliciting(runtime):
    return op.mcp(command=ELICITING, name="el", runtime=runtime)


def _run(calls, **hooks):
    script = [op.ToolCall(name=name, arguments=arguments) for name, arguments in calls]
    return op.Runtime(model=op.ScriptedModel([*script, "done"])).run("go", toolset="el", **hooks)


def _asker(answers):
    given = iter(answers)
    asked = []

    def ask(question, cancelled):
        asked.append((question.text, question.choices))
        return next(given)

    return ask, asked


def test_each_field_is_a_question_and_the_answers_reach_the_server_typed(eliciting):
    ask, asked = _asker(["yes", "Ada", "two", "2", "business", "Accept"])
    run = _run([("el_delete", {"path": "a.txt"}), ("el_book", {}), ("el_ping", {})], ask=ask)
    assert [r.text for r in run.tool_results] == ["deleted a.txt", "booked 2 business for Ada", "accept"]
    assert asked == [
        ("from the MCP server eliciting: Delete a.txt?\nSure (delete it for good)", ("yes", "no", "Decline")),
        ("from the MCP server eliciting: Who is travelling?\nName", ()),
        ("from the MCP server eliciting\nSeats", ()),
        ("from the MCP server eliciting\nSeats: 'two' is not a whole number", ()),  # asked again until it reads as one
        ("from the MCP server eliciting\nCabin", ("economy", "business", "Decline")),
        ("from the MCP server eliciting: Go on?", ("Accept", "Decline")),
    ]


def test_decline_is_the_servers_decline(eliciting):
    ask, _ = _asker(["Decline"])
    assert _run([("el_delete", {"path": "a"})], ask=ask).tool_results[0].text == "not deleted: decline"


def test_with_no_one_to_ask_the_server_hears_cancel_and_the_call_goes_on(eliciting):
    run = _run([("el_delete", {"path": "a"})])
    assert run.tool_results[0].text == "not deleted: cancel"
    assert "no one can answer in this run" in run.tool_results[0].details["answers"][0]["unanswered"]


def test_a_rerun_answers_the_server_with_the_recorded_answers(eliciting):
    ask, asked = _asker(["no"])
    run = _run([("el_delete", {"path": "a"})], ask=ask)
    again = run.rerun()  # no ask=: asking again would cancel, and the result would differ
    assert len(asked) == 1 and again.divergence is None
    assert again.tool_results[0].text == "kept"


recorder = recording_comms  # widgets that talk to a list, not a kernel


def test_in_the_live_view_the_elicitation_is_answered_with_a_click(eliciting, recorder):
    live = LiveRun(widgets=True, clicks=True)
    handle = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="el_delete", arguments={"path": "b"}), "ok"])).start(
        "go", toolset="el", ask=live.ask, on_event=live.on_event, abort=live.abort
    )
    wait_for(live, lambda: card_widgets(live, "Button", description="yes"), "the yes button")[0].click()
    assert handle.wait(30).tool_results[0].text == "deleted b"
