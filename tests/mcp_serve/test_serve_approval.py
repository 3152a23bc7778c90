"""A served call the approval policy asks about waits for Approve / Deny in the serving
cell's card (``show_card``'s box of buttons), driven by the official ``mcp`` client: the
click decides what the client gets, "Always allow" answers the later calls, and no click
within the timeout — or no card at all — is an MCP error result saying why."""

from __future__ import annotations

import asyncio

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import SessionRules
from openprogram_jupyter.jupyter._serve_card import show_card
from tests import registry_fixtures
from tests.mcp_serve.test_serve import connect, define_tools, run

clean_registry = registry_fixtures.clean_registry
runtime = registry_fixtures.runtime


@pytest.fixture
def asking(runtime):
    """A server of ``add`` under a policy that asks about ``add``, with its card's box."""
    define_tools()
    runtime.approve = op.policy(ask=["add"])
    served = op.serve(["add"], runtime=runtime, name="asking")
    rules = SessionRules()
    box = show_card(served, widgets=True, session_rules=rules)
    yield served, box, rules
    served.stop()


def buttons(box):
    """The buttons of the box's rows by label, one list per waiting call."""
    rows = box.widget.children
    return [{button.description: button for button in row.children[1].children} for row in rows]


async def call_and_click(client, box, label, arguments):
    """Call ``add`` and, once its row shows, press ``label`` on it; the result and the row's text."""
    call = asyncio.ensure_future(client.call_tool("add", arguments))
    while not box.widget.children:
        assert not call.done(), f"the call ended without asking: {call.result()}"
        await asyncio.sleep(0.02)
    shown = box.widget.children[0].children[0].value
    [row] = buttons(box)
    row[label].click()
    return await call, shown


def call_once_and_stop(served):
    """What a client calling ``add(a=1, b=2)`` once got back; the server stopped after."""

    async def go():
        async with connect(served) as client:
            return await client.call_tool("add", {"a": 1, "b": 2})

    try:
        return run(go())
    finally:
        served.stop()


def test_approve_in_the_card_runs_the_call(asking):
    served, box, _rules = asking

    async def go():
        async with connect(served) as client:
            return await call_and_click(client, box, "Approve", {"a": 2, "b": 3})

    result, shown = run(go())
    assert not result.is_error and result.content[0].text == "5"
    assert "<b>add</b>: a call from an MCP client waits for your approval" in shown
    assert "&quot;a&quot;: 2" in shown  # the client's arguments, escaped
    assert box.widget.children == ()  # the row went with the answer
    assert served.calls[-1].status == "done"


def test_deny_in_the_card_is_an_mcp_error_result(asking):
    served, box, _rules = asking

    async def go():
        async with connect(served) as client:
            return await call_and_click(client, box, "Deny", {"a": 2, "b": 3})

    result, _shown = run(go())
    assert result.is_error and result.content[0].text == "denied: the user did not approve this call to add"
    assert served.calls[-1].status == "denied"


def test_always_allow_answers_the_later_calls_without_asking(asking):
    served, box, rules = asking

    async def go():
        async with connect(served) as client:
            first, _shown = await call_and_click(client, box, "Always allow", {"a": 1, "b": 1})
            second = await client.call_tool("add", {"a": 2, "b": 2})  # would hang until the timeout if it asked
            return first, second

    served.approvals.timeout = 5
    first, second = run(go())
    assert [first.content[0].text, second.content[0].text] == ["2", "4"]
    assert [str(rule) for rule in rules.rules()] == ["allow add"]
    assert [call.status for call in served.calls] == ["done", "done"]


def test_no_click_within_the_timeout_denies_the_call_saying_why(asking):
    served, box, _rules = asking
    served.approvals.timeout = 0.3

    async def go():
        async with connect(served) as client:
            return await client.call_tool("add", {"a": 1, "b": 2})

    result = run(go())
    assert result.is_error
    assert result.content[0].text == (
        "denied: nobody approved add in the notebook within 0.3 s "
        "(the serving cell's card asked Approve / Deny); add did not run"
    )
    assert served.calls[-1].status == "denied" and box.widget.children == ()


