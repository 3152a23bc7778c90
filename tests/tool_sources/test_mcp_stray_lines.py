"""A server's stdout line that is not JSON-RPC (a banner, a stray print) is logged and
skipped: the connection goes on, later calls of any length work, no traceback is printed."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import openprogram_jupyter as op

from .servers import STDIO_COMMAND


def _call(runtime: op.Runtime, name: str, **arguments) -> op.ToolResultMessage:
    runtime.model = op.ScriptedModel([op.ToolCall(name=name, arguments=arguments), "done"])
    run = runtime.run("call it")
    [result] = [m for m in run.messages if isinstance(m, op.ToolResultMessage)]
    return result


def _text(result: op.ToolResultMessage) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def test_a_banner_before_the_server_starts_breaks_no_later_call(runtime, tmp_path):
    server = op.mcp(command=STDIO_COMMAND, env={**os.environ, "DEMO_BANNER": "1"}, name="banner", runtime=runtime)
    for _ in range(2):  # each takes longer than the 0.1 s a waiter sleeps between checks
        result = _call(runtime, "banner_wait", seconds=0.3, marker=str(tmp_path / "marker"))
        assert not result.is_error, _text(result)
        assert _text(result) == "slept 0.3 s"
    assert server.connection.skipped_lines == ["demo server 1.0 starting (a banner on stdout)"]


def test_a_skipped_line_is_logged(runtime, caplog):
    with caplog.at_level(logging.INFO, logger="openprogram_jupyter.tools._mcp_connection"):
        op.mcp(command=STDIO_COMMAND, env={**os.environ, "DEMO_BANNER": "1"}, name="banner", runtime=runtime)
    assert any("skipped a line that is not JSON-RPC" in r.getMessage() for r in caplog.records)


def test_the_sdk_s_traceback_for_the_line_is_not_printed(tmp_path):
    """Outside pytest (whose log capture is a handler), no handler is configured: Python's
    last-resort handler printed the SDK's ``logger.exception`` traceback into the cell."""
    script = tmp_path / "banner.py"
    script.write_text(
        "import os, openprogram_jupyter as op\n"
        f"server = op.mcp(command={STDIO_COMMAND!r}, env={{**os.environ, 'DEMO_BANNER': '1'}}, name='banner')\n"
        "print(server.connection.skipped_lines)\n"
        "server.close()\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "banner on stdout" in done.stdout
    assert "Traceback" not in done.stderr and "Failed to parse" not in done.stderr, done.stderr
