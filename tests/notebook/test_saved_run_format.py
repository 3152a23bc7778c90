"""What a ``%%agent`` cell saves in the notebook, what ``%agent restore`` reads back from
it, and where it looks for the notebook (jupyter/_saved_runs.py; issue 45's mutation
survivors): each field saved under its name, each read back as saved; a run saved twice
counted once whatever its keys' order; cells that are not code cells skipped and not
counted; the restored session a fresh one, its runs listed as restored; the notebook
found from JupyterLab's ``JPY_SESSION_NAME`` or VS Code's ``__vsc_ipynb_file__`` only
when it is an existing ``.ipynb``."""

from __future__ import annotations

import json
import locale
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.errors import SetupError
from openprogram_jupyter.jupyter._saved_runs import notebook_path, read_saved_runs, restore_sessions, saved_run_metadata
from openprogram_jupyter.jupyter._sessions import Sessions

from .test_restore_untrusted import messages, notebook_with, saved


def _notebook(tmp_path: Path, cells: list[Any]) -> Path:
    path = tmp_path / "cells.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _code_cell(*saved_runs: dict[str, Any], **fields: Any) -> dict[str, Any]:
    outputs = [{"output_type": "display_data", "data": {}, "metadata": {"openprogram": s}} for s in saved_runs]
    return {"cell_type": "code", "source": "%%agent", "metadata": {}, "outputs": outputs, **fields}


def test_a_cell_saves_each_field_of_its_run_under_its_name():
    run = op.Runtime(model=op.ScriptedModel(["hello"])).run("hi")
    data = saved_run_metadata(run, "lesson", 3, session_created_at=50.0)["openprogram"]
    assert {key: value for key, value in data.items() if key != "messages"} == {
        "format": 1,
        "run_id": run.run_id,
        "model": run.model,
        "session": "lesson",
        "history_length": 3,
        "appended_at": 3,  # right after its history, when the session did not say where
        "started_at": run.started_at,
        "stop_reason": "stop",
        "session_created_at": 50.0,
    }
    assert saved_run_metadata(run, "lesson", 3, appended_at=5)["openprogram"]["appended_at"] == 5


def test_a_saved_run_is_read_back_as_it_was_saved(tmp_path):
    run = op.Runtime(model=op.ScriptedModel(["hello"])).run("hi")
    data = saved_run_metadata(run, "lesson", 2, appended_at=4, session_created_at=50.0)["openprogram"]
    (back,) = read_saved_runs(_notebook(tmp_path, [_code_cell(data, id="cell-a")]))
    assert (back.run_id, back.session, back.history_length, back.appended_at) == (run.run_id, "lesson", 2, 4)
    assert (back.started_at, back.stop_reason, back.session_created_at) == (run.started_at, "stop", 50.0)
    assert (back.cell, back.cell_id) == (0, "cell-a")
    assert [m.text for m in back.messages] == ["hi", "hello"]


def test_a_run_saved_again_with_its_keys_in_another_order_is_read_once(tmp_path):
    first = saved(messages("one"))
    reordered = dict(reversed(list(first.items())))
    assert json.dumps(reordered) != json.dumps(first)
    runs = read_saved_runs(_notebook(tmp_path, [_code_cell(first), _code_cell(reordered)]))
    assert [(run.cell, run.messages[0].text) for run in runs] == [(0, "one")]


def test_a_run_saved_twice_in_one_cell_does_not_hide_the_runs_after_it(tmp_path):
    one, two = saved(messages("one"), run_id="a"), saved(messages("two"), run_id="b")
    runs = read_saved_runs(_notebook(tmp_path, [_code_cell(one, one, two)]))
    assert [run.run_id for run in runs] == ["a", "b"]


def test_only_code_cells_are_read_and_counted(tmp_path):
    stray = {"cell_type": "markdown", "source": "x", "outputs": [{"metadata": {"openprogram": saved(messages("md"))}}]}
    bad = saved(messages("two"), history_length=-1)
    with pytest.raises(SetupError, match=r"^code cell 1: its saved run has a bad history_length"):
        read_saved_runs(_notebook(tmp_path, ["not a cell", stray, _code_cell(bad)]))
    runs = read_saved_runs(_notebook(tmp_path, ["not a cell", stray, _code_cell(saved(messages("one")))]))
    assert [(run.cell, run.messages[0].text) for run in runs] == [(0, "one")]


