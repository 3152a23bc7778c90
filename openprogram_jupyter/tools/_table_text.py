"""A pandas DataFrame or Series as the text the model reads: its shape, its columns and
dtypes, then its first and last rows, as many as fit a character limit.

pandas is not a dependency: a value is recognized by the module its class comes from and
its name, and pandas itself is never imported here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_table", "table_text"]

_MOST_ROWS_EACH_END = 10  # head and tail: enough to see the data's form, few enough to read


def is_table(value: object) -> bool:
    """Whether ``value`` is a pandas ``DataFrame`` or ``Series`` (by its class's module and
    name, and the methods :func:`table_text` uses)."""
    kind = type(value)
    return (
        kind.__module__.split(".")[0] == "pandas"
        and kind.__name__ in ("DataFrame", "Series")
        and all(hasattr(value, name) for name in ("__len__", "head", "tail", "to_string", "shape"))
    )


def table_text(value: Any, max_chars: int | None) -> tuple[str, int, int]:
    """``(text, rows, rows_shown)`` for a DataFrame or Series ``value``.

    The text starts with a header line (``pandas DataFrame: 200,000 rows × 3 columns`` or
    ``pandas Series 'name': 50,000 rows, dtype int32``), then each column's dtype (a
    DataFrame's), then every row when all fit, else the first and last rows — at most
    :data:`_MOST_ROWS_EACH_END` of each, fewer until the text fits ``max_chars`` — with a
    line saying how many rows are left out. When not even one row of each end fits, the
    text is the header and dtypes alone (the caller cuts what is still too long).
    """
    rows = len(value)
    header = _header(value, rows)
    each_end = min(_MOST_ROWS_EACH_END, rows)
    if rows <= 2 * _MOST_ROWS_EACH_END:
        whole = f"{header}\n{value.to_string()}"
        if max_chars is None or len(whole) <= max_chars:
            return whole, rows, rows
        each_end = rows // 2
    while each_end >= 1:
        text = _ends(value, header, rows, each_end)
        if max_chars is None or len(text) <= max_chars:
            return text, rows, min(rows, 2 * each_end)
        each_end = each_end // 2 if each_end > 4 else each_end - 1
    return header, rows, 0


def _header(value: Any, rows: int) -> str:
    if type(value).__name__ == "Series":
        name = "" if value.name is None else f" {str(value.name)!r}"
        return f"pandas Series{name}: {rows:,} rows, dtype {value.dtype}"
    columns = ", ".join(f"{column} ({dtype})" for column, dtype in value.dtypes.items())
    return f"pandas DataFrame: {rows:,} rows × {value.shape[1]:,} columns\ncolumns (dtype): {columns}"


def _ends(value: Any, header: str, rows: int, each_end: int) -> str:
    left_out = rows - 2 * each_end
    if left_out <= 0:
        return f"{header}\n{value.to_string()}"
    return (
        f"{header}\nfirst {each_end} rows:\n{value.head(each_end).to_string()}\n"
        f"[... {left_out:,} rows not shown: ask the tool for a filter, a range or an aggregate to read others ...]\n"
        f"last {each_end} rows:\n{value.tail(each_end).to_string()}"
    )
