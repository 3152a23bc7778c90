"""A real browser: the live view in nbclassic, the Notebook 6 interface (issue 43, item 11b).

nbclassic's styles are not JupyterLab's. A step-mode call waiting for approval showed its
JSON arguments double-spaced (the ``<pre>`` inherited the 28 px line height ipywidgets
gives an HTML widget's content, which JupyterLab resets and nbclassic does not), and its
row of buttons shrank into nbclassic's narrower cell: the skip-reason box about 180 px
wide, "Always allow" cut to "Always a…". Measured here in nbclassic's own page: the
arguments' line height, the reason box's width, and every button's label whole.

nbclassic's stylesheet also makes every ``<summary>`` a block, which hid the ▶ marker of
the transcript's ``<details>`` (a call, the thinking): each summary must display as the
list item that carries the marker.
"""

from __future__ import annotations

import pytest

from .lab import OUTPUT, chromium_page, write_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef add(a: int, b: int) -> int:\n    '''Add two whole numbers.'''\n    return a + b\n\n"
    "m = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': 1, 'b': 2}), 'three'])",
    "%%agent --step -m m --tools add\nAdd 1 and 2.",
]
KERNEL_READY = "() => window.Jupyter?.notebook?.kernel?.is_connected()"
MEASURE = """() => {
    const cell = document.querySelectorAll('.cell')[1];
    const pre = [...cell.querySelectorAll('pre')].find(p => p.textContent.includes('"a": 1'));
    const style = getComputedStyle(pre);
    const reason = cell.querySelector('input[placeholder^="reason for skipping"]');
    const buttons = [...cell.querySelectorAll('button')]
        .map(b => [b.textContent.trim(), b.scrollWidth <= b.clientWidth]);
    return {lineHeight: parseFloat(style.lineHeight), fontSize: parseFloat(style.fontSize),
            reasonWidth: reason.getBoundingClientRect().width, buttons};
}"""
SUMMARY_DISPLAYS = """() => [...document.querySelectorAll('.cell')[1].querySelectorAll('.output_area summary')]
    .map(s => [s.textContent.trim().slice(0, 30), getComputedStyle(s).display])"""


@pytest.mark.parametrize("jupyter", ["nbclassic"], indirect=True)
def test_a_waiting_calls_arguments_and_controls_fit_nbclassic(jupyter):
    name = write_notebook(jupyter.root, "step.ipynb", CELLS)
    with chromium_page(1100, 1000, "nbclassic-failure.png") as page:
        page.goto(jupyter.notebook_address(name))
        page.wait_for_function(KERNEL_READY, timeout=60_000)
        page.evaluate("() => Jupyter.notebook.execute_all_cells()")
        page.locator(".cell").nth(1).locator("input[placeholder^='reason for skipping']").wait_for(timeout=60_000)
        page.wait_for_timeout(500)  # the card's last redraw
        measured = page.evaluate(MEASURE)
        page.screenshot(path=str(OUTPUT / "nbclassic-step.png"), full_page=True)
        page.locator(".cell").nth(1).get_by_role("button", name="Run", exact=True).click()
        page.locator(".cell").nth(1).get_by_text("finished").first.wait_for(timeout=60_000)
        # The live view gives way to the saved transcript as the run ends: read the summaries
        # in the same tick that finds them, not after a wait that the swap can fall between.
        found = page.wait_for_function(
            f"() => {{ const s = ({SUMMARY_DISPLAYS})(); return s.length && s; }}", timeout=30_000
        )
        summaries = found.json_value()
        page.screenshot(path=str(OUTPUT / "nbclassic-transcript.png"), full_page=True)

    assert measured["lineHeight"] <= 1.5 * measured["fontSize"], measured  # was 28 px for 12 px text
    assert measured["reasonWidth"] >= 279, measured  # was about 180 px
    assert [label for label, whole in measured["buttons"] if not whole] == [], measured
    assert summaries and all(display == "list-item" for _, display in summaries), summaries  # was "block"
