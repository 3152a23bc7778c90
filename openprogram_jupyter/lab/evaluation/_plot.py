"""The pass rate and cost of each model, drawn for an evaluation's HTML.

With matplotlib installed: two bar charts as one inline PNG (``<img>`` with a data URL).
Without it: the same two bar charts as inline SVG written here. Either way the HTML holds
no script, and model names are escaped.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from html import escape
from typing import Any

from ...core._money import dollars

__all__ = ["summary_plot", "svg_plot"]

_BAR_WIDTH = 220
_ROW_HEIGHT = 22


def summary_plot(summary: Sequence[Any]) -> str:
    """The plot for ``summary`` (one :class:`~._report.ModelSummary` per model)."""
    if not summary:
        return ""
    try:
        import matplotlib  # noqa: F401  # optional: only whether it is there matters here
    except ImportError:
        return svg_plot(summary)
    return _matplotlib_plot(summary)


def svg_plot(summary: Sequence[Any]) -> str:
    """Pass rate (out of 100 %) and cost (out of the costliest model) as horizontal bars."""
    costs = [s.cost or 0.0 for s in summary]
    top = max(costs) or 1.0
    label_width = min(240, 12 + 7 * max(len(s.model) for s in summary))
    panel = label_width + _BAR_WIDTH + 90
    height = 28 + _ROW_HEIGHT * len(summary)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * panel}" height="{height}" '
        'role="img" aria-label="pass rate and cost per model" style="font:12px sans-serif">',
        '<text x="0" y="14" font-weight="bold">pass rate</text>',
        f'<text x="{panel}" y="14" font-weight="bold">cost</text>',
    ]
    for index, line in enumerate(summary):
        y = 24 + index * _ROW_HEIGHT
        name = escape(line.model)
        cost = "unknown" if line.cost is None else dollars(line.cost)
        for offset, fraction, text, colour in (
            (0, line.pass_rate, f"{line.pass_rate:.0%}", "#2da44e"),
            (panel, (line.cost or 0.0) / top, cost, "#8250df"),
        ):
            parts.append(
                f'<text x="{offset}" y="{y + 14}">{name}</text>'
                f'<rect x="{offset + label_width}" y="{y + 3}" width="{fraction * _BAR_WIDTH:.1f}" '
                f'height="14" fill="{colour}"/>'
                f'<text x="{offset + label_width + fraction * _BAR_WIDTH + 4:.1f}" y="{y + 14}">'
                f"{text}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _matplotlib_plot(summary: Sequence[Any]) -> str:
    figure = summary_figure(summary)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="pass rate and cost per model" src="data:image/png;base64,{data}"/>'


def summary_figure(summary: Sequence[Any]) -> Any:
    """The matplotlib ``Figure`` of pass rate and cost per model; with no price known, the
    cost panel says so instead of drawing empty bars."""
    # A bare Figure draws off-screen with Agg: no pyplot, so a notebook's backend is left alone.
    from matplotlib.figure import Figure

    names = [s.model for s in summary]
    figure = Figure(figsize=(8, 0.6 + 0.4 * len(names)))
    rate, cost = figure.subplots(1, 2)
    rate.barh(names, [100 * s.pass_rate for s in summary], color="#2da44e")
    rate.set_xlim(0, 100)
    rate.set_title("pass rate (%)")
    if any(s.cost is not None for s in summary):
        cost.barh(names, [s.cost or 0.0 for s in summary], color="#8250df")
        cost.set_title("cost (USD)")
    else:  # an empty axis would read as "free"
        cost.set_axis_off()
        cost.text(
            0.5,
            0.5,
            "cost: no prices known for these models",
            ha="center",
            va="center",
            transform=cost.transAxes,
            color="#57606a",
        )
    figure.tight_layout()
    return figure
