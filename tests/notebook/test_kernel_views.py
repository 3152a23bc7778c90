"""Real kernel: a finished run's view comes back, and a background run can be steered."""

from __future__ import annotations

import pytest

from .conftest import CURRENT
from .kernels import STATIC_MIMES, WIDGET_VIEW, error_of, live_kernel

pytestmark = pytest.mark.slow


async def test_run_show_and_agent_show_bring_a_live_view_back(kernelspecs):
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
            "m = op.ScriptedModel(['shown <again>'])"
        )
        assert error_of(await kernel.run("%%agent -m m -o r\nhi")) is None
        for source in ("r.show()", "%agent show r"):
            cell = await kernel.run(source)
            assert error_of(cell) is None
            [output] = [o for o in cell.outputs if o.output_type == "display_data"]
            assert set(output.data) == STATIC_MIMES | {WIDGET_VIEW}  # saved without the widget still reads
            assert "shown &lt;again&gt;" in output.data["text/html"]
            model_id = output.data[WIDGET_VIEW]["model_id"]
            assert model_id in kernel.client.widget_state
        stops = [s for s in kernel.client.widget_state.values()
                 if s.get("_model_name") == "ButtonModel" and s.get("description") == "Stop"]
        assert stops and all(s["disabled"] for s in stops[-2:])  # the run has ended


async def test_a_background_run_takes_steering_from_its_handle(kernelspecs):
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
            "@op.function\n"
            "def work(context: op.ToolContext) -> str:\n"
            "    '''Work a while.'''\n"
            "    context.cancelled.wait(1.5)\n"
            "    return 'worked'\n"
            "m = op.ScriptedModel([op.ToolCall(name='work'), lambda request: 'I read: ' + request.messages[-1].text])"
        )
        assert error_of(await kernel.run("%%agent -m m -o h --tools work --background\nWork.")) is None
        result = await kernel.text("h.steer('use metric units')\nr = h.wait(10)\nprint(r.text)")
        assert result.strip() == "I read: use metric units"
