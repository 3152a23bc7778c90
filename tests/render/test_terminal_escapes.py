"""Terminal escapes from a tool or a model are shown, never obeyed, in plain text (and kept
as they are for the model); HTML and Markdown stay escaped (docs/faults.md, "Terminal
escapes"). The terminal IPython side is in tests/notebook/test_magic_in_process.py."""

from __future__ import annotations

import re

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core._controls import visible_controls
from openprogram_jupyter.render import render_bundle, render_plain

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;pwned\x07"
CURSOR = "\x1b[3A\x1b[2K"
COLOR = "\x1b[31mred\x1b[0m"
HOSTILE = f"{CLEAR}{TITLE}{CURSOR}{COLOR}\rover\bwrite\x9b1m<b>bold</b>"

# Anything a terminal would obey: C0 controls but tab and newline, DEL, C1.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def escaping_run() -> op.Run:
    @op.function(register_globally=False)
    def colour(text: str) -> str:
        """Colour some text."""
        return HOSTILE

    @op.function(register_globally=False)
    def crash() -> str:
        """Fail, loudly."""
        raise RuntimeError(HOSTILE)

    model = op.ScriptedModel(
        [
            op.AssistantMessage(
                content=[
                    op.TextContent(text=f"Here {HOSTILE}"),
                    op.ToolCall(name="colour", arguments={"text": HOSTILE}),
                ]
            ),
            op.ToolCall(name="crash"),
            f"Done {HOSTILE}",
        ]
    )
    return op.Runtime(model=model).run(f"Prompt {HOSTILE}", tools=[colour, crash])


def test_plain_text_shows_every_escape_and_obeys_none():
    run = escaping_run()
    for plain in (repr(run), render_plain(run), render_bundle(run)["text/plain"]):
        assert not CONTROL.search(plain), repr(CONTROL.search(plain))
        assert "␛[2J␛[H␛]0;pwned␇␛[3A␛[2K␛[31mred␛[0m␍over␈write\\x9b1m<b>bold</b>" in plain
        assert plain.count("␛[2J") >= 4  # the prompt, the reply, the result and the error


def test_the_model_and_the_record_keep_the_text_as_the_tool_gave_it():
    run = escaping_run()
    assert run.tool_results[0].content[0].text == HOSTILE
    assert HOSTILE in run.tool_results[1].content[0].text
    assert run.text == f"Done {HOSTILE}"


def test_html_and_markdown_stay_escaped():
    bundle = render_bundle(escaping_run())
    assert "<b>bold</b>" not in bundle["text/html"] and "&lt;b&gt;bold&lt;/b&gt;" in bundle["text/html"]
    markdown = bundle["text/markdown"]
    fenced = re.findall(r"^ *(`{3,})text\n(.*?)^ *\1$", markdown, re.DOTALL | re.MULTILINE)
    outside = re.sub(r"^ *(`{3,})\w*\n.*?^ *\1$", "", markdown, flags=re.DOTALL | re.MULTILINE)
    assert any("\x1b[2J" in body for _, body in fenced), "the text is inside a fence, as written"
    assert "\x1b" not in outside and "<b>" not in outside


def test_an_error_message_a_terminal_prints_shows_its_escapes():
    failing = op.AssistantMessage(stop_reason="error", error_message=f"HTTP 500: {CLEAR}{TITLE}")
    with pytest.raises(op.RunError) as raised:
        op.Runtime(model=op.ScriptedModel([failing])).exec("Hi.")
    assert not CONTROL.search(str(raised.value)) and "␛[2J␛[H␛]0;pwned␇" in str(raised.value)


@pytest.mark.parametrize(
    "text, shown",
    [
        ("plain text\twith a tab\nand lines", "plain text\twith a tab\nand lines"),
        ("windows\r\nline ends\r\n", "windows\nline ends\n"),
        ("\x1b[2J", "␛[2J"),
        ("bell\x07 backspace\x08 cr\r nul\x00 del\x7f", "bell␇ backspace␈ cr␍ nul␀ del␡"),
        ("c1 \x9b2J \x85", "c1 \\x9b2J \\x85"),
        ("unicode é ✓ 日本", "unicode é ✓ 日本"),
    ],
)
def test_visible_controls(text, shown):
    assert visible_controls(text) == shown
