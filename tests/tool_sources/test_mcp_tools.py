"""MCP servers as tools: round trips over stdio and streamable HTTP against a real FastMCP
server, the gating layers, errors, Stop mid-call, and no server process left behind."""

from __future__ import annotations

import threading
import time

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry

from .servers import STDIO_COMMAND, process_exists, wait_until_gone

FULL_WAIT_SECONDS = 30.0


def call(name: str, **arguments) -> op.ToolCall:
    return op.ToolCall(name=name, arguments=arguments)


def results(run: op.Run) -> list[op.ToolResultMessage]:
    return [m for m in run.messages if isinstance(m, op.ToolResultMessage)]


def text_of(result: op.ToolResultMessage) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def scripted(runtime: op.Runtime, *items) -> op.ScriptedModel:
    model = op.ScriptedModel(list(items))
    runtime.model = model
    return model


def server_pid(runtime: op.Runtime) -> int:
    scripted(runtime, call("demo_pid"), "done")
    return int(text_of(results(runtime.run("pid?"))[0]))


def test_a_stdio_server_s_tools_are_registered_under_its_prefix(stdio_demo):
    assert stdio_demo.name == "demo"
    assert sorted(t.name for t in stdio_demo.tools) == [
        "demo_add",
        "demo_crash",
        "demo_env_value",
        "demo_fail",
        "demo_pid",
        "demo_wait",
    ]
    add = default_registry.get("demo_add")
    assert add is stdio_demo.tool("add")
    assert add.spec["description"] == "Add two numbers."
    assert add.spec["parameters"]["required"] == ["a", "b"]
    assert add.options.toolset == ("demo",)


def test_a_stdio_round_trip_feeds_the_server_s_answer_to_the_model(runtime, stdio_demo):
    model = scripted(runtime, call("demo_add", a=2, b=3), "The sum is 5.")
    run = runtime.run("Add 2 and 3.")
    assert run.stop_reason == "stop"
    [result] = results(run)
    assert not result.is_error and text_of(result) == "5.0"
    assert "demo_add" in [spec["name"] for spec in model.requests[0].tools]  # on the default menu


def test_a_server_in_tools_stands_for_its_tools(runtime, stdio_demo):
    """``tools=[server]``, as a toolset: exactly its tools, beside the others named."""

    @op.function(register_globally=False)
    def helper(x: int) -> int:
        """A notebook tool."""
        return x

    model = scripted(runtime, call("demo_add", a=2, b=3), "5.")
    run = runtime.run("Add 2 and 3.", tools=[stdio_demo, helper])
    assert run.stop_reason == "stop" and text_of(results(run)[0]) == "5.0"
    assert sorted(spec["name"] for spec in model.requests[0].tools) == sorted(
        [t.name for t in stdio_demo.tools] + ["helper"]
    )


def test_a_streamable_http_round_trip_on_loopback(runtime, http_url):
    server = op.mcp(url=http_url, name="web", runtime=runtime)
    scripted(runtime, call("web_add", a=1.5, b=2), "3.5")
    [result] = results(runtime.run("Add."))
    assert not result.is_error and text_of(result) == "3.5"
    assert server.connection.target.url == http_url


def test_every_gating_layer_applies_to_mcp_tools(runtime, stdio_demo):
    menu_of = lambda **options: runtime.prepare("x", **options).menu.names  # noqa: E731
    assert "demo_add" not in menu_of(tools_deny=["demo_add"])
    assert menu_of(tools_allow=["demo_add", "demo_pid"]) == ["demo_add", "demo_pid"]
    assert sorted(menu_of(toolset="demo")) == sorted(t.name for t in stdio_demo.tools)
    assert menu_of(toolset="none") == []
    reports = {r.name: r for r in default_registry.explain(tools_deny=["demo_fail"])}
    assert reports["demo_fail"].layer == "5" and reports["demo_add"].hidden_by is None


def test_tool_options_reach_every_tool_of_the_server(runtime):
    op.mcp(command=STDIO_COMMAND, runtime=runtime, name="gated", requires_approval=True, defer=True, unsafe_in=["web"])
    scripted(runtime, call("gated_add", a=1, b=1), "no")
    [result] = results(runtime.run("Add.", tools_source="cli"))
    assert result.status == "denied"  # requires approval, and no approver is configured
    assert "gated_add" not in runtime.prepare("x", tools_source="web").menu.names  # layer 3
    specs = runtime.prepare("x").menu.specs()
    assert [s["name"] for s in specs] == ["tool_search"] and "gated_add" in specs[0]["description"]  # layer 6


def test_an_unknown_tool_option_is_refused_before_connecting(runtime):
    with pytest.raises(TypeError, match=r"unknown option.*colour"):
        op.mcp(command=STDIO_COMMAND, runtime=runtime, colour="red")