@pytest.fixture
def ascii_locale():
    """The process's text encoding ASCII, as under a ``C`` locale, for one test."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, before)


def test_a_notebook_is_read_as_utf_8_whatever_the_locale(tmp_path, ascii_locale):
    path = tmp_path / "unicode.ipynb"
    notebook = {"cells": [_code_cell(saved(messages("Grüße, ½ café")))], "metadata": {}, "nbformat": 4}
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")  # as Jupyter saves it
    (run,) = read_saved_runs(path)
    assert run.messages[0].text == "Grüße, ½ café"


def test_a_notebook_without_cells_holds_no_runs(tmp_path):
    path = tmp_path / "empty.ipynb"
    path.write_text(json.dumps({"metadata": {}, "nbformat": 4}))
    assert read_saved_runs(path) == []


def test_a_cell_id_that_is_not_text_is_no_cell_id(tmp_path):
    (run,) = read_saved_runs(_notebook(tmp_path, [_code_cell(saved(messages("one")), id=7)]))
    assert run.cell_id is None


def test_a_notebook_that_cannot_be_read_is_refused_saying_why(tmp_path):
    missing = tmp_path / "gone.ipynb"
    with pytest.raises(SetupError) as refused:
        read_saved_runs(missing)
    assert str(refused.value) == f"cannot read {missing}: No such file or directory"


def test_the_restored_session_replaces_the_kernels_and_lists_its_runs_as_restored(tmp_path):
    sessions = Sessions()
    old = sessions.get("lesson")
    old.messages.append(op.UserMessage(content="forgotten"))
    old.runs.append(SimpleNamespace(stop_reason="stop"))
    path = notebook_with(tmp_path, saved(messages("one"), stop_reason="length"), saved(messages("two"), appended_at=2))
    restore_sessions(sessions, read_saved_runs(Path(path)))
    session = sessions.get("lesson")
    assert session is not old and [m.text for m in session.messages] == ["one", "re: one", "two", "re: two"]
    assert [run.stop_reason for run in session.runs] == ["length (restored)", "stop (restored)"]
    assert [[m.text for m in run.messages] for run in session.runs] == [["one", "re: one"], ["two", "re: two"]]


def test_each_run_past_the_history_the_notebook_holds_counts_as_a_gap(tmp_path):
    path = notebook_with(tmp_path, saved(messages("three"), appended_at=4), saved(messages("five"), appended_at=8))
    (line,) = restore_sessions(Sessions(), read_saved_runs(Path(path)))
    assert line.startswith("session lesson: 4 message(s) from 2 run(s); 2 run(s) had more history than")


def _shell(namespace: dict[str, Any] | None = None) -> SimpleNamespace:
    return SimpleNamespace(user_ns=namespace or {})


def test_the_notebook_is_where_jupyterlab_or_vs_code_says(tmp_path, monkeypatch):
    lab, code = tmp_path / "lab.ipynb", tmp_path / "code.ipynb"
    lab.write_text("{}")
    code.write_text("{}")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert notebook_path(None) is None
    assert notebook_path(_shell()) is None
    assert notebook_path(_shell({"__vsc_ipynb_file__": str(code)})) == code
    monkeypatch.setenv("JPY_SESSION_NAME", str(lab))
    assert notebook_path(None) == lab
    assert notebook_path(_shell({"__vsc_ipynb_file__": str(code)})) == lab


def test_a_named_file_that_is_no_existing_notebook_is_not_the_notebook(tmp_path, monkeypatch):
    script = tmp_path / "script.py"
    script.write_text("")
    monkeypatch.setenv("JPY_SESSION_NAME", str(script))
    assert notebook_path(None) is None
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "gone.ipynb"))
    assert notebook_path(_shell({"__vsc_ipynb_file__": str(script)})) is None
