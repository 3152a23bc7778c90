"""Real kernel: MCP servers as tools — round trips over stdio and streamable HTTP on
127.0.0.1 against a real FastMCP server, Stop clicked mid-call, and no server process left
once the kernel has shut down.

Only the current kernel: the ipykernel 6.29 venv is locked without the ``mcp`` extra.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tool_sources.servers import DEMO_SERVER, http_server, process_exists, wait_until_gone

from .conftest import CURRENT
from .kernels import REPO, error_of, live_kernel, plain_output

pytestmark = pytest.mark.slow

SETUP = f"""\
%load_ext openprogram_jupyter
import openprogram_jupyter as op, sys
demo = op.mcp(command=[sys.executable, {str(DEMO_SERVER)!r}])
print(op.__file__)
"""
FULL_WAIT_SECONDS = 30.0


@pytest.fixture
def kernel_name(kernelspecs) -> str:
    return CURRENT


async def setup(kernel) -> None:
    package = await kernel.text(SETUP)
    assert Path(package.strip()).is_relative_to(REPO)  # the kernel runs this checkout's code


async def test_a_stdio_server_round_trips_in_a_cell_and_is_listed(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel)
        await kernel.text("m = op.ScriptedModel([op.ToolCall(name='demo_add', arguments={'a': 2, 'b': 3}), 'Five.'])")
        cell = await kernel.run("%%agent -m m --mcp demo -o r\nAdd 2 and 3.")
        assert error_of(cell) is None
        assert "demo_add" in plain_output(cell)
        assert (await kernel.text("print(r.tool_results[0].content[0].text, r.text)")).split() == ["5.0", "Five."]
        listed = plain_output(await kernel.run("%agent tools"))
        assert "demo_add: on the menu" in listed and "demo_wait: on the menu" in listed


async def test_an_http_server_on_loopback_round_trips_in_a_cell(kernel_name):
    with http_server() as url:
        async with live_kernel(kernel_name) as kernel:
            await setup(kernel)
            await kernel.text(
                f"web = op.mcp(url={url!r}, name='web')\n"
                "m = op.ScriptedModel([op.ToolCall(name='web_add', arguments={'a': 1, 'b': 4}), 'ok'])"
            )
            cell = await kernel.run("%%agent -m m --mcp web -o r\nAdd.")
            assert error_of(cell) is None
            assert (await kernel.text("print(r.tool_results[0].content[0].text)")).strip() == "5.0"


async def test_stop_clicked_mid_call_cancels_it_on_the_server(kernel_name, tmp_path):
    marker = tmp_path / "marker"
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel)
        await kernel.text(
            f"m = op.ScriptedModel([op.ToolCall(name='demo_wait', arguments="
            f"{{'seconds': {FULL_WAIT_SECONDS}, 'marker': {str(marker)!r}}}), 'never'])"
        )
        started = time.monotonic()
        cell, task = kernel.start("%%agent -m m --mcp demo -o r\nWait.")
        await kernel.wait_for(
            lambda: marker.exists() and "started" in marker.read_text(), timeout=30, what="the server to start the call"
        )
        stop = await kernel.find_widget("ButtonModel", "the Stop button", description="Stop")
        clicked = time.monotonic()
        kernel.click(stop)
        await task
        latency = time.monotonic() - clicked
        print(f"\nStop click mid MCP call → cell finished in {latency:.3f} s")
        assert latency < 10.0 and time.monotonic() - started < FULL_WAIT_SECONDS  # generous: unstopped, 30 s
        assert error_of(cell) is None and "Stopped with the Stop button" in plain_output(cell)
        await kernel.wait_for(
            lambda: "cancelled" in marker.read_text(), timeout=5, what="the server to hear notifications/cancelled"
        )
        assert (await kernel.text("print(r.stop_reason, r.tool_results[0].status)")).split() == ["aborted", "cancelled"]


async def test_no_server_process_is_left_after_the_kernel_shuts_down(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel)
        pid = int(
            await kernel.text(
                "print(demo.connection.run(demo.connection.call_tool('pid', {}), 30).structured_content['result'])"
            )
        )
        assert process_exists(pid)
    assert wait_until_gone(pid), f"the MCP server (pid {pid}) outlived its kernel"
