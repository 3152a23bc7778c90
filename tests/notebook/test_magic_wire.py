"""``%%agent --wire`` and ``%agent wire VAR [ROUND]`` in one process, against the loopback
server through the real OpenAI SDK."""

from __future__ import annotations

import json

import pytest
from fakeserver import Call, FakeServer, Turn
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.models.openai_chat import OpenAIChatModel

SECRET = "sk-test-SECRET-wire-0123456789"


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def _run_cell(shell, server, flags: str) -> None:
    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.script(Turn(calls=[Call("add", {"a": 2, "b": 3})]), Turn(text="It is 5."))
    shell.user_ns["m"] = OpenAIChatModel("gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    assert shell.run_cell(f"%%agent -m m -o r {flags}\nAdd 2 and 3.").success


def test_wire_flag_captures_and_the_line_command_shows_each_round(shell, server, capsys):
    _run_cell(shell, server, "--wire")
    capsys.readouterr()
    shell.run_line_magic("agent", "wire r")
    out = capsys.readouterr().out
    sizes = [len(json.dumps(r.body, ensure_ascii=False).encode()) for r in server.requests]
    assert f"round 1: {sizes[0]:,} bytes, 1 messages (1 new), 1 tools, tool_choice \"auto\", 11 in / 7 out" in out
    round_2 = out.split("round 2:")[1]
    assert round_2.startswith(f" {sizes[1]:,} bytes, 3 messages (2 new)")
    assert "  + [2] " in round_2 and "  + [0] " not in round_2  # only the messages new this round are marked
    assert SECRET not in out


def test_wire_html_is_collapsible_and_marks_new_messages(shell, server):
    from openprogram_jupyter.jupyter._wire_view import wire_bundle

    _run_cell(shell, server, "--wire")
    html = wire_bundle(shell.user_ns["r"], 2)["text/html"]
    assert html.count("<details>") >= 5
    assert html.count(" new</small>") == 2  # the assistant call and its tool result


def test_wire_without_the_flag_says_how_to_capture(shell, server):
    _run_cell(shell, server, "")
    with pytest.raises(UsageError, match="capture_wire=True"):
        shell.run_line_magic("agent", "wire r")


def test_wire_of_a_round_that_was_not_run_names_the_rounds(shell, server):
    _run_cell(shell, server, "--wire")
    with pytest.raises(UsageError, match="captured rounds are 1 to 2"):
        shell.run_line_magic("agent", "wire r 7")
