"""``op.side_by_side({...})``: JSON bodies in columns, to compare what providers are sent."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from ..core._json import JsonObject
from ..core.errors import SetupError
from ._safe import safe_bundle

__all__ = ["SideBySide", "side_by_side"]

_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:0;padding:4px 6px;font-size:12px;"
    "font-family:var(--jp-code-font-family,monospace);background:rgba(127,127,127,0.08);border-radius:3px"
)


class SideBySide:
    """Named JSON values shown in columns (HTML) or one after another (plain text), each
    pretty-printed, every known secret masked."""

    def __init__(self, columns: JsonObject) -> None:
        if not isinstance(columns, dict) or not columns:
            raise SetupError("op.side_by_side needs a dict of name → JSON value, e.g. {'OpenAI': body, ...}")
        self.columns = {
            str(name): json.dumps(value, indent=2, ensure_ascii=False, default=repr) for name, value in columns.items()
        }

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        width = f"{100 / len(self.columns):.0f}%"
        heads = "".join(f'<th style="text-align:left;width:{width}">{escape(name)}</th>' for name in self.columns)
        cells = "".join(
            f'<td style="text-align:left;vertical-align:top"><pre style="{_PRE}">{escape(text)}</pre></td>'
            for text in self.columns.values()
        )
        html = f'<table style="width:100%;table-layout:fixed"><tr>{heads}</tr><tr>{cells}</tr></table>'
        plain = "\n\n".join(f"== {name}\n{text}" for name, text in self.columns.items())
        return safe_bundle({"text/plain": plain, "text/html": html})

    def __repr__(self) -> str:
        return self._repr_mimebundle_()["text/plain"]


def side_by_side(columns: JsonObject) -> SideBySide:
    """Show ``columns`` (name → JSON value, e.g. two :func:`~openprogram_jupyter.wire_preview`
    bodies) side by side."""
    return SideBySide(columns)
