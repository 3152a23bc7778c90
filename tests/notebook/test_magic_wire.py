"""``%%agent --wire`` and ``%agent wire VAR [ROUND]`` in one process, against the loopback
server through the real OpenAI SDK."""

from __future__ import annotations

import json

import pytest
from fakeserver import Call, FakeServer, Turn
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._wire_view import HIGHLIGHT, wire_bundle
from openprogram_jupyter.models.openai_chat import OpenAIChatModel

SECRET = "sk-test-SECRET-wire-0123456789"
PROMPT = "Add 2 and 3, then keep adding."


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


def _run_cell(shell, server, flags: str, rounds: int = 2) -> None:
    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.script(*[Turn(calls=[Call("add", {"a": n, "b": 3})]) for n in range(rounds - 1)], Turn(text="It is 5."))
    shell.user_ns["m"] = OpenAIChatModel("gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    assert shell.run_cell(f"%%agent -m m -o r {flags}\n{PROMPT}").success


def test_wire_flag_captures_and_the_line_command_shows_each_round(shell, server, capsys):
    _run_cell(shell, server, "--wire")
    capsys.readouterr()
    shell.run_line_magic("agent", "wire r")
    out = capsys.readouterr().out
    sizes = [len(json.dumps(r.body, ensure_ascii=False).encode()) for r in server.requests]
    assert f'round 1: {sizes[0]:,} bytes, 1 messages (1 new), 1 tools, tool_choice "auto", 11 in / 7 out' in out
    round_2 = out.split("round 2:")[1]
    assert round_2.startswith(f" {sizes[1]:,} bytes, 3 messages (2 new)")
    assert "  + [2] " in round_2 and "[0]" not in round_2  # only the messages new this round are shown
    assert "(1 message(s) as in round 1)" in round_2
    assert "%agent wire r ROUND shows one round whole" in out
    assert SECRET not in out


def test_every_round_shows_only_what_changed_so_the_output_grows_linearly(shell, server):
    _run_cell(shell, server, "--wire", rounds=12)
    run = shell.user_ns["r"]
    assert run.rounds == 12
    shown = wire_bundle(run)
    for view in shown.values():
        assert view.count(PROMPT) == 1, "round 1's prompt is shown once, not again in each later round"
    whole = sum(len(json.dumps(r.body)) for r in server.requests)
    assert len(shown["text/plain"]) < whole / 3


def test_one_round_is_shown_whole_with_its_new_messages_open_and_its_frames(shell, server):
    _run_cell(shell, server, "--wire")
    run = shell.user_ns["r"]
    html = wire_bundle(run, 2)["text/html"]
    assert (
        html.count('<details><summary style="display:list-item"><small>[0] as in round 1</small>') == 1
    )  # closed, not marked
    assert html.count(" new</small>") == 2  # the assistant call and its tool result, each open and marked:
    for index in (1, 2):
        assert (
            f'<details open style="{HIGHLIGHT}"><summary style="display:list-item"><small>[{index}] new</small>' in html
        )
    assert f"reply frames ({len(run.wire(2)[1]['frames'])})" in html
    assert "It is 5." in html
    text = wire_bundle(run, 2)["text/plain"]
    assert "    [0] " in text and "  + [1] " in text and "  + [2] " in text


def test_a_changed_field_is_marked_with_its_new_value(shell, server, capsys):
    _run_cell(shell, server, "--wire --tool-choice add")
    capsys.readouterr()
    shell.run_line_magic("agent", "wire r 2")
    out = capsys.readouterr().out
    assert "changed since round 1: tool_choice" in out
    assert '  * tool_choice: "auto"' in out and "  * tools:" not in out


def test_a_failed_round_says_so_in_its_summary_and_shows_the_error_body(shell, server, capsys):
    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    server.script(Turn.http_error(400, "that request is not acceptable"))
    shell.user_ns["m"] = OpenAIChatModel("gpt-4.1-mini", api_key=SECRET, base_url=server.openai_base_url)
    shell.run_cell(f"%%agent -m m -o r --wire --keep-going\n{PROMPT}")
    capsys.readouterr()
    shell.run_line_magic("agent", "wire r 1")
    out = capsys.readouterr().out
    assert "no reply, failed (HTTP 400)" in out.splitlines()[0]
    assert "attempt 1 failed: " in out and "that request is not acceptable" in out


def test_wire_without_the_flag_says_how_to_capture(shell, server):
    _run_cell(shell, server, "")
    with pytest.raises(UsageError, match="capture_wire=True"):
        shell.run_line_magic("agent", "wire r")


def test_wire_of_a_round_that_was_not_run_names_the_rounds(shell, server):
    _run_cell(shell, server, "--wire")
    with pytest.raises(UsageError, match="captured rounds are 1 to 2"):
        shell.run_line_magic("agent", "wire r 7")


def test_wire_of_an_offline_run_says_it_has_no_wire_and_how_to_see_a_providers_request(shell):
    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    assert shell.run_cell("%%agent -m offline --tools add --wire -o r\nWhat is 2 + 3?").success
    with pytest.raises(UsageError, match=r"no wire.*run\.request_as\(1, 'openai'\)"):
        shell.run_line_magic("agent", "wire r")


def test_the_teaching_cells_show_round_2_as_openai_and_anthropic_receive_it(shell, capsys):
    """The two cells docs/wire.md gives for the teaching notebook, run as written."""

    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    shell.user_ns["op"] = op  # the notebook's first cell imports it
    assert shell.run_cell("%%agent -m offline --tools add --wire -o lesson_run\nWhat is 2 + 3?").success
    result = shell.run_cell(
        'op.side_by_side({\n    "OpenAI": lesson_run.request_as(2, "openai"),\n'
        '    "Anthropic": lesson_run.request_as(2, "anthropic"),\n})'
    )
    shell.user_ns.pop("lesson_run")
    shell.user_ns.pop("op")
    assert result.success, result.error_in_exec
    shown = result.result._repr_mimebundle_()
    openai_part, anthropic_part = shown["text/plain"].split("== Anthropic\n")
    assert '"role": "tool"' in openai_part and '"content": "5"' in openai_part
    assert '"type": "tool_result"' in anthropic_part and '"text": "5"' in anthropic_part
