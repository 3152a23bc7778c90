"""What the model reads of a finished call's pictures (``engine/_call_result.py``): a
tool's own ``figures_to_model``, a figure among printed lines."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .conftest import call, results

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _showing(**flags: object):
    @op.function(register_globally=False, **flags)
    def show() -> str:
        """Show pictures."""
        print("drawing")
        plt.figure()
        plt.plot([1, 2, 3])
        return "shown"

    return show


def _pictures_sent(model: op.ScriptedModel) -> list[str]:
    return [
        block.mime_type for block in model.requests[1].messages[-1].content if type(block).__name__ == "ImageContent"
    ]


def test_a_tools_own_figures_to_model_hands_its_figure_to_the_model_among_printed_lines():
    model = op.ScriptedModel([call("show"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[_showing(figures_to_model=True)]))
    assert result.status == "done" and result.content[0].text.endswith("shown")
    assert _pictures_sent(model) == ["image/png"]


def test_without_figures_to_model_the_model_reads_no_picture():
    model = op.ScriptedModel([call("show"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[_showing()]))
    assert result.status == "done" and _pictures_sent(model) == []
