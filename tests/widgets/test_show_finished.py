"""``%agent show r`` / ``r.show()`` of a finished run draws the static transcript only: no
widget view, which a saved notebook could not draw again (issue 43, item 4)."""

from __future__ import annotations

import types

import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _show


def test_a_finished_run_is_shown_as_its_static_transcript_only(monkeypatch):
    shown: list[dict] = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, **kwargs: shown.append(bundle))
    monkeypatch.setattr(_show, "get_ipython", lambda: types.SimpleNamespace(kernel=object()))  # a kernel is there
    run = op.Runtime(model=op.ScriptedModel(["Done."])).run("Say done.")
    _show.show_run(run)
    assert len(shown) == 1
    assert set(shown[0]) == {"text/plain", "text/html", "text/markdown"}, set(shown[0])
    assert "Done." in shown[0]["text/plain"]
