"""The steering box (Enter sends; queued, then delivered), progress bars, and the header's
elapsed time in tenths of a second."""

from __future__ import annotations

import time

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageStartEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.jupyter._steering import SUBMIT_WAIT
from openprogram_jupyter.jupyter._view import Controls, RunView
from openprogram_jupyter.render._progress import progress_fraction, progress_text

from .test_view import RUN, FakeClock, all_html, start_events


def frontend_sends(widget, data: dict) -> None:
    """What a browser's comm message does to a widget in the kernel."""
    widget._handle_msg({"content": {"data": data}, "buffers": []})


def press_enter(box, typed: str | None) -> None:
    """A browser with ``continuous_update=False``: Enter sends ``submit``, then the text."""
    frontend_sends(box, {"method": "custom", "content": {"event": "submit"}})
    if typed is not None:
        frontend_sends(box, {"method": "update", "state": {"value": typed}, "buffer_paths": []})


def steering_view(sent: list[str], clock: FakeClock | None = None) -> RunView:
    view = RunView(Controls(steer=sent.append), clock=clock or FakeClock())
    for event in start_events():
        view.feed(event)
    view.tick(force=True)
    return view


def test_the_box_sends_its_text_only_when_enter_is_pressed(recorder):
    assert steering_view([]).steer_box.continuous_update is False


def test_enter_queues_the_message_and_it_shows_as_queued_then_delivered(recorder):
    sent: list[str] = []
    view = steering_view(sent)
    press_enter(view.steer_box, "also check the units")
    assert sent == ["also check the units"]
    view.tick(force=True)
    assert view.steer_box.value == ""
    assert "◷ queued" in view.steering.sent.value and "also check the units" in view.steering.sent.value
    assert "1 message queued" in view.header.value

    view.feed(MessageStartEvent(run_id=RUN, message=UserMessage(content="also check the units")))
    view.tick(force=True)
    assert "✓ delivered" in view.steering.sent.value and "queued" not in view.steering.sent.value
    assert "queued" not in view.header.value


def test_enter_on_text_that_had_already_arrived_sends_it_after_a_short_wait(recorder):
    clock = FakeClock()
    sent: list[str] = []
    view = steering_view(sent, clock)
    frontend_sends(view.steer_box, {"method": "update", "state": {"value": "typed, then left"}, "buffer_paths": []})
    assert sent == []  # the box lost focus: its text arrived, but nothing is sent
    press_enter(view.steer_box, typed=None)  # Enter later, on the same text: no new value comes
    clock.now += SUBMIT_WAIT / 2
    view.tick(force=True)
    assert sent == []
    clock.now += SUBMIT_WAIT
    view.tick(force=True)
    assert sent == ["typed, then left"]


def test_enter_on_an_empty_box_sends_nothing(recorder):
    clock = FakeClock()
    sent: list[str] = []
    view = steering_view(sent, clock)
    press_enter(view.steer_box, typed="   ")
    clock.now += 2 * SUBMIT_WAIT
    view.tick(force=True)
    assert sent == [] and view.steering.sent.value == ""


def test_a_message_still_queued_when_the_run_ends_reads_not_delivered(recorder):
    view = steering_view([])
    press_enter(view.steer_box, "too late")
    view.feed(AgentEndEvent(run_id=RUN, messages=[], stop_reason="stop"))
    view.finish()
    assert "not delivered: the run ended first" in view.steering.sent.value
    assert view.steer_box.disabled and view.steer_button.disabled


def test_a_message_sent_with_enter_reaches_the_model_in_a_real_run(recorder):
    from openprogram_jupyter.jupyter._live import LiveRun

    live = LiveRun(widgets=True, clicks=True)
    assert live.view is not None
    box = live.view.steer_box

    @op.function
    def work() -> str:
        """Work."""
        press_enter(box, "use metric units")  # the user types while the tool runs
        return "worked"

    model = op.ScriptedModel([op.ToolCall(name="work"), lambda request: "I read: " + request.messages[-1].text])
    runtime = op.Runtime(model=model)
    run = runtime.run("go", tools=[work], on_event=live.on_event, get_steering_messages=live.take_steering)
    assert run.text == "I read: use metric units"
    live.view.tick(force=True)
    assert "✓ delivered" in live.view.steering.sent.value


def progress_view(data) -> RunView:
    view = RunView()
    for event in start_events():
        view.feed(event)
    view.feed(ToolExecutionStartEvent(run_id=RUN, tool_call_id="c1", tool_name="load", arguments={}))
    view.feed(ToolExecutionUpdateEvent(run_id=RUN, tool_call_id="c1", tool_name="load", status="progress", data=data))
    view.tick(force=True)
    return view


@pytest.mark.parametrize(
    ("data", "width", "words"),
    [
        ({"step": 3, "of": 10}, "30%", "3 of 10 (30%)"),
        (0.4, "40%", "40%"),
        ({"progress": 0.25, "message": "reading"}, "25%", "25% · reading"),
        ({"step": 12, "of": 10}, "100%", "12 of 10 (100%)"),
    ],
)
def test_a_report_carrying_a_fraction_shows_a_progress_bar(recorder, data, width, words):
    html = all_html(progress_view(data))
    assert 'role="progressbar"' in html and f"width:{width}" in html
    assert words in html


@pytest.mark.parametrize("data", ["halfway", {"rows": 10}, 3, 1.5, True, {"step": 1, "of": 0}])
def test_a_report_without_a_fraction_shows_its_text(recorder, data):
    html = all_html(progress_view(data))
    assert 'role="progressbar"' not in html
    assert f"progress: {progress_text(data)}" in html.replace("&#x27;", "'")


def test_what_counts_as_a_fraction():
    assert progress_fraction(0) == 0.0 and progress_fraction(1) == 1.0
    assert progress_fraction({"step": 0, "of": 4}) == 0.0
    assert progress_fraction(True) is None and progress_fraction(-0.1) is None
    assert progress_fraction({"progress": "0.5"}) is None
    assert progress_text({"step": 2.5, "of": 10}) == "2.5 of 10 (25%)"


def test_the_elapsed_time_shows_tenths_under_ten_seconds(recorder):
    started = time.time()
    wall = [started]
    view = RunView(wall_clock=lambda: wall[0])
    view.feed(AgentStartEvent(run_id=RUN, model="scripted", tools=[], timestamp=started))
    shown = []
    for offset in (0.0, 0.34, 3.47, 9.96, 25.6, 75.0):
        wall[0] = started + offset
        view.tick(force=True)
        shown.append(view.header.value.split(" · ")[3])
    assert shown == ["0.0 s", "0.3 s", "3.4 s", "9.9 s", "25 s", "1 min 15 s"]
