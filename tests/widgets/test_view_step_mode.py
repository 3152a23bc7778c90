"""Step mode in the live view: each pick waits in its card for Run, Edit, Skip or Stop."""

from __future__ import annotations

import time

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.events import (
    AssistantUpdate,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from openprogram_jupyter.core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from openprogram_jupyter.jupyter._live import LiveRun
from openprogram_jupyter.jupyter._view import Controls, RunView

from .test_view import RUN, _walk_widgets, start_events, widget_values

SUMMARY = '<summary style="display:list-item">'  # every summary's opening tag (render/_details.py)


def card_widgets(live: LiveRun, kind: str, **state):
    return [
        w
        for w in _walk_widgets(live.view.root)
        if type(w).__name__ == kind and all(getattr(w, k, None) == v for k, v in state.items())
    ]


def wait_for(live: LiveRun, condition, what: str, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        live.tick(force=True)
        found = condition()
        if found:
            return found
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def click(live: LiveRun, description: str) -> None:
    """Click the ``description`` button of the waiting pick's card (not the view's own Stop)."""
    buttons = wait_for(
        live,
        lambda: (
            live.awaiting()
            and [b for b in card_widgets(live, "Button", description=description) if b is not live.view.stop_button]
        ),
        f"the {description} button of a waiting card",
    )
    buttons[0].click()


def editor(live: LiveRun):
    """The argument editor on screen now (a box that has sent its text is replaced by a fresh one)."""
    return wait_for(live, lambda: card_widgets(live, "Textarea"), "the editor")[0]


def start_stepped(tools, script):
    live = LiveRun(widgets=True, clicks=True, step=True)
    model = op.ScriptedModel(script)
    handle = op.Runtime(model=model).start(
        "go", tools=tools, step=True, approve=live.approve, on_event=live.on_event, abort=live.abort
    )
    return live, handle, model


def make_add():
    ran = []

    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        ran.append((a, b))
        return a + b

    return add, ran


def test_run_edit_and_skip_answer_each_pick_from_its_card(recorder):
    add, ran = make_add()
    calls = [op.ToolCall(name="add", arguments={"a": i, "b": i}) for i in (1, 2, 3)]
    live, handle, model = start_stepped([add], [*calls, "done"])
    # Pick 1: Run.
    click(live, "Run")
    wait_for(live, lambda: ran == [(1, 1)], "pick 1 to run")
    # Pick 2: Edit, first with JSON that is not an object, then with what the schema refuses.
    click(live, "Edit")
    assert '"a": 2' in editor(live).value  # filled with the model's arguments
    editor(live).value = "[1, 2]"
    click(live, "Run edited")
    wait_for(
        live,
        lambda: "must be one JSON object" in "".join(w.value for w in card_widgets(live, "HTML")),
        "the JSON error in the card",
    )
    assert editor(live).value == "[1, 2]"  # a fresh box (it can send again), holding what was typed
    editor(live).value = '{"a": "many", "b": 1}'
    click(live, "Run edited")
    wait_for(live, lambda: "Nothing ran" in "".join(w.value for w in card_widgets(live, "HTML")), "the schema error")
    assert ran == [(1, 1)] and len(live.awaiting()) == 1  # still waiting
    editor(live).value = '{"a": 20, "b": 22}'
    click(live, "Run edited")
    wait_for(live, lambda: ran == [(1, 1), (20, 22)], "the edited pick to run")
    # Pick 3: Skip with a reason typed beside the button.
    reason = wait_for(
        live,
        lambda: card_widgets(live, "Text", placeholder="reason for skipping (the model reads it)"),
        "the reason box",
    )[0]
    reason.value = "three is enough"
    click(live, "Skip")
    run = handle.wait(10)
    assert ran == [(1, 1), (20, 22)]
    assert [(r.status, r.details.get("approval")) for r in run.tool_results] == [
        ("done", "approved"),
        ("done", "edited"),
        ("skipped", "skipped"),
    ]
    assert "three is enough" in run.tool_results[2].text
    assert "user changed" in model.requests[2].messages[-1].text


def test_stop_in_a_waiting_card_stops_the_run_and_keeps_the_transcript(recorder):
    add, ran = make_add()
    live, handle, _ = start_stepped([add], [op.ToolCall(name="add", arguments={"a": 1, "b": 2}), "done"])
    click(live, "Stop")
    run = handle.wait(10)
    assert ran == [] and run.stop_reason == "aborted"
    assert [r.status for r in run.tool_results] == ["cancelled"]  # closed with a result, never run


def test_a_card_outside_step_mode_keeps_approve_and_deny(recorder):
    @op.function(requires_approval=True)
    def launch() -> str:
        """Launch."""
        return "launched"

    live = LiveRun(widgets=True, clicks=True)
    handle = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="launch"), "ok"])).start(
        "go", tools=[launch], approve=live.approve, on_event=live.on_event
    )
    wait_for(live, lambda: card_widgets(live, "Button", description="Approve"), "Approve")
    assert not card_widgets(live, "Button", description="Edit")
    click(live, "Approve")
    assert handle.wait(10).tool_results[0].status == "done"


