"""What a tool writes while it runs goes into its call: stdout, stderr, display(), figures
(docs/tools.md, "What a tool prints"). The kernel side is in tests/notebook/test_kernel_tool_output.py."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.engine._tool_output import MAX_STREAM_CHARS
from openprogram_jupyter.render import render_bundle

from .conftest import call, results


def test_printed_lines_and_stderr_are_kept_in_order_in_the_result_details():
    @op.function
    def chatty() -> str:
        """Print."""
        print("first")
        print("oops", file=sys.stderr)
        print("second")
        return "value"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("chatty"), "ok"])).run("go", tools=[chatty]))
    assert result.text == "value"  # the model reads the return value
    assert [(i["name"], i["text"]) for i in result.details["output"]] == [
        ("stdout", "first\n"),
        ("stderr", "oops\n"),
        ("stdout", "second\n"),
    ]


def test_a_tool_returning_none_after_printing_hands_the_printed_text_to_the_model():
    @op.function
    def report() -> None:
        """Print a report."""
        print("3 files changed")

    model = op.ScriptedModel([call("report"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[report]))
    assert result.text == "3 files changed\n" and result.details["result_from_output"] is True
    assert model.requests[1].messages[-1].text == "3 files changed\n"


def test_output_as_result_false_keeps_the_empty_result():
    @op.function(output_as_result=False)
    def report() -> None:
        """Print a report."""
        print("3 files changed")

    [result] = results(op.Runtime(model=op.ScriptedModel([call("report"), "ok"])).run("go", tools=[report]))
    assert result.text == "" and result.details["output"][0]["text"] == "3 files changed\n"


def test_printed_text_handed_to_the_model_is_cut_like_any_result():
    @op.function(max_result_chars=1000)
    def flood() -> None:
        """Print a lot."""
        print("x" * 5000)

    [result] = results(op.Runtime(model=op.ScriptedModel([call("flood"), "ok"])).run("go", tools=[flood]))
    assert len(result.text) < 1200 and "characters cut" in result.text


def test_output_from_another_thread_is_not_taken_into_the_call():
    started, release = threading.Event(), threading.Event()

    def bystander():
        started.set()
        release.wait(5)
        print("bystander line")  # not in the tool's context: goes where it always went

    @op.function
    def tool() -> str:
        """Print."""
        started.wait(5)
        release.set()
        print("tool line")
        worker.join(5)
        return "ok"

    worker = threading.Thread(target=bystander)
    worker.start()
    [result] = results(op.Runtime(model=op.ScriptedModel([call("tool"), "ok"])).run("go", tools=[tool]))
    seen = [i["text"] for i in result.details["output"]]
    assert seen == ["tool line\n"]


def test_an_async_tools_output_is_caught_too():
    @op.function
    async def later() -> str:
        """Print after a sleep."""
        await asyncio.sleep(0)
        print("async line")
        return "ok"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("later"), "ok"])).run("go", tools=[later]))
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "async line\n"}]


def test_output_streams_live_as_updates_before_the_call_ends():
    @op.function
    def chatty() -> str:
        """Print."""
        print("hello")
        return "ok"

    run = op.Runtime(model=op.ScriptedModel([call("chatty"), "ok"])).run("go", tools=[chatty])
    calls = [e for e in run.events if e.type.startswith("tool_execution")]
    assert calls[0].type == "tool_execution_start" and calls[-1].type == "tool_execution_end"
    updates = calls[1:-1]
    assert updates and all(e.status == "output" and e.data["name"] == "stdout" for e in updates)
    assert "".join(e.data["text"] for e in updates) == "hello\n"


def test_a_figure_left_open_is_kept_as_png_and_closed():
    matplotlib = pytest.importorskip("matplotlib")  # in the test lock; never a core dependency
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    @op.function
    def plot() -> str:
        """Plot."""
        plt.figure()
        plt.plot([1, 2, 3])
        return "plotted"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("plot"), "ok"])).run("go", tools=[plot]))
    [figure] = result.details["output"]
    assert figure["type"] == "display" and figure["data"]["image/png"].startswith("iVBOR")
    assert plt.get_fignums() == []


def test_the_saved_transcript_shows_the_output_inside_the_call_before_the_next_call():
    @op.function
    def noisy(n: int) -> None:
        """Print."""
        print(f"<b>line {n}</b>")

    model = op.ScriptedModel([[call("noisy", n=1), call("noisy", n=2)], "ok"])
    bundle = render_bundle(op.Runtime(model=model).run("go", tools=[noisy]))
    html = bundle["text/html"]
    first, second = html.index("&lt;b&gt;line 1&lt;/b&gt;"), html.index("&lt;b&gt;line 2&lt;/b&gt;")
    cards = [i for i in range(len(html)) if html.startswith("<details", i) and "noisy" in html[i : i + 400]]
    assert cards[0] < first < cards[1] < second
    assert "<b>line 1</b>" not in html
    assert "output (stdout):" in bundle["text/plain"] and "output (stdout):" in bundle["text/markdown"]


def test_a_flood_of_output_is_bounded_with_a_note():
    @op.function(output_as_result=False)
    def flood() -> None:
        """Print a lot."""
        for _ in range(50):
            print("y" * 10_000)

    [result] = results(op.Runtime(model=op.ScriptedModel([call("flood"), "ok"])).run("go", tools=[flood]))
    texts = [i["text"] for i in result.details["output"]]
    assert sum(len(t) for t in texts[:-1]) == MAX_STREAM_CHARS and "more characters of output not kept" in texts[-1]


def test_the_streams_and_the_display_publisher_are_given_back_after_the_call():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    before = (sys.stdout, sys.stderr, vars(shell.display_pub).get("publish"))

    @op.function
    def chatty() -> str:
        """Print."""
        print("inside")
        assert sys.stdout is not before[0], "while the call runs, its output is routed"
        return "ok"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("chatty"), "ok"])).run("go", tools=[chatty]))
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "inside\n"}]
    assert (sys.stdout, sys.stderr, vars(shell.display_pub).get("publish")) == before


# -- what mutmut found unpinned in engine/tool_execution.py (docs/testing.md, "Mutation tool") --


def test_the_run_setting_figures_to_model_hands_a_figure_to_the_model():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    @op.function
    def plot() -> str:
        """Plot."""
        plt.figure()
        plt.plot([1, 2, 3])
        return "plotted"

    model = op.ScriptedModel([call("plot"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[plot], figures_to_model=True))
    kinds = [type(block).__name__ for block in result.content]
    assert kinds == ["TextContent", "ImageContent"] and result.content[0].text == "plotted"
    sent = model.requests[1].messages[-1]
    assert [type(block).__name__ for block in sent.content] == kinds


def test_a_tool_s_context_names_its_call_and_run_and_its_progress_names_the_call():
    seen = []

    @op.function
    def probe(ctx: op.ToolContext) -> str:
        """Probe."""
        seen.append((ctx.tool_call_id, ctx.tool_name, ctx.run_id))
        ctx.report("halfway")
        print("printed")
        return "ok"

    run = op.Runtime(model=op.ScriptedModel([call("probe"), "ok"])).run("go", tools=[probe])
    call_id = run.messages[1].tool_calls[0].id
    assert call_id and run.run_id and seen == [(call_id, "probe", run.run_id)]
    updates = [e for e in run.events if e.type in ("tool_execution_start", "tool_execution_update")]
    assert updates[0].type == "tool_execution_start"
    assert {getattr(e, "status", None) for e in updates} == {None, "progress", "output"}
    assert {e.tool_call_id for e in updates} == {call_id}


def test_a_stop_while_a_finished_call_s_result_is_made_cancels_the_call():
    abort, release = threading.Event(), threading.Event()

    class Slow:
        def __repr__(self) -> str:
            abort.set()  # the user clicks Stop while the result is being made
            release.wait(10)
            return "slow"

    @op.function
    def produce() -> object:
        """Produce."""
        return Slow()

    model = op.ScriptedModel([call("produce"), "never"])
    run = op.Runtime(model=model).run("go", tools=[produce], abort=abort)
    release.set()
    [result] = results(run)
    assert (run.stop_reason, result.status) == ("aborted", "cancelled")
    assert result.text == (
        "cancelled: the run was stopped while this call's result was made ready for "
        "the model (the tool itself had finished)"
    )
    assert model.rounds_played == 1
