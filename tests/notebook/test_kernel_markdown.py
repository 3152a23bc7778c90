"""Real kernels: a Markdown answer renders as headings, tables and lists in the live view
and in the saved outputs, every injection payload in it stays inert, a DataFrame result
shows its table, and an approved call says so everywhere."""

from __future__ import annotations

from inert_html import Tags, assert_inert

from .kernels import STATIC_MIMES, error_of, live_kernel

PAYLOADS = (
    "<script>alert('answer')</script>\n\n"
    "<img src=x onerror=alert(1)>\n\n"
    "[click me](javascript:alert(1))\n\n"
    '<div onclick="alert(1)">a raw HTML block</div>\n\n'
    "<img src=http://tracker.example/pixel.png>\n\n"
    "![pixel](http://tracker.example/pixel.png)\n"
)
ANSWER = (
    "## Summary\n\n| city | temp |\n|:-----|-----:|\n| Oslo | 4 |\n\n- **first** point\n- second point\n\n" + PAYLOADS
)
SETUP = f"""\
%load_ext openprogram_jupyter
import openprogram_jupyter as op
ANSWER = {ANSWER!r}

class Frame:
    '''Stands in for a pandas DataFrame (recognized by its module, never imported).'''
    def _repr_html_(self):
        return "<table><tr><td>Frame cell</td><td onclick='x()'><script>alert(2)</script></td></tr></table>"
    def __repr__(self):
        return "Frame as text"
Frame.__module__ = "pandas.core.frame"

@op.function(requires_approval=True)
def table() -> object:
    '''A table.'''
    return Frame()

m = op.ScriptedModel([
    op.AssistantMessage(content=[op.ThinkingContent(thinking="**plan** <script>alert(3)</script>"),
                                 op.TextContent(text=ANSWER), op.ToolCall(name="table")]),
    "Done: *one* table. " + "More. " * 100,  # two seconds of streaming: the ended call is drawn live
], delay=0.02)
"""


def assert_answer_rendered(html: str) -> None:
    names = Tags(html).names()
    assert {"h2", "table", "th", "td", "ul", "li", "strong"} <= set(names), names
    assert "&lt;script&gt;alert('answer')&lt;/script&gt;" in html  # shown, as text
    assert "[image: pixel]" in html  # the remote image is a link, not loaded
    assert_inert(html)


async def test_markdown_answers_render_live_and_saved_and_payloads_stay_inert(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        cell, task = kernel.start("%%agent -m m -o r --tools table\nSummarize.")
        approve = await kernel.find_widget("ButtonModel", "the Approve button", description="Approve")
        # The call waits for the click: the live view draws the whole first reply meanwhile.
        await kernel.wait_for(
            lambda: any("[image: pixel]" in value for value in kernel.widget_values()),
            what="the whole answer in the live view",
        )
        kernel.click(approve)
        await kernel.wait_for(
            lambda: any("Frame cell" in value for value in kernel.widget_values()),
            what="the DataFrame's table in the ended call's card",
        )
        await task
        assert error_of(cell) is None, error_of(cell) and error_of(cell).traceback
        assert (await kernel.text("print(r.tool_results[0].text)")).strip() == "Frame as text"  # the model's text

        live = kernel.widget_values()
        assert_answer_rendered(next(value for value in live if "Summary" in value))
        for value in live:
            assert_inert(value)
        assert any("Frame cell" in value and "<table" in value for value in live)  # the DataFrame's card
        assert any("approved by the user" in value for value in live)

        [output] = [o for o in cell.outputs if o.output_type == "display_data"]
        assert set(output.data) == STATIC_MIMES
        saved_html = output.data["text/html"]
        assert_answer_rendered(saved_html)
        assert "<em>one</em>" in saved_html
        assert "Frame cell" in saved_html and "alert(2)" not in saved_html
        markdown = output.data["text/markdown"]
        assert "## Summary" in markdown and "| Oslo | 4 |" in markdown and "- **first** point" in markdown
        assert "&lt;script>alert('answer')&lt;/script>" in markdown and "<script" not in markdown
        assert "<img" not in markdown and "onerror=alert(1)" in markdown  # the tag is text
        for text in (saved_html, markdown, output.data["text/plain"]):
            assert "approved by the user" in text
