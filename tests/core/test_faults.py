"""Faults a tool, a model or a reply can cause: each is a result the model sees, the run
goes on (or ends readably), and every call keeps exactly one result. docs/faults.md."""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time

import pytest

import openprogram_jupyter as op

from .conftest import call, results


def scripted(*rounds) -> tuple[op.Runtime, op.ScriptedModel]:
    model = op.ScriptedModel(list(rounds))
    return op.Runtime(model=model), model


def assert_one_result_per_call(run: op.Run) -> None:
    calls = [c for m in run.messages if isinstance(m, op.AssistantMessage) for c in m.tool_calls]
    answered = [r.tool_call_id for r in results(run)]
    assert [c.id for c in calls] == answered


# -- a tool that exits or is "interrupted" by its own code --------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("raised", ["sys.exit", "argparse", "KeyboardInterrupt"])
def test_a_tool_raising_systemexit_or_keyboardinterrupt_is_a_failing_tool(kind, raised):
    def body(text: str) -> str:
        if raised == "sys.exit":
            sys.exit(3)
        if raised == "argparse":
            parser = argparse.ArgumentParser(prog="parse")
            parser.add_argument("--count", type=int, required=True)
            parser.parse_args(text.split())
        raise KeyboardInterrupt("from inside the tool")

    if kind == "sync":

        @op.function
        def parse(text: str) -> str:
            """Parse."""
            return body(text)
    else:

        @op.function
        async def parse(text: str) -> str:
            """Parse."""
            return body(text)

    rt, model = scripted(call("parse", text="--count many"), "It failed.")
    run = rt.run("Parse it.", tools=[parse])
    assert run.stop_reason == "stop" and run.text == "It failed."
    (result,) = results(run)
    expected = "KeyboardInterrupt" if raised == "KeyboardInterrupt" else "SystemExit"
    assert result.is_error and f"raised {expected}" in result.text
    assert len(model.requests) == 2  # the model saw the error and answered
    assert rt.last_run is run


def test_a_tool_that_exits_through_the_async_api_leaves_the_event_loop_running():
    @op.function
    async def quit_now() -> str:
        """Quit."""
        raise SystemExit("bye")

    async def main() -> op.Run:
        rt, _ = scripted(call("quit_now"), "Done.")
        run = await rt.arun("Go.", tools=[quit_now])
        await asyncio.sleep(0)  # the loop is still alive
        return run

    run = asyncio.run(main())
    assert run.stop_reason == "stop" and "raised SystemExit: bye" in results(run)[0].text


# -- a return value that cannot become a result -------------------------------------------


class Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("repr is broken")

    __str__ = __repr__


def deep(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (Unprintable(), "RuntimeError: repr is broken"),
        (deep(5000), "RecursionError"),
    ],
)
def test_a_result_that_cannot_be_shown_is_that_calls_error_and_the_loop_goes_on(value, words):
    @op.function
    def produce() -> object:
        """Produce."""
        return value

    @op.function
    def fine() -> str:
        """Fine."""
        return "ok"

    rt, _ = scripted([call("produce"), call("fine")], "Handled.")
    run = rt.run("Go.", tools=[produce, fine])
    assert run.stop_reason == "stop" and run.text == "Handled."
    bad, good = results(run)
    assert bad.is_error and "returned a value that cannot be shown as a result" in bad.text and words in bad.text
    assert good.text == "ok" and not good.is_error
    assert "cancelled" not in bad.text


# -- a reply that breaks inside a tool call -----------------------------------------------


@pytest.mark.parametrize("stop_reason", ["error", "aborted"])
def test_calls_of_a_failed_reply_each_get_a_result(stop_reason):
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    broken = op.AssistantMessage(
        content=[call("add", a=1, b=2), op.ToolCall(name="add", arguments={}, id="cut")],
        stop_reason=stop_reason,
        error_message="stream cut" if stop_reason == "error" else None,
    )
    rt, _ = scripted(broken)
    run = rt.run("Add.", tools=[add])
    assert run.stop_reason == stop_reason
    assert_one_result_per_call(run)
    assert all(r.is_error and r.text.startswith("not run:") for r in results(run))


# -- repeated call ids --------------------------------------------------------------------


