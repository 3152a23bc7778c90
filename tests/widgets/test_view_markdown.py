"""The live view renders the model's Markdown (payloads inert), shows a result's rich
display, and says on each call's line whether the user approved or denied it."""

from __future__ import annotations

from inert_html import Tags, assert_inert

import openprogram_jupyter as op
from openprogram_jupyter.core.events import AssistantUpdate, MessageUpdateEvent
from openprogram_jupyter.core.messages import AssistantMessage
from openprogram_jupyter.jupyter._view import Controls, RunView

from .test_view import RUN, all_html, start_events

ANSWER = (
    "## Plan\n\n| step | done |\n|---|:-:|\n| read | yes |\n\n- **one**\n- two\n\n"
    "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))\n\n"
    "<div onclick='alert(1)'>block</div>\n\n![p](http://tracker.example/p.png)\n"
)


class Frame:
    """Stands in for a pandas DataFrame: recognized by its module and ``_repr_html_``."""

    __module__ = "pandas.core.frame"

    def _repr_html_(self) -> str:
        return "<table><tr><td>cell 1</td><td onmouseover='x()'><script>alert(2)</script></td></tr></table>"

    def __repr__(self) -> str:
        return "frame text"


def widget_values(view: RunView) -> list[str]:
    values: list[str] = []

    def walk(widget):
        if isinstance(getattr(widget, "value", None), str):
            values.append(widget.value)
        for child in getattr(widget, "children", ()):
            walk(child)

    walk(view.root)
    return values


def view_of(run: op.Run) -> RunView:
    view = RunView(Controls(stop=lambda: None))
    for event in run.events:
        view.feed(event)
    view.finish()
    return view


def test_the_answer_renders_as_markdown_and_its_payloads_stay_text(recorder):
    run = op.Runtime(
        model=op.ScriptedModel(
            [
                op.AssistantMessage(
                    content=[op.ThinkingContent(thinking="*quietly* <b>thinking</b>"), op.TextContent(text=ANSWER)]
                )
            ]
        )
    ).run("go")
    view = view_of(run)
    [answer] = [value for value in widget_values(view) if "Plan" in value]
    assert {"h2", "table", "th", "td", "ul", "li", "strong"} <= set(Tags(answer).names())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer and "[image: p]" in answer
    thinking = next(value for value in widget_values(view) if "quietly" in value)
    assert "<em>quietly</em>" in thinking and "&lt;b&gt;thinking&lt;/b&gt;" in thinking
    for value in widget_values(view):
        assert_inert(value)


def test_a_streaming_answer_renders_as_it_arrives_with_a_cursor(recorder):
    view = RunView(Controls(stop=lambda: None))
    for event in start_events():
        view.feed(event)
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="text_delta", delta="## Head\n\n- a\n- b"),
        )
    )
    view.tick(force=True)
    html = all_html(view)
    assert "<h2" in html and "<li>b▍</li>" in html


def test_a_dataframe_result_shows_its_sanitized_table_in_its_card(recorder):
    @op.function
    def table() -> object:
        """A table."""
        return Frame()

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="table"), "done"])).run("go", tools=[table])
    assert run.tool_results[0].text == "frame text"
    html = all_html(view_of(run))
    assert "cell 1" in html and "alert(2)" not in html and "onmouseover" not in html
    assert "frame text" in html  # what the model read, one click away
    assert_inert(html)


def test_each_call_says_whether_the_user_approved_or_denied_it(recorder):
    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete."""
        return f"deleted {path}"

    model = op.ScriptedModel(
        [
            [op.ToolCall(name="delete", arguments={"path": "a"}), op.ToolCall(name="delete", arguments={"path": "b"})],
            "done",
        ]
    )
    run = op.Runtime(model=model, approve=lambda request: request.arguments["path"] == "a").run("go", tools=[delete])
    html = all_html(view_of(run))
    assert html.count("approved by the user") == 1 and html.count("denied by the user") == 1


def test_a_running_approved_call_says_so_before_it_ends(recorder):
    from openprogram_jupyter.core.events import ToolExecutionStartEvent, ToolExecutionUpdateEvent

    view = RunView(Controls(stop=lambda: None))
    for event in start_events():
        view.feed(event)
    view.feed(ToolExecutionStartEvent(run_id=RUN, tool_call_id="c1", tool_name="delete", arguments={}))
    view.feed(ToolExecutionUpdateEvent(run_id=RUN, tool_call_id="c1", tool_name="delete", status="awaiting_approval"))
    view.tick(force=True)
    assert "approved by the user" not in all_html(view)
    view.feed(ToolExecutionUpdateEvent(run_id=RUN, tool_call_id="c1", tool_name="delete", status="approved"))
    view.tick(force=True)
    assert "approved by the user" in all_html(view)
