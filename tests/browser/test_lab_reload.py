"""A real browser: the page reloaded while a run goes on (issue 43, item 5).

A reloaded page no longer receives the outputs of the cell that was running (Jupyter
sends them to the page that asked to run it, and that page is gone), so the transcript
displayed when the run ends never reaches that cell. Widget state does: JupyterLab and
Notebook 7 restore the kernel's widgets even while the cell runs (ipykernel 7.4's
subshells answer them) and apply their later changes. So the line under the view is a
widget: while the run goes on it says to run ``%agent show VAR``, and once the run ends it
says the run has ended, how to keep it, and shows the transcript. ``%agent show VAR``
draws the finished run where it is run, with the run's data, so the saved notebook holds
it for ``%agent restore``.
"""

from __future__ import annotations

import nbformat
import pytest

from openprogram_jupyter.jupyter._saved_runs import read_saved_runs

from .lab import OUTPUT, chromium_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
    # About 22 s of streaming: the page is saved and reloaded while it goes on even on a
    # loaded machine (with 6 s, a CI run reloaded after the end and never saw the mid-run line),
    # in 50 pieces (150 pieces 0.15 s apart cost the kernel and the page about 5 CPU-s more).
    "slow = op.ScriptedModel(['word ' * 50], delay=0.45)",
    "%%agent -m slow -o r\nTalk for a while.",
    "%agent show r",
]

_KERNEL = "window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"


def _notebook_ready(page) -> None:
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(
        f"() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        f" && window.jupyterapp.shell.currentWidget.sessionContext"
        f" && window.jupyterapp.shell.currentWidget.sessionContext.session"
        f" && {_KERNEL}",
        timeout=60_000,
    )


def _save(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)


def test_a_page_reloaded_mid_run_shows_the_ended_run_in_the_line_and_agent_show_saves_it(jupyter):
    name = write_notebook(jupyter.root, "reload.ipynb", CELLS)
    with chromium_page(1100, 900, f"reload-failure-{jupyter.frontend}.png") as page:
        open_and_run_all(page, jupyter.notebook_address(name))
        page.locator(".jp-OutputArea-output", has_text="word word word").first.wait_for(timeout=60_000)
        _save(page)
        page.reload()
        _notebook_ready(page)
        cell = page.locator(".jp-Cell").nth(1)
        cell.get_by_text("run %agent show r in a cell to see it").first.wait_for(timeout=30_000)
        page.wait_for_function(f"() => {_KERNEL}.status === 'idle'", timeout=90_000)  # the run has ended
        line = cell.locator(".widget-html", has_text="The run has ended")
        line.wait_for(timeout=30_000)
        ended = line.inner_text()
        page.screenshot(path=str(OUTPUT / f"reload-ended-{jupyter.frontend}.png"), full_page=True)
        # The user runs the last cell again: the run, finished, drawn where they asked for it.
        page.locator(".jp-Cell").nth(2).click()
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
        page.locator(".jp-Cell").nth(2).get_by_text("finished").first.wait_for(timeout=60_000)
        _save(page)
        page.screenshot(path=str(OUTPUT / f"reload-{jupyter.frontend}.png"), full_page=True)

    assert "run %agent show r in a cell to keep it" in ended, ended
    assert "Talk for a while." in ended and "finished" in ended and ended.count("word") == 50, ended
    saved = nbformat.read(jupyter.root / name, as_version=4)
    left = "".join(str(o.get("data", {}).get("text/plain", "")) for o in saved.cells[1].outputs)
    assert "If this page is reloaded before the run ends" in left and "run %agent show r in a cell" in left
    shown = "".join(str(o.get("data", {}).get("text/plain", "")) for o in saved.cells[2].outputs)
    assert "Talk for a while." in shown and "finished" in shown and shown.count("word") == 50
    [restored] = read_saved_runs(jupyter.root / name)  # the %agent show cell's output saved the run
    assert restored.cell == 2 and restored.stop_reason == "stop" and len(restored.messages) == 2
