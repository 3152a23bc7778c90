"""What a tool's card catches of its output, at the edges (issue 45 item 3): a figure the
notebook opened before the call is neither caught nor closed, only the ones the tool left
open are; a display the tool shows is caught, an update of a display (``update=True``)
goes where it would without us."""

from __future__ import annotations

import base64
import sys

import matplotlib
import pytest

import openprogram_jupyter as op

from .conftest import call, results

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after the backend is chosen
from matplotlib.artist import Artist


@pytest.fixture(autouse=True)
def no_figures_left():
    plt.close("all")
    yield
    plt.close("all")


def test_a_figure_opened_before_the_call_is_neither_caught_nor_closed():
    mine = plt.figure()

    @op.function
    def plot() -> str:
        """Plot."""
        plt.figure()
        plt.plot([1, 2])
        return "plotted"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("plot"), "ok"])).run("go", tools=[plot]))
    [caught] = result.details["output"]
    assert caught["data"]["text/plain"] == f"<Figure {mine.number + 1}>"
    assert plt.get_fignums() == [mine.number]


def test_a_display_is_caught_and_an_update_of_one_is_left_to_ipython(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display, update_display

    publisher = InteractiveShell.instance().display_pub
    passed_on: list[tuple[dict, object]] = []

    def publish(self, data, *args, **kwargs):  # what IPython itself would do with it, recorded
        passed_on.append((dict(data), kwargs.get("update")))

    monkeypatch.setattr(type(publisher), "publish", publish)

    @op.function
    def show() -> str:
        """Show."""
        display({"text/plain": "shown"}, raw=True)
        update_display({"text/plain": "updated"}, raw=True, display_id="d1")
        return "ok"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("show"), "ok"])).run("go", tools=[show]))
    assert [(item["type"], item["data"]) for item in result.details["output"]] == [("display", {"text/plain": "shown"})]
    assert passed_on == [({"text/plain": "updated"}, True)]


# -- what mutmut found unpinned in engine/_tool_output.py (docs/testing.md, "Mutation tool") --


def png_size(encoded: str) -> tuple[int, int]:
    """Width and height from a base64 PNG's header."""
    header = base64.b64decode(encoded)[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def plot_left_open(draw) -> op.ToolResultMessage:
    @op.function
    def plot() -> str:
        """Plot."""
        draw(plt.figure())
        return "plotted"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("plot"), "ok"])).run("go", tools=[plot]))
    return result


def test_a_figure_is_kept_as_png_whatever_format_the_notebook_saves_figures_in():
    with plt.rc_context({"savefig.format": "svg"}):
        result = plot_left_open(lambda figure: figure.gca().plot([1, 2]))
    [caught] = result.details["output"]
    assert png_size(caught["data"]["image/png"]) > (0, 0)


def test_text_drawn_beside_the_axes_is_in_the_kept_figure_not_cut_off():
    def draw(figure):
        figure.gca().plot([1, 2])
        figure.text(1.3, 0.5, "a legend placed beside the plot")

    [caught] = plot_left_open(draw).details["output"]
    width, _ = png_size(caught["data"]["image/png"])
    assert width > 640  # the figure's own canvas is 640 px wide (6.4 in at 100 dpi)


def test_a_figure_that_cannot_be_drawn_is_said_so_on_stderr_and_closed():
    class Broken(Artist):
        def draw(self, renderer):
            raise RuntimeError("no ink")

    numbers: list[int] = []

    def draw(figure):
        numbers.append(figure.number)
        figure.add_artist(Broken())

    result = plot_left_open(draw)
    assert result.text == "plotted"
    said = f"[figure {numbers[0]} could not be drawn: RuntimeError: no ink]\n"
    assert result.details["output"] == [{"type": "stream", "name": "stderr", "text": said}]
    assert plt.get_fignums() == []


def test_a_notebook_that_never_imported_pyplot_still_gets_the_tool_s_output(monkeypatch):
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot")

    @op.function
    def chatty() -> str:
        """Print."""
        print("no pyplot here")
        return "ok"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("chatty"), "ok"])).run("go", tools=[chatty]))
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "no pyplot here\n"}]


def test_image_bytes_in_a_display_are_kept_as_base64_and_other_bytes_are_dropped():
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display

    InteractiveShell.instance()  # display() publishes only in a shell
    picture = b"\x89PNG\r\n\x1a\n-a-small-picture"

    @op.function
    def show() -> str:
        """Show a picture given as bytes."""
        display({"image/png": picture, "text/html": b"<b>bytes</b>", "text/plain": "a picture"}, raw=True)
        return "ok"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("show"), "ok"])).run("go", tools=[show]))
    assert result.details["output"] == [
        {"type": "display", "data": {"image/png": base64.b64encode(picture).decode("ascii"), "text/plain": "a picture"}}
    ]


# -- the figures step's worker thread, only when there is a figure to draw --


@pytest.fixture
def figure_hops(monkeypatch) -> list[str]:
    """The names of the jobs the figures step hands to a worker thread."""
    from openprogram_jupyter.engine import _tool_output

    handed: list[str] = []
    real = _tool_output.run_in_daemon_thread

    def counted(fn, kwargs, *, name):
        handed.append(name)
        return real(fn, kwargs, name=name)

    monkeypatch.setattr(_tool_output, "run_in_daemon_thread", counted)
    return handed


@pytest.mark.parametrize("closes_its_figure", [False, True])
def test_a_call_that_leaves_no_new_figure_open_ends_without_the_figures_worker(figure_hops, closes_its_figure):
    mine = plt.figure()  # the notebook's own figure stays open and is not drawn either

    @op.function
    def tidy() -> str:
        """Plot and close, or print only."""
        if closes_its_figure:
            plt.close(plt.figure())
        print("done")
        return "ok"

    [result] = results(op.Runtime(model=op.ScriptedModel([call("tidy"), "ok"])).run("go", tools=[tidy]))
    assert figure_hops == []
    assert result.details["output"] == [{"type": "stream", "name": "stdout", "text": "done\n"}]
    assert plt.get_fignums() == [mine.number]


def test_a_call_that_leaves_a_figure_open_has_it_drawn_on_the_figures_worker(figure_hops):
    result = plot_left_open(lambda figure: figure.gca().plot([1, 2]))
    assert figure_hops == ["figures"]
    [caught] = result.details["output"]
    assert png_size(caught["data"]["image/png"]) > (0, 0)
    assert plt.get_fignums() == []
