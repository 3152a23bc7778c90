"""Results collapse live as in the saved transcript, and a long run's view stays bounded."""

from __future__ import annotations

import itertools
import re

import openprogram_jupyter as op
from openprogram_jupyter.core.events import (
    AssistantUpdate,
    MessageEndEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
)
from openprogram_jupyter.core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from openprogram_jupyter.jupyter._view import Controls, RunView
from openprogram_jupyter.render import render_bundle

from .test_view import RUN, FakeClock, all_html, start_events, widget_values

SUMMARY = '<summary style="display:list-item">'  # every summary's opening tag (render/_details.py)

LOG = "\n".join(f"log line {i}" for i in range(300))


def call_events(call_id: str, name: str = "tail_log") -> list:
    call = ToolCall(id=call_id, name=name, arguments={"path": "/var/log/x"})
    return [
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_end", content_index=0, tool_call=call),
        )
    ]


def started(call_id: str, name: str = "tail_log") -> ToolExecutionStartEvent:
    return ToolExecutionStartEvent(run_id=RUN, tool_call_id=call_id, tool_name=name, arguments={"path": "/var/log/x"})


def ended(call_id: str, text: str, name: str = "tail_log") -> ToolExecutionEndEvent:
    result = ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=text)])
    return ToolExecutionEndEvent(
        run_id=RUN, tool_call_id=call_id, tool_name=name, result=result, status="done", duration=0.5
    )


def test_a_running_call_is_open_and_its_result_collapses_behind_a_preview_once_it_ends(recorder):
    view = RunView()
    for event in [*start_events(), *call_events("c1"), started("c1")]:
        view.feed(event)
    view.tick(force=True)
    html = all_html(view)
    assert "▶ running" in html and "&quot;path&quot;: &quot;/var/log/x&quot;" in html  # open: arguments shown
    assert "<details" not in html

    view.feed(ended("c1", LOG))
    view.tick(force=True)
    [line] = [v for v in widget_values(view) if "tail_log" in v]
    # One collapsed element: the summary previews the result, the 300 lines are behind it.
    assert line.startswith("<details ") and "<details open" not in line
    summary = line[line.index(SUMMARY) : line.index("</summary>")]
    assert "✓ done" in summary and "log line 0 log line 1" in summary and "log line 299" not in summary
    assert "log line 299" in line[line.index("</summary>") :]


def test_the_live_and_the_saved_view_draw_an_ended_call_alike(recorder):
    @op.function
    def tail_log(path: str) -> str:
        """Tail a log."""
        return LOG

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="tail_log", arguments={"path": "x"}), "ok"])).run(
        "go", tools=[tail_log]
    )
    view = RunView()
    for event in run.events:
        view.feed(event)
    view.finish()
    [live] = [v for v in widget_values(view) if "tail_log" in v]
    saved = render_bundle(run)["text/html"]
    assert _summary(live) == _summary(saved[saved.index("<details") :])
    assert "<details open" not in saved


def _summary(html: str) -> str:
    summary = html[html.index(SUMMARY) : html.index("</summary>")]
    return re.sub(r"\d+\.\d+ s", "X s", summary)


def _echo_tool():
    @op.function(register_globally=False)
    def echo(n: int) -> int:
        """Echo a number."""
        return n

    return echo


def _watch(script: list, ticks_every: int) -> tuple[RunView, op.Run, list[int], object]:
    """Run ``script`` with a view redrawn every ``ticks_every`` events; the open widgets
    after each redraw."""
    clock = FakeClock()
    view = RunView(Controls(stop=lambda: None, steer=lambda text: None), clock=clock)
    counts: list[int] = []
    seen = [0]

    def on_event(event):
        view.feed(event)
        seen[0] += 1
        if seen[0] % ticks_every == 0:
            clock.now += 1.0
            view.tick()
            counts.append(view.pool.count)

    run = op.Runtime(model=op.ScriptedModel(script)).run(
        "go", tools=[_echo_tool()], on_event=on_event, max_tool_calls=None, max_iterations=None
    )
    view.finish()
    counts.append(view.pool.count)
    return view, run, counts, clock


