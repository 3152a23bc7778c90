"""What the live view receives of a tool's output while it runs (docs/tools.md, "What a
tool prints, displays and plots"): ``tool_execution_update`` events with status
``"output"``, stream text coalesced, displays in their place, the bound's note at the end."""

from __future__ import annotations

import sys
import time

from IPython.core.interactiveshell import InteractiveShell

import openprogram_jupyter as op
from openprogram_jupyter.engine._tool_output import MAX_STREAM_CHARS

from .conftest import call, results


def live_pieces(run: op.Run) -> list[dict]:
    return [e.data for e in run.events if e.type == "tool_execution_update" and e.status == "output"]


def merged(pieces: list[dict]) -> list[dict]:
    """Consecutive stream pieces of one stream joined: what the live view shows."""
    shown: list[dict] = []
    for piece in pieces:
        last = shown[-1] if shown else None
        if last and piece["type"] == last["type"] == "stream" and piece["name"] == last["name"]:
            last["text"] += piece["text"]
        else:
            shown.append(dict(piece))
    return shown


def test_many_quick_prints_reach_the_live_view_coalesced_and_in_order():
    @op.function
    def chatty() -> str:
        """Print a lot, quickly."""
        for n in range(200):
            print(f"line {n}")
        print("oops", file=sys.stderr)
        print("last")
        return "ok"

    run = op.Runtime(model=op.ScriptedModel([call("chatty"), "ok"])).run("go", tools=[chatty])
    pieces = live_pieces(run)
    lines = "".join(f"line {n}\n" for n in range(200))
    assert merged(pieces) == [
        {"type": "stream", "name": "stdout", "text": lines},
        {"type": "stream", "name": "stderr", "text": "oops\n"},
        {"type": "stream", "name": "stdout", "text": "last\n"},
    ]
    assert len(pieces) <= 20, f"{len(pieces)} live updates for 404 writes in well under a second"


def test_a_display_reaches_the_live_view_between_the_text_around_it():
    from IPython.display import display

    InteractiveShell.instance()  # display() publishes only in a shell

    @op.function
    def show() -> str:
        """Print, display, print."""
        print("before")
        display({"text/plain": "shown"}, raw=True)
        print("after")
        return "ok"

    run = op.Runtime(model=op.ScriptedModel([call("show"), "ok"])).run("go", tools=[show])
    assert merged(live_pieces(run)) == [
        {"type": "stream", "name": "stdout", "text": "before\n"},
        {"type": "display", "data": {"text/plain": "shown"}},
        {"type": "stream", "name": "stdout", "text": "after\n"},
    ]


def test_output_past_the_bound_is_counted_exactly_in_a_note_on_stderr_also_sent_live():
    @op.function(output_as_result=False)
    def flood() -> None:
        """Write 250,000 characters in pieces of 30,000 and one of 10,000."""
        for _ in range(8):
            sys.stdout.write("y" * 30_000)
        sys.stdout.write("z" * 10_000)

    run = op.Runtime(model=op.ScriptedModel([call("flood"), "ok"])).run("go", tools=[flood])
    [result] = results(run)
    note = {"type": "stream", "name": "stderr", "text": "\n[... 50,000 more characters of output not kept ...]\n"}
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "y" * 200_000}, note]
    assert merged(live_pieces(run)) == [{"type": "stream", "name": "stdout", "text": "y" * 200_000}, note]


def test_a_write_crossing_the_bound_keeps_it_to_the_last_character():
    @op.function(output_as_result=False)
    def flood() -> None:
        """Write one character short of the bound, then two."""
        sys.stdout.write("y" * (MAX_STREAM_CHARS - 1))
        sys.stdout.write("ab")

    [result] = results(op.Runtime(model=op.ScriptedModel([call("flood"), "ok"])).run("go", tools=[flood]))
    assert result.details["output"] == [
        {"type": "stream", "name": "stdout", "text": "y" * (MAX_STREAM_CHARS - 1) + "a"},
        {"type": "stream", "name": "stderr", "text": "\n[... 1 more characters of output not kept ...]\n"},
    ]


def test_a_write_to_the_other_stream_after_the_bound_adds_no_empty_block():
    @op.function(output_as_result=False)
    def flood() -> None:
        """Fill the bound exactly on stdout, then write to stderr."""
        sys.stdout.write("y" * MAX_STREAM_CHARS)
        sys.stderr.write("late")

    [result] = results(op.Runtime(model=op.ScriptedModel([call("flood"), "ok"])).run("go", tools=[flood]))
    assert result.details["output"] == [
        {"type": "stream", "name": "stdout", "text": "y" * MAX_STREAM_CHARS},
        {"type": "stream", "name": "stderr", "text": "\n[... 4 more characters of output not kept ...]\n"},
    ]


def test_the_first_print_of_a_call_reaches_the_live_view_while_the_tool_still_runs():
    started: list[op.RunHandle] = []

    def shown() -> bool:  # the body may start before start() has returned the handle
        return bool(started) and any(
            e.type == "tool_execution_update" and e.status == "output" for e in started[0].events
        )

    @op.function
    def slow() -> str:
        """Print, then work for a while."""
        print("working")
        deadline = time.monotonic() + 10
        while not shown() and time.monotonic() < deadline:
            time.sleep(0.01)
        return "seen while running" if shown() else "not shown until the end"

    started.append(op.Runtime(model=op.ScriptedModel([call("slow"), "ok"])).start("go", tools=[slow]))
    [result] = results(started[0].wait())
    assert result.text == "seen while running"
