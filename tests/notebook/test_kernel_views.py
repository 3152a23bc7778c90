"""Real kernel: a finished run's view comes back, and a background run can be steered."""

from __future__ import annotations

import pytest

from .conftest import CURRENT
from .kernels import STATIC_MIMES, WIDGET_VIEW, error_of, live_kernel

pytestmark = pytest.mark.slow


async def test_run_show_and_agent_show_of_a_finished_run_draw_its_transcript_only(kernelspecs):
    # Issue 43, item 4: a widget view of a finished run read "Error displaying widget: model
    # not found" once the notebook was saved and opened again.
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\nm = op.ScriptedModel(['shown <again>'])"
        )
        assert error_of(await kernel.run("%%agent -m m -o r\nhi")) is None
        for source in ("r.show()", "%agent show r"):
            cell = await kernel.run(source)
            assert error_of(cell) is None
            [output] = [o for o in cell.outputs if o.output_type == "display_data"]
            assert set(output.data) == STATIC_MIMES and WIDGET_VIEW not in output.data
            assert "shown &lt;again&gt;" in output.data["text/html"]


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


KITCHEN_SINK = """\
import warnings, base64
# A Layout or widget keyword this ipywidgets version does not know is only a warning; fail on it.
warnings.filterwarnings("error", message=".*unrecognized arguments.*")
@op.function
def work(n: int, context: op.ToolContext) -> str:
    '''Work and report.'''
    context.report(f"half of {n}")
    return "worked"
@op.function
def picture() -> tuple:
    '''An image.'''
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
           "AAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
    return (base64.b64decode(png), "image/png")
@op.function
def broken() -> str:
    '''Raise.'''
    import time
    time.sleep(0.5)  # so the live view draws the cards before it (a tick is 0.1 s)
    raise RuntimeError("<b>broken</b>")
@op.agentic_function
def research(topic: str, runtime=None) -> str:
    '''Research.'''
    return runtime.exec(f"look up {topic}", tools=[work])
m = op.ScriptedModel([
    op.AssistantMessage(content=[op.ThinkingContent(thinking="plan"), op.TextContent(text="First."),
                                 op.ToolCall(name="work", arguments={"n": 2})]),
    [op.ToolCall(name="research", arguments={"topic": "owls"}), op.ToolCall(name="picture"),
     op.ToolCall(name="broken"), op.ToolCall(name="nope")],
    op.ToolCall(name="work", arguments={"n": 1}), "Owls hoot.",
    "All done.",
], delay=0.02)
"""


async def test_every_part_of_the_view_draws_on_both_ipywidgets_versions(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text("%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n" + KITCHEN_SINK)
        cell = await kernel.run("%%agent -m m -o r --tools work,research,picture,broken\nEverything.")
        assert error_of(cell) is None, error_of(cell) and error_of(cell).traceback
        stderr = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr")
        assert "Warning" not in stderr, stderr
        [output] = [o for o in cell.outputs if o.output_type == "display_data"]
        assert set(output.data) == STATIC_MIMES
        html = output.data["text/html"]
        assert "nested run" in html and "data:image/png;base64," in html and "&lt;b&gt;broken" in html
        statuses = await kernel.text("print(*[m.status for m in r.tool_results])")
        assert statuses.split() == ["done", "done", "done", "error", "error"]
        # The live view drew them too: cards, the nested run, the image, progress (ended
        # calls as the saved transcript draws them: collapsed, the image embedded).
        models = {s.get("_model_name") for s in kernel.client.widget_state.values()}
        assert {"AccordionModel", "ButtonModel", "TextModel"} <= models
        values = "\n".join(kernel.widget_values())
        assert "nested run" in values and "progress: half of 2" in values
        assert "data:image/png;base64," in values and "<details" in values


async def test_agent_show_follows_a_background_run_still_going(kernelspecs):
    async with live_kernel(CURRENT) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
            "slow = op.ScriptedModel(['word ' * 500], delay=0.02)"
        )
        assert error_of(await kernel.run("%%agent -m slow -o h --background\nTalk.")) is None
        cell = await kernel.run("import asyncio\nawait asyncio.sleep(0.3)\n%agent show h")
        assert error_of(cell) is None, error_of(cell) and error_of(cell).traceback
        [output] = [o for o in cell.outputs if o.output_type == "display_data"]
        assert WIDGET_VIEW in output.data
        # Its ticker runs on the kernel's loop between cells; the run is still going.
        assert (await kernel.text("await asyncio.sleep(0.5)\nprint(h.done)")).strip() == "False"
        assert (await kernel.text("h.abort()\nprint(h.wait(5).stop_reason)")).strip() == "aborted"