WIDGET_BOUND = 120
"""A generous bound on the widgets a top-level view without nested runs has open (the
frame's 10, a round's 12 items and 3 lines, 3–4 rounds, an open card's 3 to 9, spares;
bench/view_scaling.py measures about 50)."""


def test_a_reply_of_3000_calls_keeps_the_widget_count_bounded(recorder):
    reply = [op.ToolCall(name="echo", arguments={"n": i}) for i in range(3000)]
    view, run, counts, _ = _watch([reply, "done"], ticks_every=97)
    assert len(run.tool_results) == 3000
    assert max(counts) < WIDGET_BOUND, max(counts)
    assert view.pool.created < WIDGET_BOUND  # widgets that leave the screen are reused
    html = all_html(view)
    assert re.search(r"… 2,9\d\d calls \(2,9\d\d done\) earlier in this round: not drawn live", html)
    assert "echo" in html and "(n=2999)" in html  # the latest calls are drawn
    # Reused widgets show their new call: the drawn calls are the last ones, in order.
    drawn = [int(n) for n in re.findall(r"\(n=(\d+)\)</span>", html)]
    assert drawn == list(range(drawn[0], 3000)) and len(drawn) <= 12
    # Comms: each widget has a layout (and most a style); closed with the view.
    view.close()
    assert recorder.opened() <= recorder.closed()


def test_a_run_of_400_rounds_keeps_the_widget_count_bounded(recorder):
    script = [op.ToolCall(name="echo", arguments={"n": i}) for i in range(400)] + ["done"]
    view, run, counts, _ = _watch(script, ticks_every=41)
    assert len(run.tool_results) == 400
    assert max(counts) < WIDGET_BOUND, max(counts)
    assert view.pool.created < 2 * WIDGET_BOUND
    html = all_html(view)
    assert re.search(r"… \d{3} rounds, \d{3} calls \(\d{3} done\) earlier: not drawn live", html), html[:2000]
    assert "401 rounds" in view.header.value  # finished: the count, not the round running
    assert re.search(r">done</(p|pre)>", html)  # the final answer is drawn


def test_the_view_of_a_short_run_draws_everything(recorder):
    reply = [op.ToolCall(name="echo", arguments={"n": i}) for i in range(6)]
    view, _run, _counts, _ = _watch([reply, "done"], ticks_every=5)
    html = all_html(view)
    assert all(f"(n={i})" in html for i in range(6))
    assert "not drawn live" not in html


def test_a_window_moves_in_steps_so_drawn_calls_keep_their_widgets(recorder):
    view = RunView()
    for event in start_events():
        view.feed(event)
    for i in range(40):
        view.feed(
            MessageUpdateEvent(
                run_id=RUN,
                message=AssistantMessage(),
                update=AssistantUpdate(
                    kind="toolcall_end",
                    content_index=i,
                    tool_call=ToolCall(id=f"c{i}", name="echo", arguments={"n": i}),
                ),
            )
        )
    calls = [ToolCall(id=f"c{i}", name="echo", arguments={"n": i}) for i in range(40)]
    view.feed(MessageEndEvent(run_id=RUN, message=AssistantMessage(content=calls, stop_reason="toolUse")))
    boxes = []
    for i in range(40):
        view.feed(started(f"c{i}", "echo"))
        view.feed(ended(f"c{i}", str(i), "echo"))
        view.tick(force=True)
        [round_box] = view.body.children[0].children  # start_events() has no prompt
        boxes.append(tuple(round_box.children))
    moves = sum(1 for a, b in itertools.pairwise(boxes) if a[2:3] != b[2:3])
    assert moves <= 40 // 4 + 1  # the first drawn item changes once per step of 4, not per call
