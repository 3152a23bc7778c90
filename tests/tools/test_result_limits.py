"""Tool output that cannot flood the context (issue 47, item 1): the cut and its note, the
run's ``max_result_chars`` and a tool's own, the full value kept in the run, a DataFrame or
Series as its shape, dtypes, head and tail, and pictures counted against the limit."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from PIL import Image

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import ImageContent, TextContent
from openprogram_jupyter.tools.results import result_content


def call(name: str, **arguments) -> op.ToolCall:
    return op.ToolCall(name=name, arguments=arguments)


def _png(size: int = 8) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def test_a_cut_result_says_how_much_was_cut_and_how_to_read_the_rest():
    content, details = result_content("a" * 3000 + "b" * 3000, 1000)
    text = content[0].text
    assert "5,000 characters cut of 6,000" in text
    assert "max_result_chars=1,000" in text
    assert "call the tool again for a narrower part" in text
    assert details["truncated_chars"] == 5000 and details["original_chars"] == 6000


def test_the_card_keeps_the_full_text_of_a_cut_result():
    full = "".join(f"line {n}\n" for n in range(2000))
    _content, details = result_content(full, 500)
    assert details["full_text"] == full


def test_a_dataframe_reaches_the_model_as_shape_dtypes_head_and_tail():
    frame = pd.DataFrame(
        {"city": [f"c{n}" for n in range(200_000)], "pop": range(200_000), "share": [n / 7 for n in range(200_000)]}
    )
    content, details = result_content(frame, 2000)
    [block] = content
    text = block.text
    assert len(text) <= 2000
    assert text.startswith("pandas DataFrame: 200,000 rows × 3 columns")
    assert "city (object)" in text or "city (str)" in text
    assert "pop (int64)" in text and "share (float64)" in text
    assert "c0 " in text and "c199999" in text  # the first and the last rows
    assert "c100000" not in text
    assert details["rows_shown"] < 200_000 and details["rows"] == 200_000


def test_a_small_dataframe_shows_every_row():
    content, details = result_content(pd.DataFrame({"x": [1, 2, 3]}), 2000)
    assert "pandas DataFrame: 3 rows × 1 columns" in content[0].text and details.get("rows_shown", 3) == 3
    assert "truncated_chars" not in details


def test_a_series_reaches_the_model_as_length_dtype_head_and_tail():
    series = pd.Series(range(50_000), name="ids", dtype="int32")
    content, _details = result_content(series, 1000)
    text = content[0].text
    assert len(text) <= 1000
    assert text.startswith("pandas Series 'ids': 50,000 rows, dtype int32")
    assert "49999" in text and "25000" not in text


def test_pictures_count_against_the_limit():
    pictures = [(_png(), "image/png") for _ in range(5)]
    content, details = result_content(pictures, 13_000)  # room for two pictures of 6,400 characters
    images = [block for block in content if isinstance(block, ImageContent)]
    notes = [block.text for block in content if isinstance(block, TextContent)]
    assert len(images) == 2
    assert notes == ["[3 of 5 pictures left out: past max_result_chars=13,000 (a picture counts as 6,400)]"]
    assert details["pictures_left_out"] == 3


def test_the_run_setting_limits_a_tool_without_its_own():
    @op.function(register_globally=False)
    def dump() -> str:
        """Long."""
        return "x" * 5000

    model = op.ScriptedModel([call("dump"), "ok"])
    run = op.Runtime(model=model).run("go", tools=[dump], max_result_chars=1000)
    [result] = run.tool_results
    assert result.details["truncated_chars"] == 4000
    assert run.results[result.tool_call_id] == "x" * 5000  # the full value stays in the run


def test_a_tool_of_its_own_limit_keeps_it_whatever_the_run_says():
    @op.function(register_globally=False, max_result_chars=3000)
    def dump() -> str:
        """Long."""
        return "x" * 5000

    model = op.ScriptedModel([call("dump"), "ok"])
    [result] = op.Runtime(model=model).run("go", tools=[dump], max_result_chars=1000).tool_results
    assert result.details["truncated_chars"] == 2000


def test_max_result_chars_below_one_hundred_is_refused_naming_it():
    with pytest.raises(op.SetupError, match="max_result_chars must be an int of at least 100"):
        op.Runtime(model=op.ScriptedModel(["ok"])).run("go", max_result_chars=50)
