"""A real browser: ``%agent show`` of a finished run draws the static transcript only (issue
43, item 4), in JupyterLab and in Notebook 7.

It drew the live view, with a greyed-out Stop button, and the cell's output held a widget
view beside the HTML: saved, and opened again with a fresh kernel, the cell read only
"Error displaying widget: model not found". Here the run finishes, ``%agent show r``
draws it, the notebook is saved, the kernel restarted and the page opened again: the cell
shows the transcript, no widget, no error, and the saved file holds no widget view.
"""

from __future__ import annotations

import nbformat
import pytest

from .lab import OUTPUT, chromium_page, open_and_run_all, open_notebook, write_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
    "m = op.ScriptedModel(['A finished answer, shown again.'])",
    "%%agent -m m -o r\nAnswer once.",
    "%agent show r",
]
SHOW = 2
WIDGET = ".jupyter-widgets, .widget-box, .widget-button, .jupyter-widgets-output-area"
# The show cell's output holds this text: the answer once it is drawn; after reopening, the
# answer or the widget manager's error, so that the bug fails an assertion, not a timeout.
SHOWS = """(texts) => {
    const output = document.querySelectorAll('.jp-Notebook .jp-Cell')[2]?.querySelector('.jp-OutputArea');
    return texts.some(text => (output?.innerText ?? '').includes(text));
}"""
ANSWER = "A finished answer, shown again."


def shown(page) -> tuple[str, int]:
    """The show cell's output text and how many widget elements are in it."""
    output = page.locator(".jp-Notebook .jp-Cell").nth(SHOW).locator(".jp-OutputArea")
    return output.inner_text(), output.locator(WIDGET).count()


def test_show_of_a_finished_run_is_its_transcript_also_after_reopening(jupyter):
    name = write_notebook(jupyter.root, "show.ipynb", CELLS)
    with chromium_page(1100, 900, f"show-finished-failure-{jupyter.frontend}.png") as page:
        open_and_run_all(page, jupyter.notebook_address(name))
        page.wait_for_function(SHOWS, arg=[ANSWER], timeout=60_000)
        page.wait_for_timeout(1000)  # a widget view, if any, is drawn by now
        live_text, live_widgets = shown(page)
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.restartKernel()")
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
            timeout=60_000,
        )
        open_notebook(page, jupyter.notebook_address(name))  # the page opened again: no widget model left
        page.wait_for_function(SHOWS, arg=[ANSWER, "Error displaying widget"], timeout=60_000)
        page.wait_for_timeout(1500)  # the widget manager has tried whatever it would draw
        reopened_text, reopened_widgets = shown(page)
        page.screenshot(path=str(OUTPUT / f"show-finished-{jupyter.frontend}.png"), full_page=True)

    assert live_widgets == 0 and "Stop" not in live_text, live_text  # the bug: a live view, Stop greyed
    assert reopened_widgets == 0 and "Error displaying widget" not in reopened_text, reopened_text
    assert ANSWER in reopened_text and "finished" in reopened_text, reopened_text
    saved = nbformat.read(jupyter.root / name, as_version=4).cells[SHOW].outputs
    kinds = [kind for output in saved for kind in output.get("data", {})]
    assert "text/html" in kinds and "application/vnd.jupyter.widget-view+json" not in kinds, kinds
