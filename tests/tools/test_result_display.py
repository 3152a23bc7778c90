"""A result's rich display (``details["display"]``): DataFrames, figures, images and
``render=``; the model still reads text. pandas, matplotlib and PIL are recognized, never
imported."""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools._display import DISPLAY_MAX_CHARS, result_display
from openprogram_jupyter.tools.registry import default_registry

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
PNG_DISPLAY = {"mime": "image/png", "data": base64.b64encode(PNG).decode()}


class DataFrame:
    """Looks like pandas' DataFrame where it matters: its module and ``_repr_html_``."""

    __module__ = "pandas.core.frame"

    def _repr_html_(self) -> str:
        return "<table><tr><td onclick='x()'>1</td></tr></table>"

    def __repr__(self) -> str:
        return "   a\n0  1"


class Figure:
    """Looks like matplotlib's Figure: its module and ``savefig``."""

    __module__ = "matplotlib.figure"

    def savefig(self, buffer, format: str, bbox_inches: str) -> None:
        assert format == "png"
        buffer.write(PNG)

    def __repr__(self) -> str:
        return "<Figure size 640x480 with 1 Axes>"


@pytest.fixture(autouse=True)
def clean_registry():
    default_registry.clear()
    yield
    default_registry.clear()


def run_tool(tool, model_calls=1):
    model = op.ScriptedModel([op.ToolCall(name=tool.name)] * model_calls + ["done"])
    run = op.Runtime(model=model).run("go", tools=[tool])
    return run.tool_results


def test_a_dataframe_shows_its_html_and_the_model_reads_its_text():
    @op.function
    def table() -> object:
        """A table."""
        return DataFrame()

    [result] = run_tool(table)
    assert result.text == "   a\n0  1"
    assert result.details["display"] == {"mime": "text/html", "data": DataFrame()._repr_html_()}


def test_a_figure_shows_as_png_and_the_model_sees_the_same_picture():
    @op.function
    def plot() -> object:
        """A plot."""
        return Figure()

    [result] = run_tool(plot)
    assert result.content == [op.ImageContent(data=PNG_DISPLAY["data"], mime_type="image/png")]
    assert result.details["display"] == PNG_DISPLAY


def test_plain_values_have_no_display():
    assert result_display({"a": 1}) is None
    assert result_display("<b>text</b>") is None  # a string result is text, not HTML


def test_render_decides_the_display():
    @op.function(render=lambda rows: "<ul>" + "".join(f"<li>{r}</li>" for r in rows) + "</ul>")
    def rows() -> list:
        """Rows."""
        return ["a", "b"]

    [result] = run_tool(rows)
    assert result.text == '[\n  "a",\n  "b"\n]'
    assert result.details["display"] == {"mime": "text/html", "data": "<ul><li>a</li><li>b</li></ul>"}


@pytest.mark.parametrize(
    ("shown", "display"),
    [
        (None, None),
        (DataFrame(), {"mime": "text/html", "data": DataFrame()._repr_html_()}),
        (Figure(), PNG_DISPLAY),
        ((PNG, "image/png"), PNG_DISPLAY),
        (
            type("HTMLish", (), {"_repr_html_": lambda self: ("<b>x</b>", {})})(),
            {"mime": "text/html", "data": "<b>x</b>"},
        ),
        (type("PNGish", (), {"_repr_png_": lambda self: PNG})(), PNG_DISPLAY),
    ],
)
def test_render_may_return_what_a_notebook_would_display(shown, display):
    assert result_display("value", render=lambda _value: shown) == display


def test_a_pil_image_from_render_is_a_png():
    from PIL import Image

    display = result_display("value", render=lambda _value: Image.new("RGB", (2, 2)))
    assert display is not None and display["mime"] == "image/png"
    assert base64.b64decode(display["data"]).startswith(b"\x89PNG")


def test_a_failing_or_useless_display_is_a_note_and_the_call_still_succeeds():
    def broken(_value):
        raise ValueError("no view")

    @op.function(render=broken)
    def work() -> str:
        """Work."""
        return "worked"

    [result] = run_tool(work)
    assert result.status == "done" and result.text == "worked"
    assert result.details["display"] == {"mime": "text/plain", "data": "the tool's render= raised ValueError: no view"}
    assert result_display(1, render=lambda v: 42) == {
        "mime": "text/plain",
        "data": "render= returned int, which has no HTML or image form",
    }
    huge = result_display(1, render=lambda v: "x" * (DISPLAY_MAX_CHARS + 1))
    assert huge is not None and huge["mime"] == "text/plain" and "left out" in huge["data"]


def test_render_must_be_callable():
    with pytest.raises(TypeError, match="render must be a callable"):
        op.function(render="<b>")(lambda: 1)


def test_a_dict_tool_may_declare_render():
    tool = {
        "spec": {"name": "t", "parameters": {"type": "object", "properties": {}}},
        "execute": lambda: 3,
        "render": lambda value: f"<b>{value}</b>",
    }
    model = op.ScriptedModel([op.ToolCall(name="t"), "done"])
    [result] = op.Runtime(model=model).run("go", tools=[tool]).tool_results
    assert result.details["display"] == {"mime": "text/html", "data": "<b>3</b>"}


def test_detection_never_imports_pandas_matplotlib_or_pil():
    code = (
        "import sys, openprogram_jupyter.tools._display as d\n"
        "d.result_display({'a': 1}); d.result_display(object()); d.result_display('x', render=lambda v: v)\n"
        "print(*[m in sys.modules for m in ('pandas', 'matplotlib', 'PIL')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False"]


def test_approvals_are_recorded_in_the_result():
    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete."""
        return f"deleted {path}"

    model = op.ScriptedModel(
        [
            [op.ToolCall(name="delete", arguments={"path": "a"}), op.ToolCall(name="delete", arguments={"path": "b"})],
            "done",
        ]
    )
    run = op.Runtime(model=model, approve=lambda request: request.arguments["path"] == "a").run("go", tools=[delete])
    approved, denied = run.tool_results
    assert (approved.status, approved.details["approval"]) == ("done", "approved")
    assert (denied.status, denied.details["approval"]) == ("denied", "denied")
    unasked = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="delete", arguments={"path": "c"}), "ok"]))
    [result] = unasked.run("go", tools=[delete]).tool_results
    assert result.status == "denied" and "approval" not in result.details  # no one was asked
