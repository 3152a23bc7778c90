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


def test_a_jpeg_display_reaches_the_model_and_a_display_without_a_picture_is_passed_over():
    import base64
    import io

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display

    image = pytest.importorskip("PIL.Image")
    InteractiveShell.instance()
    buffer = io.BytesIO()
    image.new("RGB", (8, 8), "red").save(buffer, format="JPEG")
    jpeg = base64.b64encode(buffer.getvalue()).decode()

    @op.function(register_globally=False, figures_to_model=True)
    def show() -> str:
        """Show a table, then a photo."""
        display({"text/html": "<b>no picture</b>"}, raw=True)
        display({"image/jpeg": jpeg}, raw=True)
        return "shown"

    model = op.ScriptedModel([call("show"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[show]))
    assert result.status == "done" and _pictures_sent(model) == ["image/jpeg"]
