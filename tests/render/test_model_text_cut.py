"""A model's text is cut in every saved view, as tool results are, and kept whole in the Run
(docs/faults.md, "Cassettes": a 100 MB reply must not reach a transcript whole)."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.render import render_bundle, render_html, render_markdown, render_plain
from openprogram_jupyter.render._format import DEFAULT_MAX_TEXT_CHARS

HUNDRED_MB = 100_000_000


def _huge_text_run(size: int) -> op.Run:
    word = "x" * (size // 10 - 1) + " "  # ten words: ten deltas, not a hundred million
    return op.Runtime(model=op.ScriptedModel([word * 10])).run("Say a lot.", tools=[])


def test_a_100_mb_reply_is_cut_in_all_three_saved_formats_and_whole_in_the_run():
    run = _huge_text_run(HUNDRED_MB)
    assert len(run.text) == HUNDRED_MB
    left_out = HUNDRED_MB - DEFAULT_MAX_TEXT_CHARS
    note = f"… {left_out:,} more characters not shown (the full text is in run.messages)"
    for mime, text in render_bundle(run).items():
        assert len(text) < 2 * DEFAULT_MAX_TEXT_CHARS, (mime, len(text))
        assert note in text, mime
    assert len(run.text) == HUNDRED_MB, "the Run keeps the whole text"


def test_thinking_and_arguments_are_cut_too_and_the_limit_is_a_keyword():
    thinking = "t" * 5000
    big = op.AssistantMessage(
        content=[op.ThinkingContent(thinking=thinking), op.ToolCall(name="echo", arguments={"text": "a" * 5000})]
    )

    def echo(text: str) -> str:
        """Echo."""
        return "ok"

    run = op.Runtime(model=op.ScriptedModel([big, "b" * 5000])).run(
        "go", tools=[op.function(echo, register_globally=False)]
    )
    html = render_html(run, max_text_chars=100)
    assert "t" * 100 in html and "t" * 101 not in html
    assert "4,900 more characters not shown (the full text is in run.messages)" in html  # thinking and text
    assert "more characters not shown (the full arguments are in run.messages)" in html
    markdown = render_markdown(run, max_text_chars=100)
    assert "b" * 101 not in markdown and "*… 4,900 more characters not shown (the full text" in markdown
    plain = render_plain(run, max_text_chars=100)
    assert "b" * 101 not in plain and "… 4,900 more characters not shown" in plain


@pytest.mark.parametrize("limit", [0, -1])
def test_no_limit_shows_everything(limit):
    run = _huge_text_run(1000)
    assert "x" * 99 + " " + "x" * 99 in render_html(run, max_text_chars=limit)
    assert "not shown" not in render_html(run, max_text_chars=limit)


def test_a_text_within_the_limit_has_no_note():
    run = _huge_text_run(1000)
    for mime, text in render_bundle(run).items():
        assert "not shown" not in text, mime