def test_two_calls_with_one_id_are_kept_apart_and_each_gets_its_own_result():
    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    reply = op.AssistantMessage(
        content=[
            op.ToolCall(name="add", arguments={"a": 1, "b": 2}, id="call_1"),
            op.ToolCall(name="add", arguments={"a": 3, "b": 4}, id="call_1"),
            op.ToolCall(name="add", arguments={"a": 5, "b": 6}, id="call_1"),
        ],
        stop_reason="toolUse",
    )
    rt, model = scripted(reply, "3, 7 and 11.")
    run = rt.run("Add them.", tools=[add])
    assert_one_result_per_call(run)
    assert [r.tool_call_id for r in results(run)] == ["call_1", "call_1_2", "call_1_3"]
    assert [r.text for r in results(run)] == ["3.0", "7.0", "11.0"]
    # The next request pairs each call with its own result.
    sent = model.requests[1].messages
    calls = [c for m in sent if isinstance(m, op.AssistantMessage) for c in m.tool_calls]
    pairs = {r.tool_call_id: r.text for r in sent if isinstance(r, op.ToolResultMessage)}
    assert [(c.arguments["a"], pairs[c.id]) for c in calls] == [(1, "3.0"), (3, "7.0"), (5, "11.0")]
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    assert notices and "call_1 -> call_1_2" in notices[0]


# -- an async tool that swallows its cancellation ----------------------------------------


