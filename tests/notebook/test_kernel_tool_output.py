"""Real kernel: what a tool prints, displays and plots is inside its call's card in the
saved HTML, before the next call's card, and nothing of it lands after the transcript.

The tool runs on a worker thread (ipykernel 7 routes a thread's output by parent header;
ours is routed by the call). The matplotlib figure runs where matplotlib is installed —
the test lock's ipykernel 7 kernel; the ipykernel 6.29 kernel's lock has no matplotlib, so
there the second output is a ``display()`` of Markdown instead."""

from __future__ import annotations

import pytest

from .conftest import CURRENT
from .kernels import live_kernel, plain_output

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op
from IPython.display import Markdown, display

@op.function
def chart(title: str) -> str:
    '''Print two lines and show a figure.'''
    print(f"first line of {{title}}")
    print("second line")
    {show}
    return "charted"

@op.function
def report() -> None:
    '''Print a report and return nothing.'''
    print("report: 3 files changed")

model = op.ScriptedModel([[op.ToolCall(name="chart", arguments={{"title": "sales"}}),
                           op.ToolCall(name="report", arguments={{}})], "Done."])
"""

FIGURE = "import matplotlib.pyplot as plt; plt.plot([1, 3, 2]); plt.show()"
MARKDOWN = "display(Markdown('**shown** by the tool'))"


async def test_a_tools_prints_and_figure_are_inside_its_card_and_printed_text_reaches_the_model(kernel_name):
    figure = kernel_name == CURRENT
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP.format(show=FIGURE if figure else MARKDOWN))
        cell = await kernel.run("%%agent -m model -o r --tools chart,report\nChart the sales.")
        said = await kernel.text("print(repr(r.tool_results[1].text), repr(model.requests[1].messages[-1].text))")

    assert said.split() == ["'report:", "3", "files", "changed\\n'", "'report:", "3", "files", "changed\\n'"]
    html_outputs = [o["data"]["text/html"] for o in cell.outputs if "text/html" in o.get("data", {})]
    assert len(html_outputs) == 1, "the transcript is the cell's one rich output: nothing landed after it"
    html = html_outputs[0]
    first, second = html.index("first line of sales"), html.index("second line")
    shown = html.index('src="data:image/png;base64,' if figure else "<strong>shown</strong>")
    cards = [html.index("<code>chart</code>"), html.index("<code>report</code>")]
    assert cards[0] < first < second < shown < cards[1]
    assert html.index("report: 3 files changed") > cards[1]
    streams = [o for o in cell.outputs if o.get("output_type") == "stream"]
    assert not any("first line" in o.get("text", "") for o in streams)
    assert "first line of sales" in plain_output(cell)
