"""A served tool that asks (``ctx.ask``) during a call from an MCP client: the question shows
under the serving cell's card and its answer — typed, or a choice clicked — reaches the
tool; no card, or no answer within the timeout, is ``op.AskError`` in the tool, saying so."""

from __future__ import annotations

import asyncio

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import SessionRules
from openprogram_jupyter.jupyter._serve_card import show_card
from tests import registry_fixtures
from tests.mcp_serve.test_serve import connect, run
from tests.mcp_serve.test_serve_approval import stop_and_wait

clean_registry = registry_fixtures.clean_registry
runtime = registry_fixtures.runtime


def define_asking_tools():
    @op.function
    def rename(path: str, ctx: op.ToolContext) -> str:
        """Rename a file, asking for the new name."""
        try:
            return f"renamed {path} to {ctx.ask(f'New name for {path}?')}"
        except op.AskError as why:
            return f"not renamed: {why}"

    @op.function
    def pick(ctx: op.ToolContext) -> str:
        """Pick a colour."""
        return ctx.ask("Which colour?", choices=["red", "green"])


@pytest.fixture
def asking(runtime):
    define_asking_tools()
    served = op.serve(["rename", "pick"], runtime=runtime, name="questions")
    box = show_card(served, widgets=True, session_rules=SessionRules())
    yield served, box
    served.stop()


async def answer_when_shown(client, box, tool, arguments, answer):
    """Call ``tool``; once its question shows, ``answer(row)``; the result and the question's HTML."""
    call = asyncio.ensure_future(client.call_tool(tool, arguments))
    while not box.widget.children:
        assert not call.done(), f"the call ended without asking: {call.result()}"
        await asyncio.sleep(0.02)
    [row] = box.widget.children
    shown = row.children[0].value
    answer(row.children[1].children)
    return await call, shown


def test_a_typed_answer_reaches_the_served_tool(asking):
    served, box = asking

    def type_and_send(controls):
        text, send = controls
        text.value = "b.txt"
        send.click()

    async def go():
        async with connect(served) as client:
            return await answer_when_shown(client, box, "rename", {"path": "a.txt"}, type_and_send)

    result, shown = run(go())
    assert not result.is_error and result.content[0].text == "renamed a.txt to b.txt"
    assert "<b>rename asks</b> (during a call from an MCP client): New name for a.txt?" in shown
    assert box.widget.children == ()


def test_a_choice_clicked_reaches_the_served_tool(asking):
    served, box = asking

    async def go():
        async with connect(served) as client:
            return await answer_when_shown(client, box, "pick", {}, lambda buttons: buttons[1].click())

    result, _shown = run(go())
    assert box.widget.children == ()
    assert result.content[0].text == "green"


def test_no_answer_within_the_timeout_is_an_ask_error_in_the_tool(asking):
    served, box = asking
    served.questions.timeout = 0.3

    async def go():
        async with connect(served) as client:
            return await client.call_tool("rename", {"path": "a.txt"})

    result = run(go())
    assert result.content[0].text == ("not renamed: nobody answered 'New name for a.txt?' in the notebook within 0.3 s")
    assert box.widget.children == ()


def test_without_a_card_the_question_is_an_ask_error_saying_why(runtime):
    define_asking_tools()
    served = op.serve(["rename"], runtime=runtime, name="cardless")

    async def go():
        async with connect(served) as client:
            return await client.call_tool("rename", {"path": "a.txt"})

    try:
        result = run(go())
    finally:
        served.stop()
    assert result.content[0].text == (
        "not renamed: rename asked 'New name for a.txt?' during a call from an MCP client, and no card can "
        "answer (show the server's card: %agent serve, or op.serve(...) on a cell's last line)"
    )


def test_stopping_the_server_ends_a_waiting_question_with_an_ask_error(asking):
    served, box = asking
    stop_and_wait(served, box, "rename", {"path": "a.txt"})
    [ended] = served.calls
    assert (ended.status, ended.text) == ("done", "not renamed: the server stopped while rename waited for an answer")