@pytest.mark.parametrize(("step", "button"), [(True, "Run"), (False, "Approve")])
def test_a_second_click_on_an_answered_calls_button_never_answers_the_next_call(step, button):
    """A double click: the second click arrives after the first call ran and the next
    call waits in a card — the first call's card, reused, if a redraw fell between. The
    buttons belong to the call they were shown with, so the second click answers that
    call again (which no longer waits), never the next one, which would run unseen."""
    decisions, waiting = [], set()
    view = RunView(
        Controls(
            decide=lambda call_id, answer: decisions.append((call_id, answer)), awaiting=lambda: set(waiting), step=step
        )
    )
    for event in start_events():
        view.feed(event)
    calls = [ToolCall(id=f"c{i}", name="add", arguments={"a": i, "b": i}) for i in (1, 2)]
    for index, call in enumerate(calls):
        view.feed(
            MessageUpdateEvent(
                run_id=RUN,
                message=AssistantMessage(),
                update=AssistantUpdate(kind="toolcall_end", content_index=index, tool_call=call),
            )
        )

    def wait(call_id: str) -> None:
        waiting.add(call_id)
        view.feed(
            ToolExecutionUpdateEvent(run_id=RUN, tool_call_id=call_id, tool_name="add", status="awaiting_approval")
        )
        view.tick(force=True)

    def buttons() -> list:
        return [w for w in _walk_widgets(view.root) if getattr(w, "description", None) == button]

    wait("c1")
    (first,) = buttons()
    first.click()
    waiting.clear()
    view.feed(ToolExecutionStartEvent(run_id=RUN, tool_call_id="c1", tool_name="add", arguments={"a": 1, "b": 1}))
    view.feed(
        ToolExecutionEndEvent(
            run_id=RUN,
            tool_call_id="c1",
            tool_name="add",
            status="done",
            duration=0.0,
            result=ToolResultMessage(tool_call_id="c1", tool_name="add", content=[TextContent(text="2")]),
        )
    )
    view.tick(force=True)  # no call waits: the first call's card goes back to the pool
    wait("c2")
    first.click()  # the second click of the double click
    assert decisions == [("c1", True), ("c1", True)]
    (second,) = buttons()
    second.click()
    assert decisions[-1] == ("c2", True)


def test_an_edited_call_line_shows_the_arguments_that_ran_and_its_result_the_edit_note_under_them(recorder):
    """Issue 43, item 6: the one-line summary of an edited pick names the arguments that
    ran and previews its result (not the note the model reads first); the note that the
    user edited it, with the model's own arguments, is the first line under it."""

    @op.function
    def add(a: int, b: int) -> str:
        """Add."""
        return f"the sum is {a + b}"

    live, handle, _ = start_stepped([add], [op.ToolCall(name="add", arguments={"a": 2, "b": 2}), "done"])
    click(live, "Edit")
    editor(live).value = '{"a": 20, "b": 22}'
    click(live, "Run edited")
    run = handle.wait(10)
    live.tick(force=True)
    ended = wait_for(live, lambda: [v for v in widget_values(live.view) if "<details" in v], "the ended call's line")
    for html in (ended[0], run._repr_html_()):
        summary = html.split(SUMMARY, 1)[1].split("</summary>", 1)[0]
        assert "(a=20, b=22)" in summary and "a=2, b=2" not in summary
        assert "the sum is 42" in summary and "Note:" not in summary and "edited by the user" not in summary
        under = html.split("</summary>", 1)[1]
        assert "arguments edited by the user before it ran; the model asked for a=2, b=2" in under
    plain = str(run).splitlines()
    head = next(i for i, line in enumerate(plain) if "▸ add" in line)
    assert "add(a=20, b=22) → done · edited" in plain[head]
    assert "arguments edited by the user before it ran; the model asked for a=2, b=2" in plain[head + 1]


def test_a_waiting_cards_controls_wrap_and_its_arguments_are_single_spaced(recorder):
    """Issue 43, item 11b, as the widgets state it (tests/browser/test_nbclassic_styles.py
    measures it in nbclassic): the reason box keeps 280 px in a row that wraps rather than
    shrinks, and the arguments' ``<pre>`` sets its own line height, not the 28 px an HTML
    widget's content inherits."""
    add, _ran = make_add()
    live, handle, _model = start_stepped([add], [op.ToolCall(name="add", arguments={"a": 1, "b": 2}), "done"])
    reason = wait_for(
        live,
        lambda: card_widgets(live, "Text", placeholder="reason for skipping (the model reads it)"),
        "the reason box",
    )[0]
    row = next(w for w in _walk_widgets(live.view.root) if type(w).__name__ == "HBox" and reason in w.children)
    arguments = next(w.value for w in card_widgets(live, "HTML") if "&quot;a&quot;: 1" in w.value)
    click(live, "Stop")
    handle.wait(10)
    assert (reason.layout.width, reason.layout.min_width) == ("280px", "280px")
    assert row.layout.flex_flow == "row wrap"
    assert 'line-height:1.4;">{\n' in arguments, arguments
