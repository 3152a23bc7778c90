"""A real browser approves a call an MCP client makes to ``%agent serve``: the notebook's
policy asks about ``add``, the call waits in a row under the serving cell's card, and a
click on **Approve** in JupyterLab lets it run — the client (the official ``mcp`` client,
in this test's process, with the URL and token the cell printed) gets the result, and the
card counts the call. A screenshot of the waiting row goes to ``output/``.
"""

from __future__ import annotations

import asyncio
import re
import threading

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .lab import OUTPUT, chromium_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

SERVE_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef add(a: int, b: int) -> int:\n    '''Add two whole numbers.'''\n    return a + b\n\n"
    "runtime.approve = op.policy(ask=['add'])",
    "%agent serve --tools add --name nb",
]


def call_in_background(url: str, token: str, results: list[object]) -> threading.Thread:
    """Call ``add`` from the official client on a thread of its own; its result lands in ``results``."""

    async def call() -> object:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool("add", {"a": 20, "b": 22})

    def run() -> None:
        try:
            results.append(asyncio.run(asyncio.wait_for(call(), 120)))
        except Exception as error:  # reported by the test's assertion
            results.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_served_call_the_policy_asks_about_is_approved_in_the_card(lab):
    url, root = lab
    name = write_notebook(root, "serve.ipynb", SERVE_CELLS)
    with chromium_page(1200, 900, "serve-approval-failure.png") as page:
        open_and_run_all(page, f"{url}/lab/tree/{name}")
        printed = page.locator(".jp-OutputArea-output", has_text="Bearer token").first
        printed.wait_for(timeout=60_000)
        text = printed.inner_text()
        server_url = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", text).group(1)
        token = re.search(r"every request needs it\): (\S+)", text).group(1)
        results: list[object] = []
        thread = call_in_background(server_url, token, results)
        page.get_by_text("a call from an MCP client waits for your approval", exact=False).first.wait_for(
            timeout=30_000
        )
        row = page.locator(".widget-vbox", has_text="waits for your approval").last
        row.scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT / "serve-approval.png"), full_page=True)
        page.locator("button.widget-button", has_text="Approve").first.click()
        thread.join(60)
        page.get_by_text("1 call(s)", exact=False).first.wait_for(timeout=15_000)
        page.screenshot(path=str(OUTPUT / "serve-approved.png"), full_page=True)
        assert page.get_by_text("waits for your approval", exact=False).count() == 0  # the row went
    [result] = results
    assert not isinstance(result, Exception), result
    assert not result.is_error and result.content[0].text == "42"
