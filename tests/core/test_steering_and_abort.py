"""docs/semantics.md §6: steering, follow-ups, and stopping a run without losing anything."""

from __future__ import annotations

import asyncio
import threading
import time

import openprogram_jupyter as op

from .conftest import call, results


def test_steering_skips_calls_not_yet_started_and_reaches_the_model_next_round():
    ran = []

    @op.function
    def step(n: int) -> int:
        """A step."""
        ran.append(n)
        return n

    queue = []

    def steering():
        # The user speaks up right after the first call ran.
        if ran == [1] and not queue:
            queue.append("stop, do something else")
            return ["stop, do something else"]
        return []

    model = op.ScriptedModel([[call("step", n=1), call("step", n=2), call("step", n=3)], "changed course"])
    run = op.Runtime(model=model).run("go", tools=[step], get_steering_messages=steering)
    assert ran == [1]
    statuses = [(r.tool_name, r.status) for r in results(run)]
    assert statuses == [("step", "done"), ("step", "skipped"), ("step", "skipped")]
    assert all("new user message arrived" in r.text for r in results(run)[1:])
    last_sent = model.requests[1].messages[-1]
    assert isinstance(last_sent, op.UserMessage) and last_sent.text == "stop, do something else"


def test_steering_keeps_the_loop_going_after_a_text_only_reply():
    pending = ["and also this"]
    model = op.ScriptedModel(["first answer", "second answer"])
    run = op.Runtime(model=model).run("go", get_steering_messages=lambda: [pending.pop()] if pending else [])
    assert run.text == "second answer" and run.rounds == 2
    assert [m.text for m in model.requests[1].messages] == ["go", "first answer", "and also this"]


def test_follow_up_messages_start_another_round_when_the_loop_would_end():
    follow_ups = [[op.UserMessage(content="one more thing")], []]
    model = op.ScriptedModel(["answer", "follow-up answer"])
    run = op.Runtime(model=model).run("go", get_follow_up_messages=lambda: follow_ups.pop(0))
    assert run.text == "follow-up answer"
    assert [m.role for m in run.messages] == ["user", "assistant", "user", "assistant"]


def test_abort_event_stops_a_running_sync_tool_cooperatively():
    abort = threading.Event()
    noticed = []

    @op.function
    def long_job(ctx: op.ToolContext) -> str:
        """Works until cancelled."""
        abort.set()  # the user clicks Stop while this runs
        noticed.append(ctx.cancelled.wait(30))
        return "stopped early"

    model = op.ScriptedModel([call("long_job"), "never reached"])
    started = time.monotonic()
    run = op.Runtime(model=model).run("go", tools=[long_job], abort=abort)
    assert time.monotonic() - started < 10  # generous: unstopped, the job waits 30 s
    assert run.stop_reason == "aborted"
    assert noticed == [True]
    [result] = results(run)
    assert result.status == "cancelled" and result.is_error
    assert result.text == "cancelled: the run was stopped while this call was running"
    assert model.rounds_played == 1


def test_a_tool_that_ignores_cancellation_is_abandoned_as_interrupted():
    abort = threading.Event()
    release = threading.Event()

    @op.function
    def stubborn() -> str:
        """Ignores the cancel flag."""
        abort.set()
        release.wait(30)
        return "finally"

    model = op.ScriptedModel([[call("stubborn"), call("stubborn")], "never"])
    started = time.monotonic()
    run = op.Runtime(model=model, cancel_grace=0.2).run("go", tools=[stubborn], abort=abort)
    elapsed = time.monotonic() - started
    release.set()
    assert elapsed < 10  # generous: not abandoned, the body would hold the run 30 s
    first, second = results(run)
    assert first.status == "interrupted"
    assert first.text == "interrupted: abandoned after 0.2 s; the tool ignored the stop and may still be running"
    assert second.status == "cancelled"  # never started


def test_abort_mid_stream_keeps_the_partial_reply_and_answers_its_calls():
    abort = threading.Event()

    class SlowModel(op.ScriptedModel):
        async def stream(self, request, out):
            self.requests.append(request)
            yield out.text_delta("Let me ")
            start = out.start_tool_call("add", "call_a")
            yield start
            yield out.tool_call_delta(start.content_index, '{"a": 1')
            abort.set()
            await asyncio.sleep(30)
            yield out.text_delta("never")

    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    started = time.monotonic()
    run = op.Runtime(model=SlowModel([])).run("go", tools=[add], abort=abort)
    assert time.monotonic() - started < 10  # generous: unstopped, the stream sleeps 30 s
    assert run.stop_reason == "aborted"
    reply = run.messages[1]
    assert isinstance(reply, op.AssistantMessage) and reply.stop_reason == "aborted"
    assert reply.text == "Let me "
    [result] = results(run)
    assert result.tool_call_id == "call_a" and result.status == "cancelled"
    assert [e.type for e in run.events][-2:] == ["turn_end", "agent_end"]


