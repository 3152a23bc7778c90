"""An MCP server's toolset options (issue 45 item 3): the tools are always in the toolset
named after the server, and in the toolsets given too (a string or a list); ``prefix``
names them ("" keeps the server's own names); ``name`` names the server and its toolset."""

from __future__ import annotations

import openprogram_jupyter as op

from .servers import STDIO_COMMAND

DEMO_TOOLS = ["add", "crash", "env_value", "fail", "pid", "wait"]


def _menu(runtime: op.Runtime, toolset: str) -> list[str]:
    return sorted(runtime.prepare("x", toolset=toolset).menu.names)


def test_given_toolsets_are_added_to_the_one_named_after_the_server(runtime):
    server = op.mcp(
        command=STDIO_COMMAND,
        runtime=runtime,
        name="demo",
        toolset="maths",
        register_globally=False,
        registry=runtime.registry,
    )
    assert {tool.options.toolset for tool in server.tools} == {("demo", "maths")}
    assert _menu(runtime, "demo") == _menu(runtime, "maths") == [f"demo_{t}" for t in DEMO_TOOLS]
    listed = op.mcp(
        command=STDIO_COMMAND,
        runtime=runtime,
        name="other",
        toolset=["a", "other", "b"],
        register_globally=False,
        registry=runtime.registry,
    )
    assert {tool.options.toolset for tool in listed.tools} == {("other", "a", "b")}


def test_a_prefix_names_the_tools_and_an_empty_one_keeps_the_server_s_names(runtime):
    bare = op.mcp(command=STDIO_COMMAND, runtime=runtime, name="bare", prefix="", register_globally=False)
    assert sorted(t.name for t in bare.tools) == DEMO_TOOLS
    short = op.mcp(
        command=STDIO_COMMAND, runtime=runtime, name="long_server_name", prefix="m_", register_globally=False
    )
    assert sorted(t.name for t in short.tools) == [f"m_{t}" for t in DEMO_TOOLS]
    assert {t.options.toolset for t in short.tools} == {("long_server_name",)}
