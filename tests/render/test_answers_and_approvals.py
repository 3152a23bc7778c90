"""The saved transcript: answers as Markdown in HTML and text/markdown (payloads inert),
tool results verbatim beside their rich display, and each approval in every format."""

from __future__ import annotations

import re

import pytest
from inert_html import Tags, assert_inert
from markdown_it import MarkdownIt

import openprogram_jupyter as op
from openprogram_jupyter.render import render_bundle
from openprogram_jupyter.tools.registry import default_registry

ANSWER = (
    "## Findings\n\n| name | value |\n|---|--:|\n| a | 1 |\n\n- **first**\n- second\n\n"
    "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))\n\n"
    "<div onclick='alert(1)'>raw</div>\n\n<img src=http://tracker.example/p.png>\n"
)


@pytest.fixture(autouse=True)
def clean_registry():
    default_registry.clear()
    yield
    default_registry.clear()


class Frame:
    """Stands in for a pandas DataFrame."""

    __module__ = "pandas.core.frame"

    def _repr_html_(self) -> str:
        return "<table><tr><td>frame cell</td><td><script>alert(2)</script><img src=http://x/y.png></td></tr></table>"

    def __repr__(self) -> str:
        return "frame <as> text"


def answered_run() -> op.Run:
    @op.function
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @op.function
    def frame() -> object:
        """A table."""
        return Frame()

    model = op.ScriptedModel(
        [
            op.AssistantMessage(
                content=[
                    op.ThinkingContent(thinking="*hmm* <b>x</b>"),
                    op.TextContent(text=ANSWER),
                    op.ToolCall(name="echo", arguments={"text": "## not a heading"}),
                ]
            ),
            op.ToolCall(name="frame"),
            ANSWER,
        ]
    )
    return op.Runtime(model=model).run("go", tools=[echo, frame])


def test_html_renders_the_answer_and_keeps_results_verbatim():
    html = render_bundle(answered_run())["text/html"]
    assert_inert(html)
    names = Tags(html).names()
    assert names.count("h2") == 2 and {"table", "th", "td", "ul", "li", "strong", "em"} <= set(names)
    assert "<h2" in html and "## not a heading" in html  # a tool's text is never Markdown
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "alert(2)" not in html
    assert "frame cell" in html and "frame &lt;as&gt; text" in html  # the display, and the text the model read


def test_markdown_carries_the_answer_as_markdown_with_raw_html_escaped():
    markdown = render_bundle(answered_run())["text/markdown"]
    assert "\n## Findings\n" in markdown and "| a | 1 |" in markdown and "\n- **first**\n" in markdown
    assert "&lt;script>alert(1)&lt;/script>" in markdown and "> *hmm* &lt;b>x&lt;/b>" in markdown
    assert "`[HTML display, " in markdown
    viewer = MarkdownIt("commonmark", {"html": True}).enable("table")  # renders raw HTML, like most viewers
    html = viewer.render(markdown)
    assert Tags(html).names().count("div") == 1 and html.startswith('<div class="mathjax_ignore')  # ours
    assert not {"script", "img"} & set(Tags(html).names()), Tags(html).names()
    assert not re.search(r'href="(?i:javascript):', html)
    assert {"h2", "table", "li", "strong"} <= set(Tags(html).names())


def test_plain_text_shows_the_markdown_as_written():
    plain = render_bundle(answered_run())["text/plain"]
    assert "## Findings" in plain and "<script>alert(1)</script>" in plain
    assert "[HTML display, " in plain


def approval_run() -> op.Run:
    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    model = op.ScriptedModel(
        [
            [op.ToolCall(name="delete", arguments={"path": "a"}), op.ToolCall(name="delete", arguments={"path": "b"})],
            "done",
        ]
    )
    return op.Runtime(model=model, approve=lambda request: request.arguments["path"] == "a").run("go", tools=[delete])


@pytest.mark.parametrize("mime", ["text/html", "text/markdown", "text/plain"])
def test_every_format_says_who_approved_and_who_denied(mime):
    text = render_bundle(approval_run())[mime]
    assert text.count("approved by the user") == 1 and text.count("denied by the user") == 1
    assert text.index("approved by the user") < text.index("denied by the user")


def test_a_run_rebuilt_from_its_messages_keeps_the_answers():
    run = approval_run()
    run.events = []  # a Run loaded from messages has no events
    text = render_bundle(run)["text/plain"]
    assert "→ done · approved by the user" in text and "→ denied · denied by the user" in text


def test_a_denial_without_anyone_asked_is_only_denied():
    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        return path

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="delete", arguments={"path": "a"}), "ok"])).run(
        "go", tools=[delete]
    )
    for text in render_bundle(run).values():
        assert "denied" in text and "by the user" not in text


def test_a_run_displays_itself_the_same_way():
    run = answered_run()
    html = run._repr_html_()
    assert "<h2" in html and "<table" in html and "&lt;script&gt;alert(1)" in html
    assert_inert(html)
    assert "\n## Findings\n" in run._repr_markdown_()
