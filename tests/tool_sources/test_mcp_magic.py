"""MCP tools in the notebook (in one process): ``%%agent --mcp``, ``%agent tools``, ``%agent schema``."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _LOADED

from .servers import STDIO_COMMAND


@pytest.fixture
def shell(monkeypatch, runtime):
    from IPython.core.interactiveshell import InteractiveShell

    for key in ("OPENPROGRAM_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "openprogram_jupyter")
    ip.user_ns["demo"] = op.mcp(command=STDIO_COMMAND, runtime=runtime)
    yield ip
    for name in ("demo", "m", "r", "helper"):
        ip.user_ns.pop(name, None)


def test_mcp_flag_puts_exactly_that_server_s_tools_with_the_named_ones_on_the_menu(shell):
    @op.function
    def helper(x: int) -> int:
        """A notebook tool."""
        return x

    shell.user_ns["helper"] = helper
    plan = _LOADED[id(shell)].plans("--mcp demo --tools helper", "Add.")[0]
    assert sorted(plan.spec.menu.names) == [
        "demo_add",
        "demo_crash",
        "demo_env_value",
        "demo_fail",
        "demo_pid",
        "demo_wait",
        "helper",
    ]


def test_tools_flag_takes_a_server_variable_as_its_tools(shell):
    plan = _LOADED[id(shell)].plans("--tools demo", "Add.")[0]
    assert sorted(plan.spec.menu.names) == [
        "demo_add",
        "demo_crash",
        "demo_env_value",
        "demo_fail",
        "demo_pid",
        "demo_wait",
    ]


def test_an_mcp_cell_round_trips_through_the_server(shell):
    shell.user_ns["m"] = op.ScriptedModel([op.ToolCall(name="demo_add", arguments={"a": 4, "b": 5}), "9"])
    assert shell.run_cell("%%agent -m m --mcp demo -o r\nAdd 4 and 5.").success
    run = shell.user_ns["r"]
    assert run.tool_results[0].content[0].text == "9.0" and run.text == "9"


def test_mcp_flag_names_a_server_that_is_not_connected(shell):
    with pytest.raises(UsageError, match="--mcp nowhere: no MCP server"):
        _LOADED[id(shell)].plans("--mcp nowhere", "Add.")


def test_mcp_flag_refuses_a_closed_server(shell):
    shell.user_ns["demo"].close()
    with pytest.raises(UsageError, match="was closed"):
        _LOADED[id(shell)].plans("--mcp demo", "Add.")


def test_mcp_flag_and_toolset_together_are_refused(shell):
    with pytest.raises(UsageError, match="--mcp or --toolset"):
        _LOADED[id(shell)].plans("--mcp demo --toolset demo", "Add.")


def test_agent_tools_and_schema_show_mcp_tools(shell, capsys):
    shell.run_line_magic("agent", "tools")
    listed = capsys.readouterr().out
    assert "demo_add: on the menu" in listed and "Add two numbers." in listed
    shell.run_line_magic("agent", "schema demo_add")
    schema = capsys.readouterr().out
    assert "demo_add" in schema and "openai" in schema and '"number"' in schema
