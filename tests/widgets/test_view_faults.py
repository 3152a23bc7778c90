"""The live view under faults (docs/faults.md): a huge model text is cut on screen, and a
retry wait counts down."""

from __future__ import annotations

import time

import openprogram_jupyter as op
from openprogram_jupyter.core.events import (
    AgentEndEvent,
    AssistantUpdate,
    MessageEndEvent,
    MessageUpdateEvent,
    RetryWait,
)
from openprogram_jupyter.core.messages import AssistantMessage
from openprogram_jupyter.jupyter._view import RunView
from openprogram_jupyter.render._format import DEFAULT_MAX_TEXT_CHARS

from .test_view import RUN, FakeClock, all_html, delta, start_events, widget_values

SUMMARY = '<summary style="display:list-item">'  # every summary's opening tag (render/_details.py)


def test_a_huge_streamed_text_is_cut_on_screen_while_it_streams_and_after(recorder):
    view = RunView()
    for event in start_events():
        view.feed(event)
    view.feed(delta("y" * 3_000_000))
    view.tick(force=True)
    html = all_html(view)
    assert len(html) < 2 * DEFAULT_MAX_TEXT_CHARS
    assert f"… {3_000_000 - DEFAULT_MAX_TEXT_CHARS:,} more characters not shown (the full text is in" in html
    view.feed(delta("z" * 1_000_000))
    view.tick(force=True)
    assert f"… {4_000_000 - DEFAULT_MAX_TEXT_CHARS:,} more characters not shown" in all_html(view)
    assert "zzz" not in all_html(view), "what is shown is the start of the text"


def test_the_view_limit_is_a_constructor_option_and_a_run_keeps_its_text(recorder):
    view = RunView(max_text_chars=50)
    run = op.Runtime(model=op.ScriptedModel(["word " * 1000])).run("go", tools=[], on_event=view.feed)
    view.finish()
    html = all_html(view)
    assert "word " * 9 + "word" in html and "word " * 11 not in html  # Markdown drops the trailing space
    assert "… 4,950 more characters not shown" in html
    assert len(run.text) == 5000


def _wait_event(seconds: float, until: float, at: float) -> MessageUpdateEvent:
    wait = RetryWait(seconds=seconds, until=until, retry=1, max_retries=3, reason="rate limited (HTTP 429)")
    return MessageUpdateEvent(
        run_id=RUN,
        message=AssistantMessage(),
        timestamp=at,
        update=AssistantUpdate(kind="retry_wait", delta="", retry_wait=wait),
    )


def test_a_retry_wait_counts_down_in_the_live_view_then_says_it_retried(recorder):
    wall = FakeClock()
    wall.now = 1000.0
    view = RunView(wall_clock=wall)
    for event in start_events():
        view.feed(event)
    view.feed(_wait_event(60, until=1060.0, at=1000.0))
    view.tick(force=True)
    assert "rate limited (HTTP 429) — retrying in 60 s (retry 1 of 3)" in all_html(view)
    wall.now = 1002.0
    view.tick(force=True)  # no new event: the countdown moves on its own
    assert "rate limited (HTTP 429) — retrying in 58 s (retry 1 of 3)" in all_html(view)
    wall.now = 1060.5
    text = delta("Here is the answer.")
    view.feed(text.model_copy(update={"timestamp": 1060.5}))
    view.tick(force=True)
    html = all_html(view)
    assert "rate limited (HTTP 429) — waited 1 min 00 s, then retried (retry 1 of 3)" in html
    assert "retrying in" not in html and "Here is the answer." in html


def test_stop_during_a_wait_reads_as_stopped_in_the_live_view(recorder):
    wall = FakeClock()
    wall.now = 1000.0
    view = RunView(wall_clock=wall)
    for event in start_events():
        view.feed(event)
    view.feed(_wait_event(15, until=1015.0, at=1000.0))
    wall.now = 1003.0
    view.tick(force=True)
    assert "retrying in 12 s" in all_html(view)
    view.feed(MessageEndEvent(run_id=RUN, timestamp=1003.0, message=AssistantMessage(stop_reason="aborted")))
    view.feed(AgentEndEvent(run_id=RUN, timestamp=1003.0, messages=[], stop_reason="aborted"))
    view.finish()
    html = all_html(view)
    assert "rate limited (HTTP 429) — stopped during the 15.0 s wait before retry 1 of 3" in html
    assert "retrying in" not in html


def test_a_stopped_tool_that_would_not_stop_says_so_whole_on_its_one_line(recorder):
    """Issue 43, item 10: the result of a call abandoned at Stop says it may still be
    running, and the call's one line (live view, saved HTML, plain text) shows all of it."""
    import threading

    from openprogram_jupyter.jupyter._live import LiveRun

    release = threading.Event()

    @op.function
    def stubborn() -> str:
        """Ignores the stop."""
        release.wait(5)
        return "late"

    live = LiveRun(widgets=True, clicks=True)
    model = op.ScriptedModel([op.ToolCall(name="stubborn", arguments={}), "done"])
    handle = op.Runtime(model=model, cancel_grace=0.05).start(
        "go", tools=[stubborn], on_event=live.on_event, abort=live.abort
    )
    time.sleep(0.3)
    live.abort.set()
    run = handle.wait(10)
    release.set()
    live.tick(force=True)
    lines = [value for value in widget_values(live.view) if SUMMARY in value] + [run._repr_html_()]
    for html in lines:
        summary = html.split(SUMMARY, 1)[1].split("</summary>", 1)[0]
        assert "may still be running" in summary and "…" not in summary, summary
    assert "may still be running" in str(run)
