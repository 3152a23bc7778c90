"""A real browser: clicking a row of an evaluation opens that run's transcript and the judge's verdict.

The rows are plain ``<details>`` (no script, no widget), so what is checked here is what
JupyterLab makes of them under its own styles: the columns line up with the header, a
row is closed until clicked, and a click opens the run right under it.
"""

from __future__ import annotations

import pytest

from .lab import OUTPUT, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef add(a: int, b: int) -> int:\n    '''Add two whole numbers.'''\n    return a + b",
    "careful = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': 1, 'b': 2}), 'The sum is 3.'],\n"
    "                           name='careful')\n"
    "quick = op.ScriptedModel(['Probably 4.'], name='quick')\n"
    "def verdict(request):\n"
    "    right = 'Final answer: The sum is 3.' in request.messages[-1].text\n"
    '    return (\'{"call": "pass", "args": {"reason": "it says 3, as add returned"}}\' if right else\n'
    '            \'{"call": "fail", "args": {"reason": "it guessed <b>4</b> without adding"}}\')\n'
    "grader = op.judge('The answer is the sum add returned.', model=op.ScriptedModel([verdict], name='grader'))\n"
    "ev = op.evaluate(['Add 1 and 2.'], models=[careful, quick], tools=[add], expect=grader, progress=False)\n"
    "ev",
]


def test_clicking_a_row_opens_its_transcript_and_the_judges_verdict(lab):
    root = lab.root
    name = write_notebook(root, "evaluation.ipynb", CELLS)
    with notebook_page(lab, 1100, 900, "evaluation-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        quick_row = page.locator("details.openprogram-evaluation-row", has_text="quick")
        quick_row.wait_for(timeout=60_000)
        transcript = quick_row.get_by_text("Probably 4.", exact=True)
        assert not transcript.is_visible()  # closed until clicked
        header = page.locator(".openprogram-evaluation-rows > div").first
        header_time = header.locator(":scope > span").last.bounding_box()
        row_time = quick_row.locator(":scope > summary > span > span").last.bounding_box()
        quick_row.locator(":scope > summary").click()
        transcript.wait_for(state="visible", timeout=10_000)
        said = quick_row.get_by_text("The judge said ✗ fail: it guessed <b>4</b> without adding")
        assert said.is_visible()  # the reason as text, its markup shown, not obeyed
        quick_row.scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT / "evaluation-row-open.png"))
        careful_closed = (
            not page.locator("details.openprogram-evaluation-row", has_text="careful")
            .get_by_text("The sum is 3.", exact=True)
            .is_visible()
        )
    assert careful_closed  # only the clicked row opened
    assert abs((header_time["x"] + header_time["width"]) - (row_time["x"] + row_time["width"])) < 2, (
        header_time,
        row_time,
    )  # the time column ends where its header does
