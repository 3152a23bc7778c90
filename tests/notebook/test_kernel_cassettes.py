"""Real kernel: a hostile cassette ends its cell with one UsageError line, a replay's drift
check cannot freeze the kernel, and a huge model text is cut on screen but kept whole in
the Run. docs/faults.md, "Cassettes"."""

from __future__ import annotations

import pytest

from .conftest import CURRENT
from .kernels import error_of, live_kernel, outputs_mimes

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import json, pathlib
import openprogram_jupyter as op

@op.function
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b

def cassette(path, nest=None):
    '''Record a two-round cassette; with nest=(opener, closer, depth), nest its arguments.'''
    script = [op.ToolCall(name='add', arguments={'a': 2, 'b': 3}), 'It is 5.']
    op.Runtime(model=op.ScriptedModel(script), record=path).exec('What is 2 + 3?', tools=[add])
    if nest:
        opener, closer, depth = nest
        text = pathlib.Path(path).read_text()
        pathlib.Path(path).write_text(text.replace('"a": 2', '"a": ' + opener * depth + closer * depth, 1))
"""


def _stderr(cell) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr")


@pytest.mark.parametrize(
    "nest",
    ["('[', ']', 5000)", "('{\"x\": ', '}', 5000)", "('[', ']', 150)"],
    ids=["arrays-5000", "objects-5000", "arrays-150"],
)
async def test_a_cassette_nested_deep_is_one_usage_error_line_and_the_kernel_lives(kernelspecs, tmp_path, nest):
    path = tmp_path / "deep.json"
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(SETUP + f"cassette({str(path)!r}, {nest})\nx = 1")
        cell = await kernel.run(f"%%agent -m replay:{path} --tools add\nWhat is 2 + 3?")
        stderr = _stderr(cell)
        assert stderr.startswith("UsageError: %%agent: -m replay:"), cell.outputs
        assert "levels deep" in stderr and "a cassette may nest at most 100" in stderr
        assert len(stderr.strip().splitlines()) == 1, stderr
        assert "Traceback" not in stderr and "RecursionError" not in stderr and error_of(cell) is None
        assert not outputs_mimes(cell)
        assert (await kernel.text("print(x + 1)")).strip() == "2"


async def test_a_drift_check_against_many_masks_does_not_freeze_the_kernel(kernelspecs, tmp_path):
    path = tmp_path / "masks.json"
    async with live_kernel(CURRENT, timeout=60) as kernel:
        await kernel.text(
            SETUP + f"cassette({str(path)!r})\n"
            f"data = json.loads(pathlib.Path({str(path)!r}).read_text())\n"
            "data['rounds'][0]['request']['last_user_text'] = 'a***' * 50 + 'a' * 20000 + 'b'\n"
            f"pathlib.Path({str(path)!r}).write_text(json.dumps(data))\n"
            "prompt = 'a' * 20100"
        )
        cell = await kernel.run(f"%%agent -m replay:{path} --tools add -o r\n{{prompt}}")
        error = error_of(cell)  # the run failed: the cell says so in one line, the Run is in r
        assert error.ename == "RunFailed" and "round 1 drifted from the recording" in error.evalue
        said = await kernel.text("print(r.stop_reason, 'drifted from the recording' in str(r.error))")
        assert said.split() == ["error", "True"]


async def test_a_huge_model_text_is_cut_in_the_saved_views_and_kept_whole_in_the_run(kernelspecs):
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(SETUP + "m = op.ScriptedModel([('x' * 1_000_000 + ' ') * 5])")
        cell = await kernel.run("%%agent -m m -o r\nSay a lot.")
        assert error_of(cell) is None
        displays = [o for o in cell.outputs if o.output_type == "display_data"]
        assert len(displays) == 1
        for mime, text in displays[0].data.items():
            assert len(text) < 300_000, (mime, len(text))
            assert "more characters not shown" in text, mime
        assert (await kernel.text("print(len(r.text))")).strip() == str(5 * 1_000_001)
