"""A real browser answers what a call an MCP client makes to ``%agent serve`` waits for:
the notebook's policy asks about ``add``, the call waits in a row under the serving cell's
card, and a click on **Approve** in JupyterLab lets it run; a served tool's ``ctx.ask``
shows a text box there, and what is typed (key by key) and sent goes back to the tool.
The client is the official ``mcp`` client, in this test's process, with the URL and token
the cell printed. Screenshots of the waiting rows go to ``output/``.
"""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .lab import OUTPUT, Server, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

TYPING_DELAY_MS = 60

SERVE_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef add(a: int, b: int) -> int:\n    '''Add two whole numbers.'''\n    return a + b\n\n"
    "@op.function\ndef rename(path: str, ctx: op.ToolContext) -> str:\n"
    "    '''Rename a file, asking for the new name.'''\n"
    "    return f'renamed {path} to ' + ctx.ask(f'New name for {path}?')\n\n"
    "runtime.approve = op.policy(ask=['add'])",
    "%agent serve --tools add,rename --name nb",
]


def serving(page: Any, lab: Server) -> tuple[str, str]:
    """Open and run the serving notebook; the server's URL and token its cell printed."""
    name = write_notebook(lab.root, "serve.ipynb", SERVE_CELLS)
    open_and_run_all(page, lab.notebook_address(name))
    printed = page.locator(".jp-OutputArea-output", has_text="Bearer token").first
    printed.wait_for(timeout=60_000)
    text = printed.inner_text()
    server_url = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", text).group(1)
    return server_url, re.search(r"every request needs it\): (\S+)", text).group(1)


def call_in_background(url: str, token: str, tool: str, arguments: dict[str, Any]) -> tuple[threading.Thread, list]:
    """Call ``tool`` from the official client on a thread of its own; the thread, and the
    list its result (or error) lands in."""
    results: list[object] = []

    async def call() -> object:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool(tool, arguments)

    def run() -> None:
        try:
            results.append(asyncio.run(asyncio.wait_for(call(), 120)))
        except Exception as error:  # reported by the test's assertion
            results.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, results


def test_a_served_call_the_policy_asks_about_is_approved_in_the_card(lab):
    with notebook_page(lab, 1200, 900, "serve-approval-failure.png") as page:
        server_url, token = serving(page, lab)
        thread, results = call_in_background(server_url, token, "add", {"a": 20, "b": 22})
        page.get_by_text("a call from an MCP client waits for your approval", exact=False).first.wait_for(
            timeout=30_000
        )
        page.locator(".widget-vbox", has_text="waits for your approval").last.scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT / "serve-approval.png"), full_page=True)
        page.locator("button.widget-button", has_text="Approve").first.click()
        thread.join(60)
        page.get_by_text("1 call(s)", exact=False).first.wait_for(timeout=15_000)
        page.screenshot(path=str(OUTPUT / "serve-approved.png"), full_page=True)
        assert page.get_by_text("waits for your approval", exact=False).count() == 0  # the row went
    [result] = results
    assert not isinstance(result, Exception), result
    assert not result.is_error and result.content[0].text == "42"


def test_a_served_tool_s_question_is_answered_by_typing_in_the_card(lab):
    with notebook_page(lab, 1200, 900, "serve-question-failure.png") as page:
        server_url, token = serving(page, lab)
        thread, results = call_in_background(server_url, token, "rename", {"path": "a.txt"})
        page.get_by_text("New name for a.txt?", exact=False).first.wait_for(timeout=30_000)
        box = page.get_by_placeholder("your answer", exact=False).first
        box.click()
        box.type("b.txt", delay=TYPING_DELAY_MS)
        page.screenshot(path=str(OUTPUT / "serve-question.png"), full_page=True)
        page.locator("button.widget-button", has_text="Send").first.click()
        thread.join(60)
        page.get_by_text("1 call(s)", exact=False).first.wait_for(timeout=15_000)
    [result] = results
    assert not isinstance(result, Exception), result
    assert not result.is_error and result.content[0].text == "renamed a.txt to b.txt"
