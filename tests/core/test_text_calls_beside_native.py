"""Calls written as text beside the model's own calls (issue 45 item 3): a reply that holds
a native call is not read for text calls — its ``<tool_call>`` text stays text and runs
nothing — while a reply of text alone is read, a call wrapped in a ``function`` object
included; without ``text_tool_calls`` nothing written as text runs."""

from __future__ import annotations

import openprogram_jupyter as op

from .conftest import call

WRITTEN = '<tool_call>{"name": "delete", "arguments": {"path": "/"}}</tool_call>'
WRAPPED = '<tool_call>{"type": "function", "function": {"name": "read", "arguments": {"path": "b"}}}</tool_call>'


def _tools(ran: list[str]):
    @op.function
    def read(path: str) -> str:
        """Read."""
        ran.append(f"read {path}")
        return f"contents of {path}"

    @op.function
    def delete(path: str) -> str:
        """Delete."""
        ran.append(f"delete {path}")
        return "deleted"

    return [read, delete]


def test_a_reply_with_a_native_call_runs_only_it_and_keeps_its_written_call_as_text():
    ran: list[str] = []
    mixed = op.AssistantMessage(content=[op.TextContent(text=f"First this. {WRITTEN}"), call("read", path="a")])
    run = op.Runtime(model=op.ScriptedModel([mixed, "done"])).run("go", tools=_tools(ran), text_tool_calls=True)
    assert ran == ["read a"]
    first = run.messages[1]
    assert [c.name for c in first.tool_calls] == ["read"] and WRITTEN in first.text


def test_a_reply_of_text_alone_runs_its_written_calls_a_wrapped_one_included_and_only_when_asked():
    ran: list[str] = []
    text = f"{WRAPPED}\n{WRITTEN}"
    run = op.Runtime(model=op.ScriptedModel([text, "done"])).run("go", tools=_tools(ran), text_tool_calls=True)
    assert ran == ["read b", "delete /"]
    assert [c.arguments for c in run.messages[1].tool_calls] == [{"path": "b"}, {"path": "/"}]
    ran.clear()
    off = op.Runtime(model=op.ScriptedModel([text])).run("go", tools=_tools(ran))
    assert ran == [] and off.text == text
