"""A cell that comes while the warm-up is still importing takes the rest over: it waits
for the step under way, not for the warm-up's whole list (``jupyter/_warm_up.py``). Other
entry points wait for the whole list, as before."""

from __future__ import annotations

import threading
import types

import pytest

from openprogram_jupyter.jupyter import _warm_up


@pytest.fixture
def slow_warm_up(monkeypatch):
    """A warm-up (on the offline model) whose first import blocks until released; yields
    ``(thread, imported names, release)`` once that first import has started."""
    imported: list[str] = []
    started, release = threading.Event(), threading.Event()

    def import_module(name: str) -> None:
        imported.append(name)
        started.set()
        release.wait(10)

    monkeypatch.setattr(_warm_up, "importlib", types.SimpleNamespace(import_module=import_module))
    magics = types.SimpleNamespace(model="offline")
    monkeypatch.setattr(_warm_up, "_running", None)
    _warm_up._taken_over.clear()
    thread = threading.Thread(target=_warm_up.warm_up, args=(magics, None), name=_warm_up.THREAD_NAME, daemon=True)
    monkeypatch.setattr(_warm_up, "_running", thread)
    thread.start()
    assert started.wait(10)
    yield thread, imported, release
    release.set()
    thread.join(10)
    _warm_up._taken_over.clear()


def test_an_agent_cell_waits_for_the_step_under_way_and_no_more(slow_warm_up):
    thread, imported, release = slow_warm_up
    threading.Timer(0.2, release.set).start()
    _warm_up.wait_for_warm_up(take_over=True)
    assert not thread.is_alive()
    assert imported == [_warm_up._BEFORE_REQUEST[0]], "the warm-up went on after the cell took over"


def test_other_entry_points_wait_for_the_whole_warm_up(slow_warm_up):
    thread, imported, release = slow_warm_up
    threading.Timer(0.2, release.set).start()
    _warm_up.wait_for_warm_up()
    assert not thread.is_alive()
    assert imported == [*_warm_up._BEFORE_REQUEST, *_warm_up._AFTER_REPLY]
