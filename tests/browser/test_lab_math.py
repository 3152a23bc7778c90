"""A real browser: JupyterLab typesets no ``$`` the package shows (issue 43, item 2).

JupyterLab's MathJax 3 typesets ``$…$`` in HTML and Markdown outputs: a budget run's
``(max_cost=$0.05; spent $0.0816)`` read ``max_cost=0.05;𝑠𝑝𝑒𝑛𝑡0.0816``. A budget run
(a priced scripted model, ``--max-cost 0.05``) is watched live (a slow tool holds the
run while the header's meter shows ``of $0.05``), then its saved HTML transcript and its
Markdown transcript are read: no typeset-math element in any of them, and ``$0.05`` in
their text. A control cell of unmarked HTML is typeset, so MathJax is there to do it.
"""

from __future__ import annotations

import pytest

from .lab import OUTPUT, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

MATH = "mjx-container, .MathJax, .MathJax_Preview, .MathJax_Display"
CELLS = [
    "%load_ext openprogram_jupyter\nimport time\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef slow_add(a: int, b: int) -> int:\n    '''Add two whole numbers, slowly.'''\n"
    "    time.sleep(4 if a == 2 else 0)\n    return a + b\n\n"
    "def priced(item):\n"
    "    content = [op.TextContent(text=item)] if isinstance(item, str) else [item]\n"
    "    return op.AssistantMessage(content=content, usage=op.Usage(input=900, output=100, total_tokens=1000,\n"
    "                                                                cost=0.0408))\n\n"
    "priced_model = op.ScriptedModel([priced(op.ToolCall(name='slow_add', arguments={'a': 1, 'b': 2})),\n"
    "                                 priced(op.ToolCall(name='slow_add', arguments={'a': 2, 'b': 3})),\n"
    "                                 priced('Both sums cost $3 to check: 3 and 5.')], name='priced')",
    "%%agent -m priced_model --tools slow_add --max-cost 0.05 -o r\nAdd 1 and 2, then 2 and 3.",
    "from IPython.display import display\ndisplay({'text/markdown': r._repr_markdown_()}, raw=True)",
    "from IPython.display import HTML\nHTML('<p class=\"control\">control: $x^2$ and $y$</p>')",
]


def count_math(page, cell: int) -> int:
    return page.evaluate(f"""() => document.querySelectorAll('.jp-Notebook .jp-Cell')[{cell}]
                                  .querySelectorAll('.jp-OutputArea-output').length
                          ? [...document.querySelectorAll('.jp-Notebook .jp-Cell')[{cell}]
                                 .querySelectorAll('.jp-OutputArea-output')]
                              .reduce((n, o) => n + o.querySelectorAll('{MATH}').length, 0)
                          : -1""")


def output_text(page, cell: int) -> str:
    return page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".jp-OutputArea-output").all_inner_texts()


def test_a_budget_runs_live_view_and_transcripts_typeset_no_dollar(jupyter):
    name = write_notebook(jupyter.root, "math.ipynb", CELLS)
    with notebook_page(jupyter, 1100, 1000, f"math-failure-{jupyter.frontend}.png") as page:
        open_and_run_all(page, jupyter.notebook_address(name))
        cells = page.locator(".jp-Notebook .jp-Cell")
        meter = cells.nth(1).locator(".widget-html", has_text="of $0.05")
        meter.first.wait_for(timeout=60_000)  # the live view, while slow_add sleeps
        page.wait_for_timeout(700)
        live_math = count_math(page, 1)
        live_text = " ".join(output_text(page, 1))
        page.screenshot(path=str(OUTPUT / f"math-live-{jupyter.frontend}.png"))
        cells.nth(3).locator("p.control").wait_for(timeout=60_000)
        cells.nth(2).locator(".jp-RenderedMarkdown").first.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)  # MathJax typesets after the output is attached
        counts = [count_math(page, n) for n in (1, 2, 3)]
        html_text, markdown_text = " ".join(output_text(page, 1)), " ".join(output_text(page, 2))
        page.screenshot(path=str(OUTPUT / f"math-transcripts-{jupyter.frontend}.png"), full_page=True)

    assert counts[2] > 0, counts  # the control: MathJax typesets unmarked HTML here
    assert live_math == 0 and counts[:2] == [0, 0], (live_math, counts)
    assert "budget $0.0816 of $0.05" in live_text, live_text
    for text in (html_text, markdown_text):
        assert "over budget: spent $0.1224 of $0.05" in text, text
        assert "max_cost=$0.05; spent $0.0816" in text, text
        assert "cost $3 to check" in text, text