def test_abort_before_the_first_round_still_gives_a_complete_run():
    abort = threading.Event()
    abort.set()
    run = op.Runtime(model=op.ScriptedModel(["hi"])).run("go", abort=abort)
    assert run.stop_reason == "aborted"
    assert run.messages[0].role == "user"


def test_run_handle_follow_up_starts_another_round():
    gate = threading.Event()

    @op.function
    def wait_for_gate() -> str:
        """Blocks until the test opens the gate."""
        gate.wait(5)
        return "opened"

    model = op.ScriptedModel([call("wait_for_gate"), "first", "after follow-up"])
    handle = op.Runtime(model=model).start("go", tools=[wait_for_gate])
    handle.follow_up("and then?")
    gate.set()
    run = handle.wait(timeout=10)
    assert run.text == "after follow-up"
    assert model.requests[2].messages[-1].text == "and then?"
    assert handle.done and handle.events[-1].type == "agent_end"


def test_run_handle_steer_skips_the_calls_not_started_and_reaches_the_next_round():
    started, gate = threading.Event(), threading.Event()

    @op.function
    def slow(n: int) -> str:
        """Blocks until the test opens the gate."""
        started.set()
        gate.wait(5)
        return f"done {n}"

    model = op.ScriptedModel([[call("slow", n=1), call("slow", n=2)], "steered"])
    handle = op.Runtime(model=model).start("go", tools=[slow])
    assert started.wait(5)
    handle.steer("stop after the first one")
    gate.set()
    run = handle.wait(timeout=10)
    assert [r.text for r in results(run)] == ["done 1", "skipped: a new user message arrived before this call ran"]
    assert model.requests[1].messages[-1].text == "stop after the first one"
    assert run.text == "steered"


def test_run_handle_abort_stops_a_running_tool_and_keeps_the_run():
    started = threading.Event()

    @op.function
    def wait_to_be_cancelled(context: op.ToolContext) -> str:
        """Waits until the run is stopped."""
        started.set()
        context.cancelled.wait(5)
        return "noticed"

    model = op.ScriptedModel([call("wait_to_be_cancelled"), "never reached"])
    handle = op.Runtime(model=model).start("go", tools=[wait_to_be_cancelled])
    assert started.wait(5)
    handle.abort()
    run = handle.wait(timeout=10)
    assert run.stop_reason == "aborted" and results(run)[0].status == "cancelled"
    assert len(model.requests) == 1  # the model was not asked again


def test_run_handle_abort_twice_and_after_the_end_is_harmless():
    model = op.ScriptedModel([op.AssistantMessage(content=[op.TextContent(text="x")])])
    handle = op.Runtime(model=model).start("go")
    run = handle.wait(timeout=10)
    events = len(run.events)
    handle.abort()
    handle.abort()
    assert handle.wait(timeout=1) is run
    assert run.stop_reason == "stop" and len(run.events) == events  # nothing changed after the end


def test_undelivered_steering_is_kept_when_the_round_cap_ends_the_run():
    @op.function
    def noop() -> str:
        """Nothing."""
        return ""

    model = op.ScriptedModel([call("noop"), "never"])
    steering = [["late message"]]
    rt = op.Runtime(model=model)
    run = rt.run("go", tools=[noop], max_iterations=1, get_steering_messages=lambda: steering.pop() if steering else [])
    assert run.stop_reason == "max_iterations"
    assert run.pending_messages == ["late message"]


def test_steering_after_a_text_reply_keeps_the_tools_in_the_cap_s_last_round():
    """The last round of a round cap is tool-free only when the model still wanted tools."""
    pending = ["and also this"]
    model = op.ScriptedModel(["first answer", "second answer"])
    op.Runtime(model=model).run(
        "go", max_iterations=2, get_steering_messages=lambda: [pending.pop()] if pending else []
    )
    assert [r.tool_choice for r in model.requests] == ["auto", "auto"]


def test_a_follow_up_in_the_cap_s_last_round_is_answered_without_tools():
    follow_ups = [[op.UserMessage(content="one more thing")], []]
    model = op.ScriptedModel(["answer", "follow-up answer"])
    run = op.Runtime(model=model).run("go", max_iterations=2, get_follow_up_messages=lambda: follow_ups.pop(0))
    assert [r.tool_choice for r in model.requests] == ["auto", "none"] and run.text == "follow-up answer"


def test_a_stop_while_a_call_waits_for_its_approval_cancels_that_call():
    abort = threading.Event()

    async def approve(request):
        abort.set()  # the user clicks Stop instead of answering
        await asyncio.sleep(10)
        return True

    ran = []

    @op.function
    def step(n: int) -> int:
        """A step."""
        ran.append(n)
        return n

    model = op.ScriptedModel([call("step", n=1), "never"])
    run = op.Runtime(model=model).run("go", tools=[step], step=True, approve=approve, abort=abort)
    [result] = results(run)
    assert (run.stop_reason, result.status, ran) == ("aborted", "cancelled", [])
    assert result.text == "cancelled: the run was stopped before this call finished"
