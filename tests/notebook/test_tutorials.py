"""The three tutorials (notebooks/tutorial-*.ipynb, rendered into the docs site) execute
with no key on both kernels and show what their text promises: a Stop that ends the run
with "aborted", a cost without a key, a tool version that the comparison prefers and a
test written from its run that passes, and grading cells that pass and one that fails
with the values the student's tool returned. Their saved outputs are compared by
test_notebooks.py like every notebook's."""

from __future__ import annotations

import pytest

from .test_notebooks import NOTEBOOKS, agent_cells, assert_ran, assert_static, execute, plain

pytestmark = pytest.mark.slow


def _texts(notebook) -> str:
    return "\n".join(plain(cell) for cell in notebook.cells if cell.cell_type == "code")


async def test_first_agent_cell_stops_a_run_and_shows_a_cost(kernel_name):
    notebook = await execute(NOTEBOOKS / "tutorial-first-agent-cell.ipynb", kernel_name)
    add_cell, _background, costed = agent_cells(notebook)
    assert_ran(add_cell, [("add", {"a": 1.5, "b": 2.25})], [("done", "3.75")], "stop")
    texts = _texts(notebook)
    assert "'aborted'" in texts  # handle.abort() ended the ten-second tool's run
    assert "1,240 tokens (1,200 in, 40 out) · $0.0005" in texts
    assert "1200 tokens in, 40 out, $ 0.000544" in texts
    assert_ran(costed, [], [], "stop")


async def test_improve_a_tool_prefers_the_clear_description_and_its_test_passes(kernel_name):
    notebook = await execute(NOTEBOOKS / "tutorial-improve-a-tool.ipynb", kernel_name)
    assert_static(notebook)
    texts = _texts(notebook)
    assert "B (clear) passes 3 prompts A (terse) fails, A (terse) passes 0 B (clear) fails" in texts
    [good] = agent_cells(notebook)
    assert_ran(good, [("get_weather", {"city": "Oslo"})], [("done", "Sunny in Oslo")], "stop")
    assert "from weather_tools import get_weather" in texts
    assert "2 passed" in texts.splitlines()  # the pytest file written from the run, run by pytest


async def test_graded_lesson_passes_its_checks_and_shows_a_wrong_tool_s_values(kernel_name):
    notebook = await execute(NOTEBOOKS / "tutorial-graded-lesson.ipynb", kernel_name)
    assert_static(notebook)
    [run] = agent_cells(notebook)
    assert_ran(
        run,
        [("celsius_to_fahrenheit", {"celsius": -5}), ("is_freezing", {"fahrenheit": 23.0})],
        [("done", "23.0"), ("done", "true")],
        "stop",
    )
    texts = _texts(notebook)
    assert "✓ 2 check(s) passed" in texts and "✓ 3 check(s) passed" in texts
    assert "expected a call to celsius_to_fahrenheit that returned a value for which <lambda> is true; " in texts
    assert "its calls returned -9.0." in texts
