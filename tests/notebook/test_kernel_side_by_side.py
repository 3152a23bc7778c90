"""Real kernel: ``%%agent -m A,B`` — two scripted models side by side, both transcripts
saved in one static output; each run's own Stop stops only it, "Stop all" stops both."""

from __future__ import annotations

import time

import pytest

from .kernels import STATIC_MIMES, error_of, live_kernel, outputs_mimes, plain_output

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op
fast = op.ScriptedModel(["Fast answer."], name="fast")
other = op.ScriptedModel(["Other answer."], name="other")
slow_a = op.ScriptedModel(['tick ' * 1000], delay=0.02, name="slow_a")
slow_b = op.ScriptedModel(['tock ' * 1000], delay=0.02, name="slow_b")
"""
FULL_RUN_SECONDS = 20.0


async def test_two_models_side_by_side_save_both_transcripts(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        cell = await kernel.run("%%agent -m fast,other -o r\nAnswer.")
        assert error_of(cell) is None
        assert all(mimes == STATIC_MIMES for mimes in outputs_mimes(cell))  # no widget left in the saved output
        html = "".join(o["data"]["text/html"] for o in cell.outputs if "data" in o)
        assert html.count('<td style="text-align:left;vertical-align:top') == 2
        assert html.index("fast") < html.index("Fast answer.") < html.index("Other answer.")
        saved = plain_output(cell)
        assert "== fast ==" in saved and "== other ==" in saved
        assert (
            await kernel.text("print(sorted(r), r['fast'].text, r['other'].text)")
        ) == "['fast', 'other'] Fast answer. Other answer.\n"


async def test_each_stop_stops_its_own_run_and_stop_all_stops_every_run(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        started = time.monotonic()
        cell, task = kernel.start("%%agent -m slow_a,slow_b -o r\nTalk.")
        await kernel.wait_for(
            lambda: (
                any("tick tick" in v for v in kernel.widget_values())
                and any("tock tock" in v for v in kernel.widget_values())
            ),
            timeout=30,
            what="both views streaming",
        )
        stops = await kernel.wait_for(
            lambda: (
                kernel.widgets("ButtonModel", description="Stop")[1:]
                and kernel.widgets("ButtonModel", description="Stop")
            ),
            what="two Stops",
        )
        assert len(stops) == 2
        kernel.click(stops[0])  # one run's own Stop
        await kernel.wait_for(
            lambda: sum("stopped (aborted)" in v for v in kernel.widget_values()) == 1 or task.done(),
            timeout=10,
            what="one run's header to say it stopped",
        )
        assert not task.done()  # the other run goes on
        assert sum(" · running" in v for v in kernel.widget_values()) == 1
        stop_all = await kernel.find_widget("ButtonModel", "the Stop all button", description="Stop all")
        clicked = time.monotonic()
        kernel.click(stop_all)
        await task
        print(f"\n[{kernel_name}] Stop all → cell finished in {time.monotonic() - clicked:.3f} s")
        assert time.monotonic() - clicked < 10.0 and time.monotonic() - started < FULL_RUN_SECONDS  # generous
        assert error_of(cell) is None
        reasons = (await kernel.text("print(r['slow_a'].stop_reason, r['slow_b'].stop_reason)")).split()
        assert reasons == ["aborted", "aborted"]
        assert plain_output(cell).count("Stopped with the Stop button") == 2
