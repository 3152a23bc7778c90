"""A ``-s NAME`` cell after a kernel restart, when the saved notebook holds the session.

A cell that continues the session must not quietly start a conversation that has forgotten
its past: it is refused with a line saying how to restore it. The cell that *started* the
session is different: running it again is running the notebook again from where the
session began (Run All after a restart, or a shipped notebook opened fresh), and it had
no history to forget. Which cell is running, the frontend says: JupyterLab and Notebook 7
send the cell's notebook id as ``cellId`` in the execute request's metadata, which
ipykernel's shell hands back from ``get_parent()``; this file gives the in-process shell
that method. The same path in a real JupyterLab: tests/browser/test_lab_run_all_again.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _LOADED
from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, running_cell_id
from openprogram_jupyter.jupyter._sessions import Sessions

from .test_restore_untrusted import messages, saved

START, NEXT = "start-cell", "next-cell"


def lesson_notebook(tmp_path: Path, *, with_ids: bool = True, run_alls: int = 1) -> Path:
    """A saved notebook whose session ``lesson`` was started by cell ``START`` and continued
    by cell ``NEXT`` (with ``with_ids=False``: an nbformat 4.4 notebook, no cell ids), saved
    after ``run_alls`` Run Alls in one kernel: each Run All after the first continued the
    session, so the outputs saved are the last pass's, ``START``'s with history too."""
    before = 4 * (run_alls - 1)  # two messages a cell, two cells a pass
    runs = [
        saved(messages("My name is Ada."), history_length=before, appended_at=before),
        saved(messages("What is my name?"), history_length=before + 2, appended_at=before + 2),
    ]
    cells = []
    for cell_id, run in zip((START, NEXT), runs, strict=True):
        cell = {
            "cell_type": "code",
            "source": "%%agent -s lesson",
            "metadata": {},
            "execution_count": 1,
            "outputs": [{"output_type": "display_data", "data": {}, "metadata": {"openprogram": run}}],
        }
        if with_ids:
            cell["id"] = cell_id
        cells.append(cell)
    path = tmp_path / "lesson.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5 if with_ids else 4}))
    return path


@pytest.fixture(params=[1], ids=["run-all-once"])
def run_alls(request) -> int:
    return request.param


@pytest.fixture
def restarted(shell, tmp_path, monkeypatch, run_alls):
    """The shell as after a kernel restart in JupyterLab: no sessions, the notebook's path in
    ``JPY_SESSION_NAME``; returns ``run(cell_id, prompt)``, which runs a ``-s lesson`` cell
    as the cell ``cell_id`` (``None``: a frontend that sends no id) and returns the model."""
    monkeypatch.setattr(_LOADED[id(shell)], "sessions", Sessions())
    monkeypatch.setenv("JPY_SESSION_NAME", str(lesson_notebook(tmp_path, run_alls=run_alls)))

    def run(cell_id: str | None, prompt: str) -> op.ScriptedModel:
        metadata = {} if cell_id is None else {"cellId": cell_id}
        request = {"header": {"msg_type": "execute_request"}, "metadata": metadata}
        monkeypatch.setattr(shell, "get_parent", lambda: request, raising=False)
        model = shell.user_ns["m"] = op.ScriptedModel(["noted"])
        shell.run_cell_magic("agent", "-m m -s lesson", prompt)
        return model

    return run


@pytest.mark.parametrize("run_alls", [1, 2, 3], ids=["run-all-once", "twice", "three-times"], indirect=True)
def test_running_the_cell_that_started_the_session_starts_it_again(restarted, shell):
    """However many times the notebook ran before it was saved (issue 43, item 3b)."""
    model = restarted(START, "My name is Ada.")
    assert [m.text for m in model.requests[0].messages] == ["My name is Ada."]
    later = restarted(NEXT, "What is my name?")  # the kernel has the session now: the next cell continues it
    assert [m.text for m in later.requests[0].messages] == ["My name is Ada.", "noted", "What is my name?"]


@pytest.mark.parametrize("run_alls", [1, 3], ids=["run-all-once", "three-times"], indirect=True)
def test_a_cell_that_continued_the_session_is_refused(restarted):
    with pytest.raises(UsageError, match=r"has no session 'lesson'.*%agent restore"):
        restarted(NEXT, "What is my name?")


@pytest.mark.parametrize("cell_id", [None, "some-other-cell"])
def test_a_cell_that_is_not_the_sessions_start_is_refused(restarted, cell_id):
    with pytest.raises(UsageError, match="has no session 'lesson'"):
        restarted(cell_id, "My name is Ada.")


@pytest.mark.parametrize("cell_id", [START, None])
def test_without_cell_ids_in_the_notebook_the_start_cell_is_not_known_and_is_refused(
    restarted, tmp_path, monkeypatch, cell_id
):
    monkeypatch.setenv("JPY_SESSION_NAME", str(lesson_notebook(tmp_path, with_ids=False)))
    assert [run.cell_id for run in read_saved_runs(tmp_path / "lesson.ipynb")] == [None, None]
    with pytest.raises(UsageError, match="has no session 'lesson'"):
        restarted(cell_id, "My name is Ada.")


class _Shell:
    def __init__(self, parent: object) -> None:
        self.parent = parent

    def get_parent(self) -> object:
        if isinstance(self.parent, Exception):
            raise self.parent
        return self.parent


@pytest.mark.parametrize(
    ("parent", "expected"),
    [
        ({"metadata": {"cellId": "abc-1"}}, "abc-1"),
        ({"metadata": {}}, None),
        ({"metadata": {"cellId": ""}}, None),
        ({"metadata": {"cellId": ["abc-1"]}}, None),
        ({"metadata": "cellId"}, None),
        ({}, None),
        (None, None),
        (KeyError("no parent yet"), None),
    ],
)
def test_the_running_cells_id_is_read_from_the_request_or_is_none(parent, expected):
    assert running_cell_id(_Shell(parent)) == expected  # type: ignore[arg-type]
    assert running_cell_id(None) is None
