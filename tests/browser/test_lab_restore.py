"""A real browser: background cells on one session, saved from JupyterLab, restored after a
kernel restart as the kernel had them.

A background cell returns at once and its transcript replaces the live view when the run
ends, through a display update; only a real frontend shows (and saves) that final output,
so this is where a session of background cells is saved and restored end to end. Only this
venv's kernel (see test_lab_typing.py for why the ipykernel 6.29 one cannot be driven here).
"""

from __future__ import annotations

import json

import nbformat
import pytest

from .lab import OUTPUT, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\nm = op.ScriptedModel(['one', 'two'], delay=0.2)",
    "%%agent -m m -s bg --background -o h1\nFirst?",
    "%%agent -m m -s bg --background -o h2\nSecond?",
    "import json\nruns = [h1.wait(30), h2.wait(30)]\n"
    "print('LIVE-SESSION', json.dumps([x.text for x in _agent_sessions().get('bg').messages]))",
]


def _sessions_helper() -> str:
    """A name the last cell calls to read the kernel's sessions (the magics hold them)."""
    return "def _agent_sessions():\n    return get_ipython().magics_manager.registry['AgentMagics'].sessions\n"


def test_background_cells_on_one_session_are_saved_and_restored_as_the_kernel_had_them(lab):
    root = lab.root
    cells = [CELLS[0] + "\n" + _sessions_helper(), *CELLS[1:]]
    name = write_notebook(root, "background.ipynb", cells)
    with notebook_page(lab, 1100, 900, "restore-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        page.locator(".jp-OutputArea-output", has_text="LIVE-SESSION").first.wait_for(timeout=60_000)
        live = json.loads(
            page.locator(".jp-OutputArea-output", has_text="LIVE-SESSION")
            .first.inner_text()
            .split("LIVE-SESSION", 1)[1]
        )
        # Both background cells' outputs become their saved transcripts when the runs end: the
        # transcript's own element, not the live view's "finished", which comes a tick earlier.
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-Cell')].slice(1, 3)"
            ".every(cell => cell.querySelector('.openprogram-run') && cell.innerText.includes('finished'))",
            timeout=60_000,
        )
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        page.screenshot(path=str(OUTPUT / "restore-background.png"), full_page=True)

    from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, restore_sessions
    from openprogram_jupyter.jupyter._sessions import Sessions

    saved = read_saved_runs(root / name)
    assert [run.session for run in saved] == ["bg", "bg"], "both background cells saved their run"
    assert sorted(run.appended_at for run in saved) == [0, 2]  # one after the other, as the session added them
    assert len({run.session_created_at for run in saved}) == 1
    sessions = Sessions()
    assert restore_sessions(sessions, saved) == ["session bg: 4 message(s) from 2 run(s)"]
    assert [message.text for message in sessions.get("bg").messages] == live
    assert sorted(live) == sorted(["First?", "Second?", "one", "two"])
    assert nbformat.read(root / name, as_version=4).cells[1].outputs, "the saved cell has its transcript"
