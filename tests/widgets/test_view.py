"""The live view without a kernel: widgets send their messages to a recording comm."""

from __future__ import annotations

import asyncio
import base64
from collections import Counter

from sample_models import NoticingModel

import openprogram_jupyter as op
from openprogram_jupyter.core.events import (
    AgentEndEvent,
    AgentStartEvent,
    AssistantUpdate,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    TurnStartEvent,
)
from openprogram_jupyter.core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from openprogram_jupyter.jupyter._view import Controls, RunView

RUN = "run_test"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def start_events(run_id: str = RUN, depth: int = 0, parent: str | None = None) -> list:
    return [
        AgentStartEvent(run_id=run_id, depth=depth, parent_tool_call_id=parent, model="scripted", tools=["add"]),
        TurnStartEvent(run_id=run_id, depth=depth, parent_tool_call_id=parent, turn=1),
        MessageStartEvent(run_id=run_id, depth=depth, parent_tool_call_id=parent, message=AssistantMessage()),
    ]


def delta(text: str, index: int = 0) -> MessageUpdateEvent:
    return MessageUpdateEvent(
        run_id=RUN,
        message=AssistantMessage(),
        update=AssistantUpdate(kind="text_delta", content_index=index, delta=text),
    )


def html_values(recorder, widget) -> list[str]:
    return [
        m.data["state"]["value"]
        for m in recorder.updates()
        if m.comm_id == widget.comm_id and "value" in m.data["state"]
    ]


def widget_values(view: RunView) -> list[str]:
    """Every string value in the view's widget tree, in tree order."""
    out = []

    def walk(widget):
        value = getattr(widget, "value", None)
        if isinstance(value, str):
            out.append(value)
        for child in getattr(widget, "children", ()):
            walk(child)

    walk(view.root)
    return out


def all_html(view: RunView) -> str:
    """Every HTML value in the view's widget tree, concatenated."""
    return "\n".join(widget_values(view))


def test_update_rate_stays_bounded_under_a_5000_delta_stream(recorder):
    clock = FakeClock()
    recorder.clock = clock
    view = RunView(Controls(stop=lambda: None), clock=clock, max_hz=10)
    for event in start_events():
        view.feed(event)
    view.tick(force=True)
    recorder.messages.clear()

    # 5,000 deltas over two seconds, the ticker asked every 5 ms (far faster than 10 Hz).
    words = [f"w{i} " for i in range(5000)]
    for i, word in enumerate(words):
        clock.now = 1.0 + i * (2.0 / 5000)
        view.feed(delta(word))
        if i % 12 == 0:
            view.tick()
    clock.now = 3.5
    view.tick()

    updates = recorder.updates()
    per_widget_per_second: Counter = Counter((m.comm_id, int(m.at)) for m in updates)
    assert max(per_widget_per_second.values()) <= 10
    # ... and nothing was lost: the text widget ends with every delta, in order.
    text_widgets = [w for w in recorder.opened() if any("w4999" in v for v in _values(recorder, w))]
    assert len(text_widgets) == 1
    assert "".join(words).strip() in _values(recorder, text_widgets[0])[-1]
    assert len(updates) < 120  # about ten redraws a second of a handful of widgets


def _values(recorder, comm_id: str) -> list[str]:
    return [
        m.data["state"]["value"]
        for m in recorder.updates()
        if m.comm_id == comm_id and "value" in m.data.get("state", {})
    ]


def test_throttle_redraws_only_once_a_full_interval_has_passed(recorder):
    """The throttle's decisions on a simulated clock: the default rate is 10 redraws a
    second, a tick within 0.1 s of the last redraw (the view draws itself when it is made,
    here at 0.0) does nothing and sends nothing, a forced one always redraws."""
    clock = FakeClock()
    recorder.clock = clock
    view = RunView(Controls(stop=lambda: None), clock=clock)
    assert view.max_hz == 10
    for event in start_events():
        view.feed(event)
    times = [0.05, 0.101, 0.15, 0.2, 0.202, 0.3, 0.303, 0.6, 0.65, 0.701]
    decisions, sent = [], []
    for t in times:
        clock.now = t
        view.feed(delta(f"t{t} "))
        before = len(recorder.messages)
        decisions.append(view.tick())
        sent.append(len(recorder.messages) > before)
    assert decisions == [False, True, False, False, True, False, True, True, False, True]
    assert sent == decisions  # a refused tick sends no widget message
    clock.now = 0.71
    assert view.tick(force=True) is True
    assert view.ticks == decisions.count(True) + 1
    assert "t0.701" in all_html(view)  # what was fed while refused is drawn by the next redraw


