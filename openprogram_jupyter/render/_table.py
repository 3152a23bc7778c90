"""HTML tables that read the same in every frontend: ``html_table(headers, rows)``.

JupyterLab's stylesheet right-aligns every ``td`` and ``th`` of rendered HTML and centres
them vertically, so a table of prompts, names and JSON read flush right, and a narrow
column wrapped ``0.10 s`` onto two lines. Each cell here says how it is aligned: text to
the left, top-aligned; a number column (``numbers``) to the right and never wrapped. Cell
contents are HTML the caller has escaped.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["html_table"]

_TEXT = "text-align:left;vertical-align:top;padding:2px 8px"
_NUMBER = "text-align:right;vertical-align:top;white-space:nowrap;padding:2px 8px"


def html_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, numbers: Collection[int] = (), attributes: str = ""
) -> str:
    """A ``<table>`` with ``headers`` (escaped HTML) over ``rows`` (escaped HTML, one list of
    cells each); the columns whose index is in ``numbers`` are right-aligned and unwrapped.
    ``attributes`` are added to the ``<table>`` tag as written (e.g. a class)."""

    def style(index: int) -> str:
        return _NUMBER if index in numbers else _TEXT

    head = "".join(f'<th style="{style(i)}">{cell}</th>' for i, cell in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f'<td style="{style(i)}">{cell}</td>' for i, cell in enumerate(row)) + "</tr>" for row in rows
    )
    space = " " if attributes else ""
    return f"<table{space}{attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
