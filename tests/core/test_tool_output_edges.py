"""What a tool's card catches of its output, at the edges (issue 45 item 3): a figure the
notebook opened before the call is neither caught nor closed, only the ones the tool left
open are; a display the tool shows is caught, an update of a display (``update=True``)
goes where it would without us."""

from __future__ import annotations

import matplotlib
import pytest

import openprogram_jupyter as op

from .conftest import call, results

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # after the backend is chosen


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
