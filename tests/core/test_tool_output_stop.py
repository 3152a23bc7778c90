"""What a stopped call's card says of the figures its tool left open (docs/faults.md and
docs/tools.md): drawn no further once Stop lands, closed undrawn, said so on stderr; the
notebook's own figures untouched; no such note when there were no figures to draw."""

from __future__ import annotations

import sys
import threading
import time

import matplotlib
import pytest

import openprogram_jupyter as op

from .conftest import call, results

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after the backend is chosen
from matplotlib.artist import Artist

NOT_DRAWN = "[the figures this call left open were not drawn: the run was stopped]\n"


@pytest.fixture(autouse=True)
def no_figures_left():
    plt.close("all")
    yield
    plt.close("all")


def open_figures_become(expected: list[int], seconds: float = 10) -> list[int]:
    """The open figures once they are ``expected`` (the worker closes them after the run
    has ended), or as they are after ``seconds``."""
    deadline = time.monotonic() + seconds
    while plt.get_fignums() != expected and time.monotonic() < deadline:
        time.sleep(0.02)
    return plt.get_fignums()


def test_stop_while_a_figure_is_drawn_draws_no_further_one_and_closes_the_rest():
    abort, release = threading.Event(), threading.Event()
    drawn: list[str] = []

    class Slow(Artist):
        def __init__(self, label: str) -> None:
            super().__init__()
            self.label = label

        def draw(self, renderer) -> None:
            drawn.append(self.label)
            if self.label == "first":
                abort.set()  # the user clicks Stop while this figure is drawn
                release.wait(10)

    mine = plt.figure()  # the notebook's own, opened before the call

    @op.function
    def plots() -> str:
        """Two figures, left open."""
        for label in ("first", "second"):
            plt.figure().add_artist(Slow(label))
        return "plotted"

    try:
        run = op.Runtime(model=op.ScriptedModel([call("plots"), "never"])).run("go", tools=[plots], abort=abort)
    finally:
        release.set()
    [result] = results(run)
    assert (run.stop_reason, result.status) == ("aborted", "cancelled")
    assert result.details["output"] == [{"type": "stream", "name": "stderr", "text": NOT_DRAWN}]
    assert open_figures_become([mine.number]) == [mine.number]
    assert "second" not in drawn


def test_a_call_stopped_while_running_closes_its_figures_undrawn_and_says_so_not_the_notebook_s():
    abort, release = threading.Event(), threading.Event()

    mine = plt.figure()

    @op.function
    def plot_then_hang() -> str:
        """Open two figures, add a line to the notebook's, then ignore Stop."""
        plt.figure().gca().plot([1, 2])
        plt.figure().gca().plot([2, 1])
        plt.figure(mine.number).gca().plot([3, 3])  # the notebook's figure is the current one now
        abort.set()
        release.wait(10)
        return "too late"

    runtime = op.Runtime(model=op.ScriptedModel([call("plot_then_hang"), "never"]), cancel_grace=0.1)
    try:
        run = runtime.run("go", tools=[plot_then_hang], abort=abort)
        [result] = results(run)
        assert result.status == "interrupted"
        assert result.details["output"] == [{"type": "stream", "name": "stderr", "text": NOT_DRAWN}]
        assert plt.get_fignums() == [mine.number]
    finally:
        release.set()


def test_a_stopped_call_in_a_notebook_without_pyplot_says_nothing_of_figures(monkeypatch):
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot")
    abort, release = threading.Event(), threading.Event()

    @op.function
    def hang() -> str:
        """Print, then ignore Stop."""
        print("working")
        abort.set()
        release.wait(10)
        return "too late"

    runtime = op.Runtime(model=op.ScriptedModel([call("hang"), "never"]), cancel_grace=0.1)
    try:
        [result] = results(runtime.run("go", tools=[hang], abort=abort))
    finally:
        release.set()
    assert result.status == "interrupted"
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "working\n"}]
