"""What the model reads when an MCP call fails or times out: words, not Python class names,
and no claim about sync tools (an MCP call is cancelled on the server)."""

from __future__ import annotations

import openprogram_jupyter as op

from .servers import STDIO_COMMAND


def test_an_mcp_timeout_says_the_call_was_cancelled_not_that_a_sync_tool_may_go_on(runtime, tmp_path):
    op.mcp(command=STDIO_COMMAND, runtime=runtime, timeout=0.5)
    script = [op.ToolCall(name="demo_wait", arguments={"seconds": 30, "marker": str(tmp_path / "m")}), "ok"]
    run = op.Runtime(model=op.ScriptedModel(script)).run("go", toolset="demo")
    assert run.tool_results[0].text == "Error: demo_wait timed out after 0.5 s and was cancelled"


def test_a_server_error_reaches_the_model_in_words(runtime):
    op.mcp(command=STDIO_COMMAND, runtime=runtime)
    script = [op.ToolCall(name="demo_fail", arguments={"why": "disk full"}), "ok"]
    run = op.Runtime(model=op.ScriptedModel(script)).run("go", toolset="demo")
    text = run.tool_results[0].text
    assert text == "Error: demo_fail failed: the MCP server reported an error: Error executing tool fail"
    assert "raised" not in text and "McpToolError" not in text


def test_a_server_whose_process_died_is_closed_and_says_so(runtime):
    server = op.mcp(command=STDIO_COMMAND, runtime=runtime)
    assert not server.closed and ", connected:" in repr(server)
    crash, add = op.ToolCall(name="demo_crash", arguments={}), op.ToolCall(name="demo_add", arguments={"a": 1, "b": 2})
    script = [crash, add, "ok"]
    run = op.Runtime(model=op.ScriptedModel(script)).run("go", toolset="demo")
    assert server.closed and ", closed:" in repr(server)
    assert run.tool_results[1].text.startswith("Error: demo_add failed: the MCP server")