def test_throttle_follows_the_rate_it_is_given():
    clock = FakeClock()
    view = RunView(Controls(stop=lambda: None), clock=clock, max_hz=4)
    decisions = []
    for t in (0.2, 0.26, 0.4, 0.52, 0.6):
        clock.now = t
        decisions.append(view.tick())
    assert decisions == [False, True, False, True, False]


def test_a_real_run_streaming_5000_words_is_redrawn_a_bounded_number_of_times(recorder):
    """The whole path on the real clock: a model streaming 5,000 words, events from the
    loop, a ticker asking 500 times a second. The bound is generous (the throttle's own
    decisions are tested on a simulated clock above); what this adds is that a real run's
    events reach the view and end drawn whole."""
    import time

    model = op.ScriptedModel(["word " * 5000])
    runtime = op.Runtime(model=model)
    view = RunView(Controls(stop=lambda: None))
    asked = 0

    async def main():
        nonlocal asked
        task = asyncio.ensure_future(runtime.arun("talk", tools=[], on_event=view.feed))
        while not task.done():
            await asyncio.sleep(0.002)
            asked += 1
            view.tick()
        view.finish()
        return task.result()

    start = time.monotonic()
    run = asyncio.run(main())
    took = time.monotonic() - start
    assert run.stop_reason == "stop"
    assert view.ticks <= took * 10 + 2  # at most 10 redraws a second, and the final one
    assert ("word " * 5000).strip() in all_html(view)


def test_model_and_tool_strings_are_escaped(recorder):
    view = RunView()
    for event in start_events():
        view.feed(event)
    view.feed(delta("<script>alert('model')</script>"))
    call = ToolCall(id="c1", name="add", arguments={"a": "<img onerror=x>"})
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_start", content_index=1, tool_call=call),
        )
    )
    result = ToolResultMessage(
        tool_call_id="c1", tool_name="add", content=[TextContent(text="<script>alert('tool')</script>")]
    )
    view.feed(
        ToolExecutionEndEvent(
            run_id=RUN, tool_call_id="c1", tool_name="add", result=result, status="done", duration=0.1
        )
    )
    view.tick(force=True)
    html = all_html(view)
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert('model')" in html  # the text is rendered Markdown: the tag is text
    assert "&lt;script&gt;alert(&#x27;tool&#x27;)" in html


def test_a_card_shows_the_call_from_streaming_to_done(recorder):
    view = RunView()
    for event in start_events():
        view.feed(event)
    call = ToolCall(id="c1", name="add", arguments={})
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_start", content_index=0, tool_call=call),
        )
    )
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_delta", content_index=0, delta='{"a": 1, '),
        )
    )
    view.tick(force=True)
    assert "streaming" in all_html(view)
    assert "{&quot;a&quot;: 1, " in all_html(view)  # raw fragments while streaming

    done = ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_end", content_index=0, tool_call=done),
        )
    )
    view.feed(ToolExecutionStartEvent(run_id=RUN, tool_call_id="c1", tool_name="add", arguments={"a": 1, "b": 2}))
    view.tick(force=True)
    html = all_html(view)
    assert "running" in html
    assert "&quot;b&quot;: 2" in html and "\n" in html  # pretty-printed once complete

    result = ToolResultMessage(tool_call_id="c1", tool_name="add", content=[TextContent(text="3")])
    view.feed(
        ToolExecutionEndEvent(
            run_id=RUN, tool_call_id="c1", tool_name="add", result=result, status="done", duration=0.25
        )
    )
    view.tick(force=True)
    html = all_html(view)
    assert "✓ done" in html and "0.25 s" in html
    assert ">3</pre>" in html


