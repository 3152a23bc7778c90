"""Step mode in the live view: each pick waits in its card for Run, Edit, Skip or Stop."""

from __future__ import annotations

import time

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._live import LiveRun

from .test_view import _walk_widgets


def card_widgets(live: LiveRun, kind: str, **state):
    return [w for w in _walk_widgets(live.view.root)
            if type(w).__name__ == kind and all(getattr(w, k, None) == v for k, v in state.items())]


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
    buttons = wait_for(live, lambda: live.awaiting() and [
        b for b in card_widgets(live, "Button", description=description) if b is not live.view.stop_button],
        f"the {description} button of a waiting card")
    buttons[0].click()


def start_stepped(tools, script):
    live = LiveRun(widgets=True, clicks=True, step=True)
    model = op.ScriptedModel(script)
    handle = op.Runtime(model=model).start("go", tools=tools, step=True, approve=live.approve,
                                           on_event=live.on_event, abort=live.abort)
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
    editor = wait_for(live, lambda: card_widgets(live, "Textarea"), "the editor")[0]
    assert '"a": 2' in editor.value  # filled with the model's arguments
    editor.value = "[1, 2]"
    click(live, "Run edited")
    wait_for(live, lambda: "must be one JSON object" in "".join(w.value for w in card_widgets(live, "HTML")),
             "the JSON error in the card")
    editor.value = '{"a": "many", "b": 1}'
    click(live, "Run edited")
    wait_for(live, lambda: "Nothing ran" in "".join(w.value for w in card_widgets(live, "HTML")), "the schema error")
    assert ran == [(1, 1)] and len(live.awaiting()) == 1  # still waiting
    editor.value = '{"a": 20, "b": 22}'
    click(live, "Run edited")
    wait_for(live, lambda: ran == [(1, 1), (20, 22)], "the edited pick to run")
    # Pick 3: Skip with a reason typed beside the button.
    reason = wait_for(live, lambda: card_widgets(live, "Text", placeholder="reason for skipping (the model reads it)"),
                      "the reason box")[0]
    reason.value = "three is enough"
    click(live, "Skip")
    run = handle.wait(10)
    assert ran == [(1, 1), (20, 22)]
    assert [(r.status, r.details.get("approval")) for r in run.tool_results] == [
        ("done", "approved"), ("done", "edited"), ("skipped", "skipped")]
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
        "go", tools=[launch], approve=live.approve, on_event=live.on_event)
    wait_for(live, lambda: card_widgets(live, "Button", description="Approve"), "Approve")
    assert not card_widgets(live, "Button", description="Edit")
    click(live, "Approve")
    assert handle.wait(10).tool_results[0].status == "done"