def test_arguments_are_checked_against_the_server_s_schema_before_sending(runtime, stdio_demo):
    scripted(runtime, call("demo_add", a="two", b=3), "ok")
    [result] = results(runtime.run("Add."))
    assert result.is_error and "- a:" in text_of(result) and "number" in text_of(result), text_of(result)


def test_a_failed_call_on_the_server_is_an_error_result_the_model_reads(runtime, stdio_demo):
    scripted(runtime, call("demo_fail", why="no reason"), "I see.")
    run = runtime.run("Fail.")
    [result] = results(run)
    assert result.is_error and text_of(result) == (
        "Error: demo_fail failed: the MCP server reported an error: Error executing tool fail"
    )
    assert run.stop_reason == "stop"


def test_a_dead_server_is_an_error_result_and_the_run_goes_on(runtime, stdio_demo):
    scripted(runtime, call("demo_crash"), call("demo_add", a=1, b=2), "The server is gone.")
    run = runtime.run("Crash it.")
    crashed, after = results(run)
    assert crashed.is_error and "demo" in text_of(crashed) and "crashing on purpose" in text_of(crashed)
    assert after.is_error and text_of(after).startswith("Error: demo_add failed: ")
    assert "McpError" not in text_of(after)
    assert run.stop_reason == "stop" and run.text == "The server is gone."


def test_stop_cancels_an_in_flight_call_promptly(runtime, stdio_demo, tmp_path):
    marker = tmp_path / "marker"
    scripted(runtime, call("demo_wait", seconds=FULL_WAIT_SECONDS, marker=str(marker)), "never")
    handle = runtime.start("Wait.")
    deadline = time.monotonic() + 20
    while not (marker.exists() and "started" in marker.read_text()):
        assert time.monotonic() < deadline, "the server never started the call"
        time.sleep(0.02)
    stopped = time.monotonic()
    handle.abort()
    run = handle.wait(timeout=FULL_WAIT_SECONDS)
    latency = time.monotonic() - stopped
    print(f"\nStop → run ended in {latency:.3f} s")
    assert latency < 5.0  # generous on a loaded machine: unstopped, the call takes FULL_WAIT_SECONDS (30 s)
    assert run.stop_reason == "aborted" and results(run)[0].status == "cancelled"
    deadline = time.monotonic() + 5
    while "cancelled" not in marker.read_text():  # the server got notifications/cancelled
        assert time.monotonic() < deadline, "the server was never told the call was cancelled"
        time.sleep(0.02)
    scripted(runtime, call("demo_add", a=1, b=1), "2")
    assert text_of(results(runtime.run("Again."))[0]) == "2.0"  # the connection is still good


def test_a_token_handed_to_a_server_is_masked_when_the_server_echoes_it(runtime):
    token = "tok_" + "Vq8r" * 8  # no key shape: masked because it was handed over, by value
    op.mcp(command=STDIO_COMMAND, env={"DEMO_TOKEN": token}, runtime=runtime)
    scripted(runtime, op.ToolCall(name="demo_env_value", arguments={"name": "DEMO_TOKEN"}), "done")
    run = runtime.run("What is the token?")
    (result,) = results(run)
    assert result.status == "done" and text_of(result) == "***"
    assert token not in run._repr_html_() and token not in run._repr_markdown_() and token not in repr(run)


def test_closing_the_server_ends_its_process_and_unregisters_its_tools(runtime, stdio_demo):
    pid = server_pid(runtime)
    assert process_exists(pid)
    stdio_demo.close()
    stdio_demo.close()  # twice is harmless
    assert wait_until_gone(pid)
    assert default_registry.get("demo_add") is None and stdio_demo.closed


def test_closing_a_server_leaves_a_tool_the_user_registered_under_its_name(stdio_demo):
    @op.function
    def demo_add(a: int, b: int) -> int:
        """The user's own add, defined after the server connected."""
        return a + b

    assert default_registry.get("demo_add") is demo_add
    stdio_demo.close()
    assert default_registry.get("demo_add") is demo_add, "only the server's own tools are unregistered"
    assert default_registry.get("demo_pid") is None


def test_closing_the_runtime_ends_every_server_it_owns(stdio_demo, runtime):
    second = op.mcp(command=STDIO_COMMAND, name="other", runtime=runtime)
    pids = [server_pid(runtime)]
    scripted(runtime, call("other_pid"), "done")
    pids.append(int(text_of(results(runtime.run("pid?"))[0])))
    runtime.close()
    assert all(wait_until_gone(pid) for pid in pids)
    assert stdio_demo.closed and second.closed


def test_connecting_again_under_the_same_name_replaces_the_old_server(runtime, stdio_demo):
    old_pid = server_pid(runtime)
    again = op.mcp(command=STDIO_COMMAND, runtime=runtime)
    assert stdio_demo.closed and not again.closed
    assert default_registry.get("demo_add") is again.tool("add")
    assert wait_until_gone(old_pid)