def test_without_a_card_a_call_that_asks_is_denied_at_once_saying_why(runtime):
    define_tools()
    runtime.approve = op.policy(ask=["add"])
    served = op.serve(["add"], runtime=runtime, name="cardless")

    result = call_once_and_stop(served)
    assert result.is_error and result.content[0].text == (
        "denied: add needs approval, and no card can answer (show the server's card: %agent serve, "
        "or op.serve(...) on a cell's last line); add did not run"
    )


def test_stopping_the_server_closes_the_box_and_ends_the_asking(asking):
    served, box, _rules = asking
    served.stop()
    assert not served.approvals.answerable and box.widget.comm is None


def test_op_serve_in_a_notebook_follows_its_always_rules(runtime):
    """A rule an "Always deny" click added in the notebook (``%agent policy`` lists it)
    refuses a call served by ``op.serve`` too, though the Runtime has no policy."""
    from IPython.core.interactiveshell import InteractiveShell

    from openprogram_jupyter.core.approval_policy import Rule

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "openprogram_jupyter")
    rules = shell.magics_manager.registry["AgentMagics"].approval_rules
    rules.add(Rule.for_tool("deny", "add"))
    define_tools()
    served = op.serve(["add"], runtime=runtime, name="ruled")

    try:
        result = call_once_and_stop(served)
    finally:
        rules.clear()
    assert result.is_error
    assert result.content[0].text == "denied by session rule 'deny add' of the approval policy: add did not run"


def test_two_waiting_calls_each_get_their_own_row_and_answer(asking):
    served, box, _rules = asking

    async def go():
        async with connect(served) as client:
            first = asyncio.ensure_future(client.call_tool("add", {"a": 1, "b": 1}))
            second = asyncio.ensure_future(client.call_tool("add", {"a": 2, "b": 2}))
            while len(box.widget.children) < 2:
                await asyncio.sleep(0.02)
            shown = [row.children[0].value for row in box.widget.children]
            later = [i for i, text in enumerate(shown) if "&quot;a&quot;: 2" in text]
            buttons(box)[later[0]]["Deny"].click()  # the later call first: it alone is answered
            denied = await second
            assert not first.done() and len(box.widget.children) == 1
            buttons(box)[0]["Approve"].click()
            return await first, denied

    served.approvals.timeout = 30
    approved, denied = run(go())
    assert approved.content[0].text == "2" and not approved.is_error
    assert denied.is_error and denied.content[0].text == "denied: the user did not approve this call to add"


def test_op_serve_shown_as_a_cell_s_value_shows_the_card_that_answers(runtime, monkeypatch):
    """``op.serve(...)`` on a cell's last line in a kernel shows the same card as ``%agent
    serve``: a call that asks then waits for it instead of being denied at once."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    monkeypatch.setattr(shell, "kernel", object(), raising=False)  # as in a kernel: widgets can answer
    define_tools()
    runtime.approve = op.policy(ask=["add"])
    served = op.serve(["add"], runtime=runtime, name="shown")
    served._ipython_display_()

    async def go():
        async with connect(served) as client:
            call = asyncio.ensure_future(client.call_tool("add", {"a": 1, "b": 2}))
            while not served.approvals.waiting():
                assert not call.done(), f"the call ended without asking: {call.result()}"
                await asyncio.sleep(0.02)
            [waiting] = served.approvals.waiting()
            served.approvals.decide(waiting.call_id, True)
            return await call

    try:
        result = run(go())
    finally:
        served.stop()
    assert not result.is_error and result.content[0].text == "3"


def test_stopping_the_server_denies_a_waiting_call_at_once(asking):
    served, box, _rules = asking
    stop_and_wait(served, box, "add", {"a": 1, "b": 2})
    [ended] = served.calls
    assert (ended.status, ended.text) == (
        "denied",
        "denied: the MCP server asking was stopped before anyone approved the call; add did not run",
    )


def stop_and_wait(served, box, tool, arguments):
    """Call ``tool``, stop the server while the call waits in ``box``, and wait for the call
    to end (within 10 s: without the stop ending it, it would wait out the 120 s timeout)."""

    async def go():
        try:
            async with connect(served) as client:
                call = asyncio.ensure_future(client.call_tool(tool, arguments))
                while not box.widget.children:
                    await asyncio.sleep(0.02)
                await asyncio.get_running_loop().run_in_executor(None, served.stop)
                await asyncio.wait({call}, timeout=10)
        except Exception:  # the client's session ends with the server: what it reads races that, the record does not
            pass

    run(go())
