"""A real browser: the page reloaded while a run goes on.

A reloaded page no longer receives the outputs of the cell that was running (the request
to run it came from the page that is gone), so the final transcript never reaches that
cell, and JupyterLab cannot bring the live view back while the kernel is busy with it.
What the user has instead: a line under the view, saved with it, says to run
``%agent show VAR``, which draws the run — finished, with its transcript — in the cell
where they run it, and saving keeps that.
"""

from __future__ import annotations

import nbformat
import pytest

from .lab import OUTPUT, chromium_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
    "slow = op.ScriptedModel(['word ' * 150], delay=0.04)  # about 6 s of streaming",
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


def test_a_page_reloaded_mid_run_says_how_to_see_the_run_and_agent_show_draws_it(lab):
    url, root = lab
    name = write_notebook(root, "reload.ipynb", CELLS)
    with chromium_page(1100, 900, "reload-failure.png") as page:
        open_and_run_all(page, f"{url}/lab/tree/{name}")
        page.locator(".jp-OutputArea-output", has_text="word word word").first.wait_for(timeout=60_000)
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        page.reload()
        _notebook_ready(page)
        page.locator(".jp-Cell").nth(1).get_by_text("run %agent show r in a cell to see it").wait_for(timeout=30_000)
        page.wait_for_function(f"() => {_KERNEL}.status === 'idle'", timeout=60_000)  # the run has ended
        # The user runs the last cell again: the run, finished, drawn where they asked for it.
        page.locator(".jp-Cell").nth(2).click()
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
        page.locator(".jp-Cell").nth(2).get_by_text("finished").first.wait_for(timeout=60_000)
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        page.screenshot(path=str(OUTPUT / "reload.png"), full_page=True)

    saved = nbformat.read(root / name, as_version=4)
    left = "".join(str(o.get("data", {}).get("text/plain", "")) for o in saved.cells[1].outputs)
    assert "If this page is reloaded before the run ends" in left and "run %agent show r in a cell" in left
    shown = "".join(str(o.get("data", {}).get("text/plain", "")) for o in saved.cells[2].outputs)
    assert "Talk for a while." in shown and "finished" in shown and shown.count("word") == 150