def test_tools_of_a_server_not_registered_globally_are_used_through_tools(runtime):
    server = op.mcp(command=STDIO_COMMAND, runtime=runtime, register_globally=False, prefix="d_")
    assert default_registry.get("d_add") is None
    scripted(runtime, call("d_add", a=2, b=2), "4")
    assert text_of(results(runtime.run("Add.", tools=server.tools))[0]) == "4.0"


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({}, TypeError, "exactly one"),
        ({"command": ["x"], "url": "http://127.0.0.1:1/mcp"}, TypeError, "exactly one"),
        ({"command": []}, ValueError, "non-empty list"),
        ({"url": "ftp://example"}, ValueError, "http:// or https://"),
        ({"url": "http://127.0.0.1:1/mcp", "env": {"A": "1"}}, TypeError, "for a command"),
    ],
)
def test_bad_arguments_say_what_is_wrong(runtime, arguments, error, match):
    with pytest.raises(error, match=match):
        op.mcp(runtime=runtime, **arguments)


def test_a_command_that_cannot_start_is_an_mcp_error_naming_it(runtime):
    with pytest.raises(op.McpError, match="no-such-mcp-server"):
        op.mcp(command=["no-such-mcp-server-program"], runtime=runtime, connect_timeout=10)
    # Its thread ends on its own (on a loaded machine, a moment after the error is raised).
    deadline = time.monotonic() + 10
    while [t for t in threading.enumerate() if t.name == "openprogram-mcp" and t.is_alive()]:
        assert time.monotonic() < deadline, "the connection's thread outlived the failed start by 10 s"
        time.sleep(0.05)


def test_an_unreachable_url_is_an_mcp_error(runtime):
    with pytest.raises(op.McpError):
        op.mcp(url="http://127.0.0.1:9/mcp", runtime=runtime, connect_timeout=10)


def test_loading_the_extension_imports_neither_the_mcp_sdk_nor_distributed():
    import subprocess
    import sys

    code = (
        "import sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
        "InteractiveShell.instance().run_line_magic('load_ext', 'openprogram_jupyter')\n"
        "import openprogram_jupyter as op\nop.mcp, op.evaluate\n"  # the names resolve ...
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'distributed', 'dask'))\n"
        "print(loaded)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"  # ... and still nothing of either is imported


def test_a_server_that_never_answers_is_given_up_on_time_and_its_process_ended(runtime, tmp_path):
    """It was left running as an orphan, and the error came after 11 s for connect_timeout=3."""
    import sys

    from .servers import process_exists

    pid_file = tmp_path / "pid"
    silent = [
        sys.executable,
        "-c",
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)",
    ]
    started = time.monotonic()
    with pytest.raises(op.McpError, match="did not answer within 3 s"):
        op.mcp(command=silent, connect_timeout=3, runtime=runtime)
    waited = time.monotonic() - started
    assert waited < 6.0, f"gave up after {waited:.1f} s for a 3 s timeout"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 15
    while process_exists(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not process_exists(pid), "the server's process was left running"


def test_names_that_clash_once_made_valid_are_kept_apart_and_every_name_fits_every_provider():
    """Two remote tools whose names differ only in characters no provider accepts (or past
    64 characters) collapsed into one tool, the first hidden."""
    import re

    from openprogram_jupyter.tools._mcp_listing import unique_tool_names as _unique_tool_names

    long = "x" * 300
    names = _unique_tool_names("docs_", ["search.web", "search_web", "search-web", long, long + "y", "ok"])
    assert names[:3] == ["docs_search_web", "docs_search_web_2", "docs_search-web"]
    assert names[3] != names[4] and len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", name) for name in names)


def test_without_the_sdk_the_error_says_what_to_install_and_no_server_stopped(runtime, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "mcp", None)  # as if the extra were not installed
    with pytest.raises(op.McpError) as refused:
        op.mcp(command=STDIO_COMMAND, runtime=runtime, connect_timeout=10)
    message = str(refused.value)
    assert message.startswith("MCP servers need the official 'mcp' SDK") and "pip install" in message
    assert "stopped" not in message  # no server was started
    assert refused.value._render_traceback_() == [f"McpError: {message}"]  # IPython shows one line


def test_a_server_whose_tool_list_cannot_be_read_is_an_mcp_error_at_once(runtime):
    """A schema nested 400 deep cannot be parsed; the request then waited its whole timeout
    (or surfaced the SDK's own words) instead of saying what went wrong."""
    import sys
    from pathlib import Path

    deep = [sys.executable, str(Path(__file__).with_name("deep_server.py")), "400"]
    started = time.monotonic()
    with pytest.raises(op.McpError, match=r"sent a message that cannot be read \(ValidationError: .*recursion"):
        op.mcp(command=deep, connect_timeout=20, runtime=runtime)
    assert time.monotonic() - started < 10  # not the 20 s timeout
    shallow = op.mcp(command=[*deep[:2], "5"], connect_timeout=20, runtime=runtime)
    assert [t.name for t in shallow.tools] == ["deep_nest"]
