"""Real kernel: a tool that exits (sys.exit, argparse) or raises KeyboardInterrupt fails its
call, not the kernel — in awaited, blocking and background cells. docs/faults.md."""

from __future__ import annotations

import pytest

from .kernels import STATIC_MIMES, error_of, live_kernel, outputs_mimes, plain_output

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import argparse, sys
import openprogram_jupyter as op

@op.function
def quit_sync(code: int) -> str:
    '''Exit.'''
    sys.exit(code)

@op.function
async def quit_async(code: int) -> str:
    '''Exit.'''
    raise KeyboardInterrupt('from the tool itself')

@op.function
def parse(text: str) -> str:
    '''Parse.'''
    parser = argparse.ArgumentParser(prog='parse')
    parser.add_argument('--count', type=int, required=True)
    return str(parser.parse_args(text.split()).count)

def script():
    return op.ScriptedModel([
        [op.ToolCall(name='quit_sync', arguments={'code': 3}), op.ToolCall(name='quit_async', arguments={'code': 4}),
         op.ToolCall(name='parse', arguments={'text': '--count many'})],
        'All three failed.',
    ])
"""

ANSWERS = "print(r.stop_reason, r.text, [m.is_error for m in r.tool_results], r is runtime.last_run)"


@pytest.mark.parametrize("form", ["awaited", "blocking", "background"])
async def test_a_tool_that_exits_fails_its_call_and_the_kernel_lives(kernel_name, form):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP + ("%autoawait off\n" if form == "blocking" else ""))
        await kernel.text("m = script()")
        flags = "--background -o h" if form == "background" else "-o r"
        cell = await kernel.run(f"%%agent -m m {flags} --tools quit_sync,quit_async,parse\nTry them.")
        assert error_of(cell) is None, error_of(cell)
        if form == "background":  # (nbclient stops following a cell's view once it returns)
            await kernel.text("r = h.wait(timeout=30)")
        answers = await kernel.text(ANSWERS)
        assert answers.strip() == "stop All three failed. [True, True, True] True"
        reasons = await kernel.text("print([m.text.split(': ', 1)[1] for m in r.tool_results])")
        assert "quit_sync raised SystemExit: 3" in reasons
        assert "quit_async raised KeyboardInterrupt: from the tool itself" in reasons
        assert "parse raised SystemExit: 2" in reasons
        if form != "background":
            assert all(mimes == STATIC_MIMES for mimes in outputs_mimes(cell))  # the transcript is at rest
            assert "agent run in progress" not in plain_output(cell)
        assert (await kernel.text("print(6 * 7)")).strip() == "42"  # the kernel is alive


async def test_a_run_that_fails_fails_the_cell_after_its_transcript_unless_keep_going(kernelspecs):
    # No key: the provider's client refuses at once, before any network.
    from .conftest import CURRENT

    async with live_kernel(CURRENT) as kernel:
        await kernel.text(
            "import os\nfor k in ('OPENAI_API_KEY', 'OPENAI_BASE_URL'): os.environ.pop(k, None)\n"
            "%load_ext openprogram_jupyter"
        )
        cell = await kernel.run("%%agent -m openai:gpt-4.1-mini -o r --toolset none\nHello?")
        error = error_of(cell)
        assert error is not None and error.ename == "RunFailed"  # Run All, papermill, nbclient stop here
        assert len(error.traceback) <= 3 and "the Run is in r" in error.evalue
        assert "no API key: set OPENAI_API_KEY" in error.evalue and "-m offline" in error.evalue
        assert "workload_identity" not in error.evalue  # the SDK's words stay in the transcript's detail
        assert all(mimes == STATIC_MIMES for mimes in outputs_mimes(cell))  # the transcript is saved
        assert "OPENAI_API_KEY" in plain_output(cell)
        assert (await kernel.text("print(r.stop_reason, r is runtime.last_run)")).split() == ["error", "True"]

        cell = await kernel.run("%%agent -m openai:gpt-4.1-mini -o r2 --toolset none --keep-going\nHello?")
        assert error_of(cell) is None
        assert (await kernel.text("print(r2.stop_reason)")).strip() == "error"