def test_a_nested_run_is_drawn_inside_the_card_of_the_call_that_opened_it(recorder):
    @op.agentic_function
    def research(topic: str, runtime=None) -> str:
        """Research a topic."""
        return runtime.exec(f"inner {topic}", tools=[])

    model = op.ScriptedModel(
        [op.ToolCall(name="research", arguments={"topic": "owls"}), "inner answer", "outer answer"]
    )
    view = RunView()
    run = op.Runtime(model=model).run("go", tools=[research], on_event=view.feed)
    view.finish()
    assert run.stop_reason == "stop"
    outer_round = view.body.children[0].children[1]  # prompt, round 1
    # The call has ended: its line holds the nested run, collapsed with the result.
    card = next(c for c in outer_round.children if "<details" in getattr(c, "value", ""))
    nested_html = "\n".join(_walk_values(card))
    assert "nested run" in nested_html and "inner answer" in nested_html
    assert "outer answer" not in nested_html


def test_arguments_streaming_in_never_show_a_growing_prefix_of_a_known_key(recorder, monkeypatch):
    key = "live-token-" + "Q7x" * 10  # known by value only: no key shape to catch it
    monkeypatch.setenv("OPENAI_API_KEY", key)
    view = RunView()
    for event in start_events():
        view.feed(event)
    call = ToolCall(id="c1", name="login", arguments={})
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_start", content_index=0, tool_call=call),
        )
    )
    written = f'{{"token": "{key}", "user": "ada"}}'
    shown = []
    for start in range(0, len(written), 6):  # fragments of six characters, each drawn
        view.feed(
            MessageUpdateEvent(
                run_id=RUN,
                message=AssistantMessage(),
                update=AssistantUpdate(kind="toolcall_delta", content_index=0, delta=written[start : start + 6]),
            )
        )
        view.tick(force=True)
        shown.append(all_html(view))
    for html in shown:
        assert key[:12] not in html  # no prefix of the key long enough to be one, at any moment
    assert "***" in shown[-1] and "ada" in shown[-1]


def _walk_values(widget):
    value = getattr(widget, "value", None)
    if isinstance(value, str):
        yield value
    for child in getattr(widget, "children", ()):
        yield from _walk_values(child)


def test_stop_click_asks_once_and_a_second_click_only_says_so(recorder):
    stops = []
    view = RunView(Controls(stop=lambda: stops.append(1)))
    for event in start_events():
        view.feed(event)
    view.stop_button.click()
    view.stop_button.click()
    view.tick(force=True)
    assert stops == [1]
    assert view.stop_button.description == "Stopping…" and view.stop_button.disabled
    assert "already requested" in view.notes.value


def test_stop_click_after_the_run_ended_is_a_clear_no_op(recorder):
    stops = []
    view = RunView(Controls(stop=lambda: stops.append(1)))
    for event in start_events():
        view.feed(event)
    view.feed(AgentEndEvent(run_id=RUN, messages=[], stop_reason="stop"))
    view.finish()
    view.on_stop_click()
    assert stops == []
    assert "already ended" in view.notes.value
    assert view.stop_button.disabled


def test_approve_and_deny_buttons_appear_while_a_call_waits_and_answer_it(recorder):
    decisions = []
    waiting = {"c1"}
    view = RunView(Controls(decide=lambda cid, ok: decisions.append((cid, ok)), awaiting=lambda: set(waiting)))
    for event in start_events():
        view.feed(event)
    call = ToolCall(id="c1", name="delete_files", arguments={"path": "/tmp/x"})
    view.feed(
        MessageUpdateEvent(
            run_id=RUN,
            message=AssistantMessage(),
            update=AssistantUpdate(kind="toolcall_end", content_index=0, tool_call=call),
        )
    )
    view.feed(
        ToolExecutionUpdateEvent(run_id=RUN, tool_call_id="c1", tool_name="delete_files", status="awaiting_approval")
    )
    view.tick(force=True)
    buttons = [w for w in _walk_widgets(view.root) if getattr(w, "description", None) in ("Approve", "Deny")]
    assert {b.description for b in buttons} == {"Approve", "Deny"}
    assert "awaiting approval" in all_html(view)
    next(b for b in buttons if b.description == "Deny").click()
    assert decisions == [("c1", False)]
    waiting.clear()
    view.tick(force=True)
    assert not [w for w in _walk_widgets(view.root) if getattr(w, "description", None) == "Approve"]


def _walk_widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk_widgets(child)


