"""Real kernels: Stop clicked mid-cell, Kernel ▸ Interrupt, approval, steering, background.

A "slow" model streams 1,000 words 20 ms apart: about 20 s if nothing stops it. Every
bound here is generous — "stopped within a few seconds" against "ran to the end".
"""

from __future__ import annotations

import time

import pytest

from .kernels import (
    STATIC_MIMES,
    WIDGET_VIEW,
    LiveKernel,
    error_of,
    live_kernel,
    outputs_mimes,
    plain_output,
)

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op, time, ipykernel, ipywidgets
slow = op.ScriptedModel(['word ' * 1000], delay=0.02)
print(ipykernel.__version__, ipywidgets.__version__)
"""
FULL_RUN_SECONDS = 20.0
PROMPT_STOP_SECONDS = 3.0


async def setup(kernel: LiveKernel, kernel_name: str) -> None:
    versions = await kernel.text(SETUP)
    ipykernel_version = tuple(int(p) for p in versions.split()[0].split(".")[:2])
    if kernel_name.endswith("6.29"):
        assert ipykernel_version == (6, 29) and versions.split()[1].startswith("7.7")
    else:
        assert ipykernel_version >= (7, 4) and versions.split()[1].startswith("8.")


async def stop_button(kernel: LiveKernel) -> str:
    """Wait until the view streams text (it updates live), then return its Stop button."""
    await kernel.wait_for(
        lambda: any("word word word" in v for v in kernel.widget_values()),
        timeout=30,
        what="streamed text in the live view",
    )
    return await kernel.find_widget("ButtonModel", "the Stop button", description="Stop")


def assert_only_static_outputs(cell) -> None:
    for mimes in outputs_mimes(cell):
        assert WIDGET_VIEW not in mimes
        assert mimes == STATIC_MIMES


async def test_stop_click_mid_cell_ends_the_run_promptly_as_aborted(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        started = time.monotonic()
        cell, task = kernel.start("%%agent -m slow -o r\nTalk for a long time.")
        stop = await stop_button(kernel)
        clicked = time.monotonic()
        kernel.click(stop)
        kernel.click(stop)  # a second click is harmless
        await task
        latency = time.monotonic() - clicked
        print(f"\n[{kernel_name}] Stop click → cell finished in {latency:.3f} s")
        assert latency < PROMPT_STOP_SECONDS
        assert time.monotonic() - started < FULL_RUN_SECONDS
        assert error_of(cell) is None  # a widget Stop is a graceful end
        assert (
            await kernel.text("print(r.stop_reason, len(r.text.split()) < 1000, r is runtime.last_run)")
        ).split() == ["aborted", "True", "True"]
        assert_only_static_outputs(cell)
        assert "Stopped with the Stop button" in plain_output(cell)
        assert "word word" in plain_output(cell)  # the transcript so far is kept

        # A click on the Stop button after the run ended: its comm is closed; nothing breaks.
        kernel.click(stop)
        assert (await kernel.text("print(r.stop_reason)")).strip() == "aborted"
        assert_only_static_outputs(cell)


async def test_kernel_interrupt_ends_the_run_as_aborted_and_fails_the_cell(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        cell, task = kernel.start("%%agent -m slow -o r\nTalk for a long time.")
        await stop_button(kernel)
        interrupted = time.monotonic()
        await kernel.interrupt()
        await task
        latency = time.monotonic() - interrupted
        print(f"\n[{kernel_name}] Kernel interrupt → cell finished in {latency:.3f} s")
        assert latency < PROMPT_STOP_SECONDS
        error = error_of(cell)
        assert error is not None and error.ename == "RunInterrupted"  # so Run All stops here
        assert len(error.traceback) <= 3 and "the Run is in r" in error.evalue  # one line, not a traceback
        assert (
            await kernel.text("print(r.stop_reason, len(r.text.split()) < 1000, r is runtime.last_run)")
        ).split() == ["aborted", "True", "True"]
        assert_only_static_outputs(cell)
        assert "Interrupted (Kernel ▸ Interrupt)" in plain_output(cell)


async def test_approve_and_deny_clicks_answer_a_call_waiting_mid_cell(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        await kernel.text(
            "@op.function(requires_approval=True)\n"
            "def delete(path: str) -> str:\n"
            "    '''Delete a file.'''\n"
            "    return f'deleted {path}'\n"
            "m = op.ScriptedModel([op.ToolCall(name='delete', arguments={'path': 'a.txt'}),\n"
            "                      op.ToolCall(name='delete', arguments={'path': 'b.txt'}), 'done'])\n"
        )
        cell, task = kernel.start("%%agent -m m -o r --tools delete\nClean up.")
        kernel.click(await kernel.find_widget("ButtonModel", "the Approve button", description="Approve"))
        # The second call gets a card (and buttons) of its own.
        kernel.click(
            await kernel.find(
                lambda: kernel.widgets("ButtonModel", description="Deny")[1:], what="the second call's Deny button"
            )
        )
        await task
        assert error_of(cell) is None
        statuses = await kernel.text("print(*[m.status for m in r.tool_results])")
        assert statuses.split() == ["done", "denied"]
        assert_only_static_outputs(cell)


async def test_a_blocking_cell_denies_a_call_that_needs_approval_and_says_why(kernel_name):
    # %autoawait off: the cell blocks the kernel, so no click could answer; waiting would hang.
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        await kernel.text(
            "%autoawait off\n"
            "@op.function(requires_approval=True)\n"
            "def delete(path: str) -> str:\n"
            "    '''Delete a file.'''\n"
            "    return f'deleted {path}'\n"
            "m = op.ScriptedModel([op.ToolCall(name='delete', arguments={'path': 'a.txt'}), 'Not deleted.'])\n"
        )
        cell = await kernel.run("%%agent -m m -o r --tools delete\nClean up.")
        assert error_of(cell) is None, error_of(cell)
        result = await kernel.text("print(r.stop_reason, r.text, [(m.status, m.text) for m in r.tool_results])")
        assert result.strip() == (
            "stop Not deleted. [('denied', 'denied: the user did not approve this call to delete')]"
        )
        shown = plain_output(cell)
        assert "delete needs approval, but this cell cannot receive button clicks" in shown
        assert "deleted a.txt" not in shown
        assert_only_static_outputs(cell)


async def test_a_kernel_interrupt_during_approval_keeps_the_transcript(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        await kernel.text(
            "@op.function(requires_approval=True)\n"
            "def launch() -> str:\n"
            "    '''Launch.'''\n"
            "    return 'launched'\n"
            "m = op.ScriptedModel([op.AssistantMessage(content=[op.TextContent(text='Asking first.'),\n"
            "                      op.ToolCall(name='launch')]), 'done'])\n"
        )
        cell, task = kernel.start("%%agent -m m -o r --tools launch\nGo.")
        await kernel.wait_for(lambda: kernel.widgets("ButtonModel", description="Approve"), what="Approve")
        await kernel.interrupt()
        await task
        assert error_of(cell).ename == "RunInterrupted"
        result = await kernel.text("print(r.stop_reason, [m.status for m in r.tool_results], r.messages[1].text)")
        assert result.startswith("aborted") and "launched" not in result and "Asking first." in result
        assert_only_static_outputs(cell)


async def start_a_run_that_reads_its_steering(kernel):
    """Start a cell whose one call works two seconds and whose answer repeats the last
    message it got; return the cell, its task and the steering box once the call runs."""
    await kernel.text(
        "@op.function\n"
        "def work(context: op.ToolContext) -> str:\n"
        "    '''Work a while.'''\n"
        "    context.cancelled.wait(2.0)\n"
        "    return 'worked'\n"
        "m = op.ScriptedModel([op.ToolCall(name='work'),\n"
        "                      lambda request: 'I read: ' + request.messages[-1].text])\n"
    )
    cell, task = kernel.start("%%agent -m m -o r --tools work\nStart working.")
    box = await kernel.find_widget("TextModel", "the steering box")
    await kernel.wait_for(lambda: any("running" in v for v in kernel.widget_values()), what="the call running")
    return cell, task, box


async def test_a_steering_message_typed_mid_run_reaches_the_model(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        cell, task, box = await start_a_run_that_reads_its_steering(kernel)
        kernel.type_into(box, "use metric units")
        kernel.click(await kernel.find_widget("ButtonModel", "the Send button", description="Send"))
        await task
        assert error_of(cell) is None
        assert (await kernel.text("print(r.text)")).strip() == "I read: use metric units"


async def test_enter_in_the_steering_box_sends_the_message_which_shows_as_queued(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        cell, task, box = await start_a_run_that_reads_its_steering(kernel)
        # What a browser sends on Enter (continuous_update=False): submit, then the box's text.
        kernel.send_comm(box, {"method": "custom", "content": {"event": "submit"}})
        kernel.type_into(box, "use metric units")
        await kernel.wait_for(
            lambda: any("queued" in v and "use metric units" in v for v in kernel.widget_values()),
            what="the message listed as queued",
        )
        await task
        assert error_of(cell) is None
        assert (await kernel.text("print(r.text)")).strip() == "I read: use metric units"


async def test_background_returns_at_once_and_its_stop_works(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await setup(kernel, kernel_name)
        started = time.monotonic()
        cell = await kernel.run("%%agent -m slow -o h --background\nTalk for a long time.")
        assert time.monotonic() - started < 5
        assert error_of(cell) is None
        # The cell has returned (nbclient no longer follows its view), the run goes on.
        assert (await kernel.text("print(h.done)")).strip() == "False"
        stop = await kernel.find_widget("ButtonModel", "the Stop button", description="Stop")
        assert len(kernel.widgets("ButtonModel", description="Stop")) == 1
        kernel.click(stop)
        result = await kernel.text(
            "r = h.wait(10)\nprint(r.stop_reason, len(r.text.split()) < 1000, r is runtime.last_run)"
        )
        assert result.split() == ["aborted", "True", "True"]
        assert time.monotonic() - started < FULL_RUN_SECONDS


async def test_without_jupyter_ui_poll_an_old_kernel_points_to_kernel_interrupt(legacy_kernel):
    """ipykernel 6.29 cannot deliver a click to a busy cell on its own: the view says so."""
    async with live_kernel(legacy_kernel) as kernel:
        await kernel.text("import sys\nsys.modules['jupyter_ui_poll'] = None  # as if the extra were missing\n" + SETUP)
        cell, task = kernel.start("%%agent -m slow -o r\nTalk for a long time.")
        await stop_button(kernel)
        notes = "\n".join(kernel.widget_values())
        assert "handles clicks only after a cell ends" in notes and "legacy-kernel" in notes
        tooltips = [
            s.get("tooltip") or ""
            for s in kernel.client.widget_state.values()
            if s.get("_model_name") == "ButtonModel" and s.get("description") == "Stop"
        ]
        assert any("Kernel ▸ Interrupt" in t for t in tooltips)
        await kernel.interrupt()  # the way that does work there
        await task
        assert error_of(cell).ename == "RunInterrupted"
        assert (await kernel.text("print(r.stop_reason)")).strip() == "aborted"
        assert_only_static_outputs(cell)
