"""A real browser: tables read left to right under JupyterLab's own styles.

JupyterLab right-aligns every ``td`` and ``th`` of rendered HTML; the evaluation table, the
saved side-by-side transcript and ``%agent tools`` read flush right, and "0.10 s" wrapped
onto two lines. Checked with the browser's computed styles, not by reading our HTML.
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
    "quick = op.ScriptedModel(['Probably 3.'], name='quick')\n"
    "op.evaluate(['Add 1 and 2.', 'Add 2 and 2.'], models=[careful, quick], tools=[add], progress=False)",
    "%%agent -m careful,quick --tools add\nAdd 1 and 2, and explain the steps you take in some detail.",
    "%agent tools",
]


def test_text_cells_are_left_aligned_and_numbers_do_not_wrap(lab):
    root = lab.root
    name = write_notebook(root, "tables.ipynb", CELLS)
    with notebook_page(lab, 1100, 900, "tables-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        page.locator(".openprogram-evaluation table").first.wait_for(timeout=60_000)
        page.locator("table.openprogram-side-by-side").first.wait_for(timeout=60_000)
        page.locator(".jp-OutputArea-output table", has_text="description").first.wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        styles = page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea-output td, '
                                         + '.jp-OutputArea-output th')].map(cell => ({
            text: cell.innerText.trim().slice(0, 40),
            align: getComputedStyle(cell).textAlign,
            lines: (() => { const r = document.createRange(); r.selectNodeContents(cell);
                            return new Set([...r.getClientRects()].map(rect => Math.round(rect.top))).size; })(),
            table: cell.closest('.openprogram-evaluation') ? 'evaluation'
                 : cell.closest('table.openprogram-side-by-side') ? 'side-by-side' : 'tools',
            first: cell.closest('table').querySelector('th').innerText.trim(),
            column: cell.cellIndex,
        }))""")
        page.screenshot(path=str(OUTPUT / "tables.png"), full_page=True)

    by_table = {name: [s for s in styles if s["table"] == name] for name in ("evaluation", "side-by-side", "tools")}
    assert all(by_table.values()), {k: len(v) for k, v in by_table.items()}
    # The evaluation's number columns are right-aligned on purpose; every other cell is text.
    number_columns = {"model": {1, 2, 3, 4}, "prompt": {4, 5, 6}}
    numeric = [s for s in by_table["evaluation"] if s["column"] in number_columns.get(s["first"], set())]
    text_cells = [s for s in styles if s not in numeric]
    assert numeric and all(s["align"] == "right" and s["lines"] <= 1 for s in numeric), numeric  # "0.10 s" unwrapped
    misaligned = [s for s in text_cells if s["align"] not in ("left", "start")]
    assert not misaligned, misaligned