def test_a_huge_result_is_cut_with_a_note_and_images_are_shown(recorder):
    view = RunView(shown_result_chars=100)
    for event in start_events():
        view.feed(event)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 20).decode()
    result = ToolResultMessage(
        tool_call_id="c1",
        tool_name="plot",
        content=[TextContent(text="x" * 5000), op.ImageContent(data=png, mime_type="image/png")],
    )
    view.feed(
        ToolExecutionEndEvent(
            run_id=RUN, tool_call_id="c1", tool_name="plot", result=result, status="done", duration=0.1
        )
    )
    view.tick(force=True)
    html = all_html(view)
    assert "x" * 100 in html and "x" * 101 not in html
    # 5,000 characters and "\n[image 1]", where the image sits in the text the model reads
    assert "4,910 more characters not shown" in html
    # The ended call is drawn as the saved transcript draws it: the image embedded.
    assert html.count(f'src="data:image/png;base64,{png}"') == 1


def test_finish_then_close_closes_every_widget_comm(recorder):
    view = RunView()
    for event in start_events():
        view.feed(event)
    view.feed(delta("hello"))
    view.tick(force=True)
    view.finish()
    view.close()
    assert recorder.opened() and recorder.opened() <= recorder.closed()


def test_steering_text_is_queued_and_the_box_cleared_by_the_ticker(recorder):
    sent = []
    view = RunView(Controls(steer=sent.append))
    for event in start_events():
        view.feed(event)
    view.steer_box.value = "also check the units"
    view.steer_button.click()
    assert sent == ["also check the units"]
    assert view.steer_box.value == "also check the units"  # the click handler writes no widget
    view.tick(force=True)
    assert view.steer_box.value == ""
    assert "1 message queued" in view.header.value


def test_a_failing_view_stops_redrawing_but_the_run_and_its_transcript_go_on(recorder, monkeypatch):
    from openprogram_jupyter.jupyter._live import LiveRun

    live = LiveRun(widgets=True, clicks=True)

    def broken_redraw(now):
        raise RuntimeError("draw bug")

    monkeypatch.setattr(live.view, "_redraw", broken_redraw)
    run = op.Runtime(model=op.ScriptedModel(["fine"])).run("hi", tools=[], on_event=live.on_event)
    live.tick(force=True)
    live.tick(force=True)  # not retried
    assert isinstance(live.view_error, RuntimeError)
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, raw: shown.append(bundle))
    live.finish(run)
    assert "fine" in shown[0]["text/plain"] and "live view stopped updating" in shown[0]["text/plain"]


def test_every_event_type_reaches_the_view_and_the_notice_reads_as_in_the_saved_transcript(recorder):
    from openprogram_jupyter.core.events import EVENT_TYPES
    from openprogram_jupyter.render import render_bundle

    @op.function
    def report(context: op.ToolContext) -> str:
        """Report progress."""
        context.report("halfway")
        return "reported"

    view = RunView()
    run = op.Runtime(model=NoticingModel()).run("go", tools=[report], on_event=view.feed)
    view.finish()
    html = all_html(view)
    notice = "note: this provider cannot express parallel_tool_calls=False"
    assert notice in html and notice in render_bundle(run)["text/html"]
    assert "progress: halfway" in html and "let me report" in html and "all reported" in html
    assert ">reported</pre>" in html

    def changed(context: op.ToolContext) -> str:  # the one event a run does not emit: a rerun's divergence
        """Report progress."""
        return "reported anew"

    rerun_view = RunView()
    rerun = run.rerun(tools=[op.function(changed, name="report", register_globally=False)], on_event=rerun_view.feed)
    # a compaction's events reach every view in core/test_compaction.py
    assert {event.type for event in [*run.events, *rerun.events]} == set(EVENT_TYPES) - {"compaction"}
    rerun_view.finish()
    html = all_html(rerun_view)
    assert "differs from the recording: report returned a different result" in html
    assert ">recorded</th>" in html and ">reported</pre>" in html and ">reported anew</pre>" in html


def test_a_cells_live_run_passes_its_rate_to_its_view(recorder):
    # %%agent hands AgentMagics.updates_per_second to LiveRun (tests/notebook/
    # test_magic_in_process.py); this is the rest of the way, to the throttle.
    from openprogram_jupyter.jupyter._live import LiveRun

    assert LiveRun(widgets=True, clicks=True, max_hz=4.0).view.max_hz == 4.0
    assert LiveRun(widgets=True, clicks=True).view.max_hz == 10.0
