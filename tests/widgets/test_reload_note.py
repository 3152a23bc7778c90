"""A foreground cell's line for a page reloaded mid-run (issue 43, item 5).

A reloaded page receives no more of the running cell's outputs, only its widgets' state;
so the line under the view is a widget, which becomes, when the run ends, a line saying
how to keep the run followed by its transcript. ``%agent show`` of that run saves the data
its cell would have saved, and ``%agent restore`` reads a run saved twice once.
"""

from __future__ import annotations

import json
import types

import pytest
from ipywidgets.widgets.widget import _instances as open_widgets

import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _live, _show
from openprogram_jupyter.jupyter._live import LiveRun
from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, remember_saved_data, saved_run_metadata

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def displayed(monkeypatch):
    """Every bundle displayed (with its keyword arguments); ``"cleared"`` where outputs were cleared."""
    shown: list = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, **kwargs: shown.append((bundle, kwargs)))
    monkeypatch.setattr("IPython.display.clear_output", lambda *a, **k: shown.append("cleared"))
    return shown


def _widget(model_id: str):
    return open_widgets[model_id]


def test_the_line_becomes_the_ended_run_and_its_transcript_and_stays_open(displayed, monkeypatch):
    monkeypatch.setattr(_live, "SHOW_AFTER_SECONDS", 0.0)
    live = LiveRun(widgets=True, clicks=True)
    live.show_again = "%agent show r"
    live.show(foreground=True)
    live.tick()
    view, line = displayed[0][0], displayed[1][0]
    assert "run %agent show r in a cell to see it" in line["text/plain"]
    note = _widget(line[WIDGET_MIME]["model_id"])
    assert "run %agent show r in a cell to see it" in note.value

    run = op.Runtime(model=op.ScriptedModel(["The <b>answer</b> is 42."])).run("Answer.")
    live.finish(run, metadata={"openprogram": {"format": 1}})

    assert displayed[2] == "cleared" and "The <b>answer</b> is 42." in displayed[3][0]["text/plain"]
    assert note.value.index("The run has ended") < note.value.index("The &lt;b&gt;answer")  # escaped
    assert "run %agent show r in a cell to keep it" in note.value and "finished" in note.value
    assert note.comm is not None  # left open: a reloaded page may still ask for its state
    assert view[WIDGET_MIME]["model_id"] not in open_widgets  # the view itself is closed


def test_a_cell_that_never_showed_its_view_shows_no_line(displayed):
    live = LiveRun(widgets=True, clicks=True)
    live.show(foreground=True)  # the run ends before the view is due
    live.finish(op.Runtime(model=op.ScriptedModel(["Done."])).run("Go."))
    assert [type(item) for item in displayed] == [tuple]  # the transcript alone, nothing cleared
    assert WIDGET_MIME not in displayed[0][0]


def test_agent_show_of_a_cells_run_saves_the_data_that_cell_saved(displayed, monkeypatch):
    monkeypatch.setattr(_show, "get_ipython", lambda: types.SimpleNamespace(kernel=object()))
    run = op.Runtime(model=op.ScriptedModel(["Done."])).run("Say done.")
    metadata = saved_run_metadata(run, "s", 0)
    remember_saved_data(run, metadata)
    _show.show_run(run)
    assert displayed[-1][1].get("metadata") == metadata
    _show.show_run(op.Runtime(model=op.ScriptedModel(["Other."])).run("Go."))  # no cell saved this one
    assert "metadata" not in displayed[-1][1]


def test_a_run_saved_twice_is_restored_once_where_it_was_first_saved(tmp_path):
    run = op.Runtime(model=op.ScriptedModel(["Done."])).run("Say done.")
    saved = saved_run_metadata(run, "s", 0)
    other = saved_run_metadata(op.Runtime(model=op.ScriptedModel(["More."])).run("More."), "s", 2)
    outputs = [[saved], [other], [saved]]  # the cell, the next cell, then %agent show of the first run
    cells = [
        {
            "cell_type": "code",
            "source": "",
            "metadata": {},
            "execution_count": 1,
            "outputs": [{"output_type": "display_data", "data": {}, "metadata": m} for m in each],
        }
        for each in outputs
    ]
    path = tmp_path / "saved.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}))
    runs = read_saved_runs(path)
    assert [(r.run_id, r.cell) for r in runs] == [(run.run_id, 0), (other["openprogram"]["run_id"], 1)]
