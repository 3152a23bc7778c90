"""Real kernel: bad input gets a clear message, and the transcript is always kept."""

from __future__ import annotations

import time

import pytest

from .conftest import CURRENT
from .kernels import STATIC_MIMES, error_of, live_kernel, outputs_mimes, plain_output

pytestmark = pytest.mark.slow


async def test_bad_cells_fail_with_a_usage_message_not_a_traceback(kernelspecs):
    async with live_kernel(CURRENT) as kernel:
        await kernel.text("%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\nx = 1")
        cases = {
            "%%agent --frobnicate\nhi": "unrecognized arguments: --frobnicate",
            "%%agent -m gpt4\nhi": "-m 'gpt4' names neither a notebook variable",
            "%%agent -m x\nhi": "holds a int, not a model",
            "%%agent\nUse {nothing_here}.": "no variable 'nothing_here'",
            "%%agent\n   \n": "the cell is empty",
            "%%agent --toolset nosuch\nhi": "unknown toolset 'nosuch'",
            "%%agent --deny nosuch\nhi": "tools_deny names unknown tool(s): nosuch",
            "%%agent --toolset none --tool-choice add\nhi": (
                "--tool-choice forces 'add', which is not on this run's menu (no tools)"
            ),
        }
        for source, words in cases.items():
            cell = await kernel.run(source)
            # IPython shows a UsageError as one line on stderr (no traceback) and fails the cell.
            stderr = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr")
            assert stderr.startswith("UsageError: %%agent"), (source, cell.outputs)
            assert words in stderr, (source, stderr)
            assert "Traceback" not in stderr and error_of(cell) is None
            assert not outputs_mimes(cell)  # nothing half-shown
        # The kernel is fine afterwards.
        assert (await kernel.text("print(x + 1)")).strip() == "2"


async def test_a_tool_that_prints_a_lot_and_returns_script_keeps_a_safe_transcript(kernelspecs):
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
            "@op.function\n"
            "def noisy() -> str:\n"
            "    '''Print a lot.'''\n"
            "    for i in range(3000):\n"
            "        print('line', i)\n"
            "    return '<script>alert(1)</script>'\n"
            "m = op.ScriptedModel([op.ToolCall(name='noisy'), 'done'])\n"
        )
        cell = await kernel.run("%%agent -m m -o r --tools noisy\nMake noise.")
        assert error_of(cell) is None
        printed = "".join(o.text for o in cell.outputs if o.output_type == "stream")
        assert "line 2999" not in printed  # the tool's print() went into its card, not after it
        displays = [o for o in cell.outputs if o.output_type == "display_data"]
        assert len(displays) == 1 and set(displays[0].data) == STATIC_MIMES
        html = displays[0].data["text/html"]
        assert "line 0\n" in html and "the full output is in the result" in html  # its start, and a note
        assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "done" in displays[0].data["text/plain"]


async def test_a_blocking_cell_says_to_interrupt_and_an_interrupt_keeps_the_run(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\n%autoawait off\nimport openprogram_jupyter as op\n"
            "slow = op.ScriptedModel(['word ' * 1000], delay=0.02)"
        )
        cell, task = kernel.start("%%agent -m slow -o r\nTalk for a long time.")
        await kernel.wait_for(
            lambda: any("Kernel ▸ Interrupt" in v for v in kernel.widget_values()),
            what="the note in place of the Stop button",
        )
        await kernel.wait_for(lambda: any("word word word" in v for v in kernel.widget_values()), what="streamed text")
        interrupted = time.monotonic()
        await kernel.interrupt()
        await task
        assert time.monotonic() - interrupted < 10  # generous: unstopped, the reply streams for 20 s
        assert error_of(cell).ename == "RunInterrupted" and len(error_of(cell).traceback) <= 3
        assert (await kernel.text("print(r.stop_reason, len(r.text.split()) < 1000)")).split() == ["aborted", "True"]
        assert all(mimes == STATIC_MIMES for mimes in outputs_mimes(cell))
        assert "Interrupted (Kernel ▸ Interrupt)" in plain_output(cell)