def test_an_async_tool_that_swallows_cancellation_does_not_hold_wait():
    release = threading.Event()

    @op.function
    async def stubborn() -> str:
        """Never stops when asked."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not release.is_set():
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue  # swallowed
        return "finally"

    rt, _ = scripted(call("stubborn"), "never reached")
    rt.cancel_grace = 0.3
    handle = rt.start("Go.", tools=[stubborn])
    deadline = time.monotonic() + 5
    while not any(e.type == "tool_execution_start" for e in handle.events) and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    handle.abort()
    run = handle.wait(timeout=30)
    waited = time.monotonic() - started
    release.set()
    assert run.stop_reason == "aborted"
    assert results(run)[0].status == "interrupted"
    assert waited < 10.0, f"wait() took {waited:.1f} s after abort (grace 0.3 s; the body never ends by itself)"


# -- many calls in one reply ---------------------------------------------------------------


def test_every_one_of_many_calls_in_one_reply_gets_its_result_in_order():
    @op.function
    def echo(n: int) -> int:
        """Echo."""
        return n

    rt, _ = scripted([call("echo", n=i) for i in range(300)], "Done.")
    run = rt.run("Echo.", tools=[echo])
    assert [r.text for r in results(run)] == [str(i) for i in range(300)]
    assert_one_result_per_call(run)


# -- total work across nested runs --------------------------------------------------------


class FanOut(op.Model):
    """A model that always picks ``fan`` three times (while it is on the menu)."""

    name = "fan-out"

    async def stream(self, request, out):
        if not any(spec["name"] == "fan" for spec in request.tools):
            yield out.text_delta("done")
            out.finish("stop")
            return
        for _ in range(3):
            for update in out.tool_call("fan", {}):
                yield update
        out.finish("toolUse")


@pytest.mark.parametrize("budget", [40, 7])
def test_a_tool_call_budget_bounds_the_work_of_a_fanning_out_agentic_function(budget):
    @op.agentic_function
    def fan(runtime=None) -> str:
        """Fan out."""
        return runtime.exec("Go deeper.", max_iterations=2)

    rt = op.Runtime(model=FanOut(), max_depth=8)
    run = rt.run("Start.", tools=[fan], max_iterations=2, max_tool_calls=budget)
    ran = [
        e
        for e in run.events
        if e.type == "tool_execution_end" and "budget" not in e.result.details and e.status != "skipped"
    ]  # the last, tool-free round at a round cap runs no call
    refused = [e for e in run.events if e.type == "tool_execution_end" and "budget" in e.result.details]
    assert len(ran) == budget  # nested runs' calls count against the top-level run's budget
    assert refused and all(f"max_tool_calls={budget}" in e.result.text for e in refused)
    assert run.stop_reason == "max_iterations"  # FanOut always fans out: the round cap (2) ends the run


def test_the_default_budget_is_sized_for_real_runs_and_can_be_lifted():
    @op.function
    def ping() -> str:
        """Ping."""
        return "pong"

    rt, _ = scripted([call("ping") for _ in range(600)], "ok")
    assert sum(r.text == "pong" for r in results(rt.run("Go.", tools=[ping]))) == 500
    rt, _ = scripted([call("ping") for _ in range(600)], "ok")
    assert sum(r.text == "pong" for r in results(rt.run("Go.", tools=[ping], max_tool_calls=None))) == 600


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True])
def test_a_bad_budget_is_refused_before_anything_runs(bad):
    rt, model = scripted("never")
    with pytest.raises(op.SetupError, match="max_tool_calls must be a positive int or None"):
        rt.run("Go.", tools=[], max_tool_calls=bad)
    assert model.requests == []


# -- a bug below the loop --------------------------------------------------------------------


def test_a_bug_inside_the_loop_ends_the_run_as_an_error_and_keeps_the_transcript(monkeypatch):
    from openprogram_jupyter.engine import loop

    checks = []
    real_limit_reached = loop.limit_reached

    def broken_after_one_round(spec, rounds, spent):
        checks.append(rounds)
        if len(checks) > 1:
            raise RuntimeError("a bug, with sk-proj-0123456789abcdefghijklmnop in its message")
        return real_limit_reached(spec, rounds, spent)

    monkeypatch.setattr(loop, "limit_reached", broken_after_one_round)

    @op.function
    def add(a: int, b: int) -> int:
        return a + b

    runtime, model = scripted(call("add", a=1, b=2), "never reached")
    events = []
    run = runtime.run("go", tools=[add], on_event=events.append)

    assert run.stop_reason == "error"
    assert str(run.error).startswith("internal error: RuntimeError: a bug, with sk-")
    assert "0123456789abcdefghijklmnop" not in str(run.error), "the message is masked like every kept text"
    assert [r.text for r in results(run)] == ["3"], "the round before the bug is kept"
    assert_one_result_per_call(run)
    assert len(model.requests) == 1
    ends = [e for e in events if e.type == "agent_end"]
    assert [(e.stop_reason, e.error_message) for e in ends] == [("error", str(run.error))]
    assert run.error.kind == "internal"


class SwallowsCancellation(op.Model):
    """Streams, then works on through a cancellation until released (an SDK call that
    does not notice cancellation), and finishes its reply normally."""

    name = "swallows"

    def __init__(self) -> None:
        self.streaming, self.released = threading.Event(), threading.Event()

    async def stream(self, request, out):
        yield out.text_delta("Still talking")
        self.streaming.set()
        while not self.released.is_set():
            try:
                await asyncio.sleep(0.02)
            except asyncio.CancelledError:
                pass
        out.finish()


def test_a_stop_whose_cancellation_a_reply_swallowed_still_ends_the_run_as_aborted():
    model = SwallowsCancellation()
    handle = op.Runtime(model=model).start("Talk.")
    assert model.streaming.wait(30)
    handle.abort()
    time.sleep(0.3)  # the cancellation has landed, and been swallowed
    model.released.set()
    run = handle.wait(timeout=30)
    assert run.stop_reason == "aborted", "a stopped run never ends as finished"
    assert run.text == "Still talking", "what arrived is kept"


# -- whatever a tool raises settles its call (docs/faults.md, "A tool raises anything") -----


class CustomBase(BaseException):
    """A BaseException of the user's own (like pytest's fail() and skip())."""


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def _own_cancellation():
    async def cancelled_subtask():
        task = asyncio.ensure_future(asyncio.sleep(10))
        await asyncio.sleep(0)
        task.cancel()
        await task  # re-raises the sub-task's CancelledError in the tool's own code

    return cancelled_subtask()


RAISERS = {
    "StopIteration": lambda: next(iter([])),
    "GeneratorExit": lambda: (_ for _ in ()).throw(GeneratorExit),
    "CustomBase": lambda: (_ for _ in ()).throw(CustomBase("mine")),
    "CancelledError": lambda: (_ for _ in ()).throw(asyncio.CancelledError()),
    "Unprintable": lambda: (_ for _ in ()).throw(Unprintable()),
    "TimeoutError": lambda: (_ for _ in ()).throw(TimeoutError("the tool's own")),
}


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("raised", sorted(RAISERS))
def test_whatever_a_tool_raises_is_that_calls_error_and_the_run_goes_on(kind, raised):
    """StopIteration hung the run (a future refuses it); other BaseExceptions escaped it;
    a tool's own CancelledError passed for Stop; an unprintable error broke the loop;
    a tool's own TimeoutError read as the tool's timeout."""
    if kind == "sync":

        @op.function
        def work() -> str:
            """Work."""
            return RAISERS[raised]()
    else:

        @op.function
        async def work() -> str:
            """Work."""
            return RAISERS[raised]()

    rt, model = scripted(call("work"), "It failed.")
    handle = rt.start("Go.", tools=[work])
    run = handle.wait(timeout=20)  # a call that never settles would hang here
    assert (run.stop_reason, run.text) == ("stop", "It failed.")
    (result,) = results(run)
    assert (result.status, result.is_error) == ("error", True)
    if (kind, raised) == ("async", "StopIteration"):  # PEP 479: Python turns it into a RuntimeError
        assert result.text.startswith("Error: work raised RuntimeError: coroutine raised StopIteration")
    else:
        assert result.text.startswith(f"Error: work raised {raised}")
    assert "timed out" not in result.text
    if raised == "Unprintable":
        assert "(its message cannot be shown either)" in result.text
        assert "Unprintable" in result.details["traceback"]
    assert len(model.requests) == 2  # the model saw the error and answered
    assert_one_result_per_call(run)


def test_a_cancelled_subtask_inside_a_tool_fails_that_call_and_is_no_stop():
    @op.function
    async def fetch() -> str:
        """Fetch."""
        await _own_cancellation()
        return "never"

    rt, _model = scripted(call("fetch"), "It failed.")
    run = rt.run("Go.", tools=[fetch])
    assert (run.stop_reason, run.text) == ("stop", "It failed.")
    (result,) = results(run)
    assert result.status == "error" and result.text.startswith("Error: fetch raised CancelledError")


def test_a_huge_number_as_a_progress_report_is_shown_and_the_run_is_kept():
    @op.function
    def count(context: op.ToolContext) -> str:
        """Count."""
        context.report(10**400)
        context.report({"step": 10**400, "of": 10**401})
        context.report(10**5000)  # past Python's digit limit for str()
        return "counted"

    rt, _ = scripted(call("count"), "Done.")
    run = rt.run("Go.", tools=[count])
    assert (run.stop_reason, run.text) == ("stop", "Done.")
    assert "counted" in run._repr_html_() and "counted" in run._repr_markdown_() and "counted" in repr(run)
    from openprogram_jupyter.jupyter._call_card import progress_html
    from openprogram_jupyter.render._progress import progress_text

    reports = [e.data for e in run.events if getattr(e, "status", None) == "progress"]
    assert len(reports) == 3
    assert progress_text(reports[0]).startswith("1000000000")  # shown as its text: no fraction
    assert progress_text(reports[2]) == "(a int that cannot be shown as text)"
    assert all("progress:" in progress_html(report) for report in reports)  # what the live card draws


# -- what mutmut found unpinned in engine/tool_execution.py (docs/testing.md, "Mutation tool") --


class _BadRepr:
    def __repr__(self) -> str:
        raise ValueError("x" * 300)

    __str__ = __repr__


def test_a_value_that_cannot_be_shown_names_its_error_cut_to_200_characters():
    @op.function
    def produce() -> object:
        """Produce."""
        return _BadRepr()

    rt, _ = scripted(call("produce"), "Handled.")
    (bad,) = results(rt.run("Go.", tools=[produce]))
    assert bad.text == (
        "Error: produce returned a value that cannot be shown as a result (ValueError: " + "x" * 199 + "…)"
    )


@pytest.mark.parametrize(("length", "shown"), [(20_000, "m" * 20_000), (20_001, "m" * 19_999 + "…")])
def test_a_tool_s_error_message_is_kept_whole_up_to_20_000_characters(length, shown):
    @op.function
    def fail() -> str:
        """Fail."""
        raise ValueError("m" * length)

    rt, _ = scripted(call("fail"), "Handled.")
    (result,) = results(rt.run("Go.", tools=[fail]))
    assert result.text == f"Error: fail raised ValueError: {shown}"
    assert result.details["exception"] == "ValueError"
    assert result.details["traceback"].startswith("Traceback (most recent call last):\n  File ")
    assert result.details["traceback"].endswith(f"ValueError: {'m' * length}\n")


def test_an_error_without_a_message_says_so_and_an_unprintable_one_keeps_its_traceback():
    @op.function
    def silent() -> str:
        """Fail without words."""
        raise KeyError()

    @op.function
    def unprintable() -> str:
        """Fail unprintably."""
        raise Unprintable()

    rt, _ = scripted([call("silent"), call("unprintable")], "Handled.")
    quiet, odd = results(rt.run("Go.", tools=[silent, unprintable]))
    assert quiet.text == "Error: silent raised KeyError: (no message)"
    assert odd.text == "Error: unprintable raised Unprintable: (its message cannot be shown either)"
    assert odd.details["traceback"].endswith("Unprintable: <exception str() failed>\n")  # Python's own words
    assert "raise Unprintable()" in odd.details["traceback"]
