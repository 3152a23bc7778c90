"""What the client says and does for a server's features, against the stand-in server of
``feature_server.py`` (the npm reference server lacks them, or shows them only by chance)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry

FEATURE_SERVER = [sys.executable, str(Path(__file__).with_name("feature_server.py"))]


@pytest.fixture
def feature(runtime):
    return op.mcp(command=FEATURE_SERVER, name="feat", runtime=runtime)


def test_the_client_introduces_itself_with_the_package_name_and_version(runtime, feature):
    runtime.model = op.ScriptedModel([op.ToolCall(name="feat_whoami", arguments={}), "ok"])
    run = runtime.run("who are you?")
    assert run.tool_results[0].text == f"openprogram-jupyter {op.__version__}"


def _notices(run):
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


def test_a_tool_the_server_adds_mid_run_is_on_the_next_round_s_menu_and_said_so(runtime, feature):
    model = op.ScriptedModel(
        [
            op.ToolCall(name="feat_grow", arguments={"name": "extra"}),
            op.ToolCall(name="feat_extra", arguments={}),
            "done",
        ]
    )
    runtime.model = model
    run = runtime.run("grow a tool, then use it")
    assert run.stop_reason == "stop", run.error
    assert "feat_extra" not in [spec["name"] for spec in model.requests[0].tools]
    assert "feat_extra" in [spec["name"] for spec in model.requests[1].tools]
    assert [r.text for r in run.tool_results] == ["added extra", "hi from extra"]
    assert _notices(run) == ["the MCP server feat changed its tools: added feat_extra"]
    assert default_registry.get("feat_extra") is feature.tool("extra")  # later runs have it too


def test_a_tool_the_server_removes_mid_run_leaves_the_menu(runtime, feature):
    model = op.ScriptedModel([op.ToolCall(name="feat_shrink", arguments={"name": "whoami"}), "done"])
    runtime.model = model
    run = runtime.run("remove whoami")
    assert run.stop_reason == "stop", run.error
    assert "feat_whoami" in [spec["name"] for spec in model.requests[0].tools]
    assert "feat_whoami" not in [spec["name"] for spec in model.requests[1].tools]
    assert _notices(run) == ["the MCP server feat changed its tools: removed feat_whoami"]
    assert default_registry.get("feat_whoami") is None


def test_a_run_given_one_tool_of_the_server_is_not_given_the_ones_it_adds(runtime, feature):
    model = op.ScriptedModel([op.ToolCall(name="feat_grow", arguments={"name": "extra"}), "done"])
    runtime.model = model
    run = runtime.run("grow", tools=[feature.tool("grow")])
    assert run.stop_reason == "stop", run.error
    assert [spec["name"] for spec in model.requests[1].tools] == ["feat_grow"]
    assert _notices(run) == []


def test_a_tool_the_server_adds_is_not_given_to_a_run_whose_allow_list_leaves_it_out(runtime, feature):
    model = op.ScriptedModel([op.ToolCall(name="feat_grow", arguments={"name": "extra"}), "done"])
    runtime.model = model
    run = runtime.run("grow", tools_allow=["feat_grow", "feat_whoami"])
    assert "feat_extra" not in [spec["name"] for spec in model.requests[1].tools]
    assert run.stop_reason == "stop", run.error


def test_embedded_images_are_images_and_audio_and_blobs_are_one_line_notes(runtime, feature):
    model = op.ScriptedModel([op.ToolCall(name="feat_media", arguments={}), "done"])
    runtime.model = model
    run = runtime.run("media")
    assert run.stop_reason == "stop", run.error
    [result] = run.tool_results
    kinds = [type(block).__name__ for block in result.content]
    assert kinds == ["TextContent", "ImageContent", "TextContent", "TextContent", "TextContent", "TextContent"]
    texts = [block.text for block in result.content if isinstance(block, op.TextContent)]
    assert texts == [
        "before",
        "[audio file:///tone.wav: audio/wav, 16,044 bytes; not sent to the model]",
        "[audio: audio/wav, 16,044 bytes; not sent to the model]",
        "[binary resource file:///doc.pdf: application/pdf, 1,033 bytes; not sent to the model]",
        "after",
    ]
    assert result.content[1].mime_type == "image/png"
    assert len(str(model.requests[1].messages)) < 5_000  # no base64 of the 16 KB WAV as text


WIPE_AND_PEEK = [
    [
        op.ToolCall(name="feat_wipe", arguments={"path": "a"}),
        op.ToolCall(name="feat_peek", arguments={"path": "b"}),
    ],
    "done",
]


def _asked_about(runtime, approve):
    asked = []

    def ask(request):
        asked.append(request.tool_name)
        return True

    runtime.model = op.ScriptedModel(WIPE_AND_PEEK)
    run = runtime.run("wipe and peek", approve=approve(ask))
    assert run.stop_reason == "stop", run.error
    assert [r.text for r in run.tool_results] == ["wiped a", "peeked at b"]
    return asked, run


@pytest.mark.parametrize(
    "approve",
    [
        pytest.param(lambda ask: ask, id="no policy"),
        pytest.param(lambda ask: op.policy(ask_with=ask), id="policy default None"),
        pytest.param(lambda ask: op.policy(default="ask", allow=["feat_peek"], ask_with=ask), id="policy default ask"),
    ],
)
def test_a_tool_the_server_marks_destructive_asks_and_a_read_only_one_does_not(runtime, feature, approve):
    asked, _ = _asked_about(runtime, approve)
    assert asked == ["feat_wipe"]


def test_a_policy_that_allows_by_default_or_requires_approval_false_decides_instead(runtime):
    op.mcp(command=FEATURE_SERVER, name="feat", runtime=runtime, requires_approval=False)
    asked, _ = _asked_about(runtime, lambda ask: ask)
    assert asked == []
    op.mcp(command=FEATURE_SERVER, name="feat", runtime=runtime)
    asked, _ = _asked_about(runtime, lambda ask: op.policy(default="allow", ask_with=ask))
    assert asked == []


def test_the_card_and_the_transcripts_show_the_hints(runtime, feature):
    _, run = _asked_about(runtime, lambda ask: ask)
    assert feature.tool("wipe").hints == ("destructive",)
    assert feature.tool("peek").hints == ("read-only",)
    plain = repr(run)
    assert '▸ feat_wipe(path="a") → done · destructive' in plain
    assert '▸ feat_peek(path="b") → done · read-only' in plain
    assert "· destructive" in run._repr_html_() and "· read-only" in run._repr_markdown_()


def _updates(run, status):
    return [e.data for e in run.events if e.type == "tool_execution_update" and e.status == status]


def test_log_messages_are_lines_under_the_call_and_progress_without_a_total_is_a_count(runtime, feature):
    op.mcp(command=FEATURE_SERVER, name="feat", runtime=runtime, env={"TOKEN": "sk-feature-secret-1234"})
    runtime.model = op.ScriptedModel([op.ToolCall(name="feat_chatty", arguments={}), "done"])
    run = runtime.run("chat")
    assert run.stop_reason == "stop", run.error
    [result] = run.tool_results
    assert result.text == "chatted"  # the log lines are not the result
    assert result.details["output"] == [
        {"type": "stream", "name": "stderr", "text": '[warning] feature: careful: token ***\n[info] {"done": true}\n'}
    ]
    assert _updates(run, "progress") == ["1 · first half", "2"]
    assert "[warning] feature: careful: token ***" in repr(run)  # the transcript shows it under the call


def test_a_tool_the_server_adds_is_held_to_the_course_s_deny_globs(runtime, feature):
    from openprogram_jupyter.core import _course
    from openprogram_jupyter.core._course import CourseRules

    model = op.ScriptedModel([op.ToolCall(name="feat_grow", arguments={"name": "shell_x"}), "done"])
    runtime.model = model
    _course.install(CourseRules(tools_deny=("feat_shell_*",)))
    try:
        run = runtime.run("grow")
    finally:
        _course._forget_for_tests()
    assert run.stop_reason == "stop", run.error
    assert "feat_shell_x" not in [spec["name"] for spec in model.requests[1].tools]
    assert "feat_whoami" in [spec["name"] for spec in model.requests[1].tools]


def test_the_older_protocols_notification_is_acted_on_as_the_listen_stream_s():
    import asyncio

    from mcp.types import ToolListChangedNotification

    from openprogram_jupyter.tools._mcp_server_messages import ServerMessages

    messages, called = ServerMessages("a server"), []
    messages.on_tools_changed = lambda: called.append("changed")
    asyncio.run(messages.on_message(ToolListChangedNotification()))
    assert called == ["changed"]


def test_a_change_said_while_the_first_list_was_on_its_way_is_listed_again():
    from types import SimpleNamespace

    from openprogram_jupyter.tools._mcp_server_messages import ServerMessages
    from openprogram_jupyter.tools.mcp_source import McpServer

    relisted = []

    def submit(coroutine):
        relisted.append(coroutine.cr_code.co_name)
        coroutine.close()

    unasked = ServerMessages("a server")
    server = McpServer("s", "s_", SimpleNamespace(unasked=unasked, submit=submit), None)
    server.follow_changes(since=0)
    assert relisted == []  # nothing said since
    unasked.tool_changes = 1  # the server said so between the first list's request and its answer
    server.follow_changes(since=0)
    assert relisted == ["_relist"]
    unasked.on_tools_changed()  # and every later notice lists again
    assert relisted == ["_relist", "_relist"]
