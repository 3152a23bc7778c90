"""Real kernel: ``%agent serve`` driven by the official ``mcp`` client over streamable HTTP.

A kernel runs ``%agent serve --tools ...``; the client (this process) lists the tools — the
schemas ``%agent tools`` shows — and calls one, which shows in the serving cell's card; a
deny policy refuses a call, an ask policy waits for the card's "Always allow" (clicked as
a browser clicks), which answers the later calls, bad client input gets MCP errors,
redefining the function in the kernel is announced with
``notifications/tools/list_changed``, and ``%agent serve stop`` closes the port.

The card's updates and the approval row's widgets are sent while no cell runs, so the
client here reads them from the kernel's IOPub channel itself (:func:`messages_until`).
Only the current kernel: the ipykernel 6.29 venv is locked without the ``mcp`` extra.
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import socket
import time
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from .conftest import CURRENT
from .kernels import error_of, live_kernel, plain_output

pytestmark = pytest.mark.slow

TOOLS = '''\
%load_ext openprogram_jupyter
import openprogram_jupyter as op

@op.function
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@op.function
def shout(text: str, times: int = 1) -> str:
    """Shout the text."""
    return (text.upper() + "! ") * times
'''


@pytest.fixture
def kernel_name(kernelspecs) -> str:
    return CURRENT


async def start_serving(kernel, command: str = "%agent serve --tools add,shout --name nb") -> tuple[str, str, Any]:
    """Define the tools, run ``command``; the URL and token it printed, and its cell."""
    assert "error" not in str(error_of(await kernel.run(TOOLS)))
    cell = await kernel.run(command)
    assert error_of(cell) is None, error_of(cell)
    printed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
    url = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)\n", printed).group(1)
    token = re.search(r"every request needs it\): (\S+)\n", printed).group(1)
    return url, token, cell


def connect(url: str, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http))


def listed_schemas(tools_text: str) -> dict[str, Any]:
    """Each tool's schema as ``%agent tools`` prints it: after the count, per tool
    ``NAME: WHERE``, the description, then the schema as indented JSON."""
    schemas = {}
    _count, *blocks = re.split(r"\n(?=\S)", tools_text.strip())
    for block in blocks:
        head, _description, *schema = block.split("\n")
        schemas[head.split(":")[0]] = json.loads("\n".join(schema))
    return schemas


async def messages_until(kernel, found: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
    """Read the kernel's IOPub messages (sent while no cell runs) until ``found`` accepts one."""
    iopub = kernel.client.kc.iopub_channel
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            message = await iopub.get_msg(timeout=0.2)
        except queue.Empty:
            continue
        if found(message):
            return message
    raise AssertionError(f"no IOPub message matched within {timeout} s")


def card_update(display_id: str, text: str) -> Callable[[dict[str, Any]], bool]:
    def found(message: dict[str, Any]) -> bool:
        content = message["content"]
        return (
            message["msg_type"] == "update_display_data"
            and content.get("transient", {}).get("display_id") == display_id
            and text in content["data"]["text/plain"]
        )

    return found


async def test_a_client_lists_what_tools_shows_and_its_call_shows_in_the_card(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        url, token, cell = await start_serving(kernel)
        display_id = nbclient_display_id(kernel, cell)
        tools_text = plain_output(await kernel.run("%agent tools"))
        async with connect(url, token) as client:
            listed = await client.list_tools()
            result = await client.call_tool("add", {"a": 2, "b": 3})
        assert {t.name: t.input_schema for t in listed.tools} == listed_schemas(tools_text)
        assert set(listed_schemas(tools_text)) == {"add", "shout"}
        assert not result.is_error and [b.text for b in result.content] == ["5"]
        update = await messages_until(kernel, card_update(display_id, "add(a=2, b=3) → done"))
        assert "1 call(s)" in update["content"]["data"]["text/plain"]
        assert re.search(
            r"<td[^>]*><code>add</code></td><td[^>]*>a=2, b=3</td>", update["content"]["data"]["text/html"]
        )
        listing = plain_output(await kernel.run("%agent serve"))
        assert listing.startswith(f"nb: {url}, 1 call(s), tools add, shout")


def nbclient_display_id(kernel, cell: Any) -> str:
    """The display id of the server's card in ``cell`` (nbclient keeps which output has which)."""
    index = kernel.notebook.cells.index(cell)
    for display_id, places in kernel.client._display_id_map.items():
        for cell_index, outputs in places.items():
            if cell_index == index and any(
                "MCP server nb" in cell.outputs[o].get("data", {}).get("text/plain", "") for o in outputs
            ):
                return display_id
    raise AssertionError("the serving cell shows no card with a display id")


async def test_the_notebook_s_policy_governs_calls_and_bad_input_gets_mcp_errors(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        url, token, _cell = await start_serving(kernel)
        await kernel.text("runtime.approve = op.policy(deny=['shout'], ask=['add'])")
        async with connect(url, token) as client:
            denied = await client.call_tool("shout", {"text": "hi"})
            asked = asyncio.ensure_future(client.call_tool("add", {"a": 4, "b": 5}))
            opened = await messages_until(kernel, button_opened("Always allow"))
            kernel.click(opened["content"]["comm_id"])
            approved = await asked
            with pytest.raises(MCPError, match=r"unknown tool 'nope'; this server has: add, shout"):
                await client.call_tool("nope", {})
            wrong = await client.call_tool("add", {"a": "two", "b": 3})
            with pytest.raises(MCPError, match=r"the request body is larger than 1,000,000 bytes"):
                await client.call_tool("add", {"a": 1, "b": 2, "pad": "x" * 2_000_000})
            after = await client.call_tool("add", {"a": 1, "b": 1})  # "Always allow" answers it
        assert denied.is_error
        assert denied.content[0].text == "denied by rule 'deny shout' of the approval policy: shout did not run"
        assert not approved.is_error and approved.content[0].text == "9"
        assert wrong.is_error and "a: Input should be a valid integer" in wrong.content[0].text
        assert not after.is_error and after.content[0].text == "2"
        calls = "from openprogram_jupyter.jupyter._serve import served\nprint([c.status for c in served()[0].calls])"
        statuses = await kernel.text(calls)
        assert plain_output(await kernel.run("%agent policy")).count("allow add") == 1
        assert statuses.strip() == "['denied', 'done', 'error', 'done']"


def button_opened(label: str) -> Callable[[dict[str, Any]], bool]:
    """Whether an IOPub message opens a Button labelled ``label``."""

    def found(message: dict[str, Any]) -> bool:
        if message["msg_type"] != "comm_open":
            return False
        state = message["content"]["data"].get("state", {})
        return state.get("_model_name") == "ButtonModel" and state.get("description") == label

    return found


async def test_a_redefinition_is_announced_and_serve_stop_closes_the_port(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        url, token, _cell = await start_serving(kernel)
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        async with connect(url, token) as client:
            await client.list_tools()
            async with client.listen(tools_list_changed=True) as changes:
                await kernel.text(
                    "@op.function\ndef add(a: int, b: int, c: int = 0) -> int:\n"
                    '    """Add two or three integers."""\n    return a + b + c\n'
                )
                event = await asyncio.wait_for(anext(aiter(changes)), 10)
            listed = await client.list_tools()
            result = await client.call_tool("add", {"a": 1, "b": 2, "c": 3})
        assert type(event).__name__ == "ToolsListChanged"
        assert "c" in {t.name: t for t in listed.tools}["add"].input_schema["properties"]
        assert result.content[0].text == "6"
        stopped = await kernel.text("%agent serve stop nb")
        assert stopped.strip() == "stopped: nb"
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0
