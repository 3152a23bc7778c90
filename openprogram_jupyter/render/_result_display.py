"""A tool result's rich display (``details["display"]``, made by
:func:`..tools._display.result_display`), as each view draws it.

The HTML view and the live view draw it (:func:`display_html`): HTML sanitized by
:func:`._sanitize.clean_html`, an image embedded as a ``data:`` URL when it is a known
image type in real base64, a note as escaped text. Markdown and plain text cannot show
it, so they say what there is (:func:`display_label`).
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..core.messages import ToolResultMessage
from . import _format as fmt
from ._sanitize import clean_html, is_base64

__all__ = ["display_html", "display_label", "display_of"]

_MUTED = "color:#57606a;font-size:12px;"


def display_of(result: ToolResultMessage | None) -> dict[str, str] | None:
    """The result's display when it is well formed (a ``mime`` the views know and a string
    ``data``), else ``None``."""
    display: Any = result.details.get("display") if result is not None else None
    if not isinstance(display, dict) or not isinstance(display.get("data"), str):
        return None
    mime, data = display.get("mime"), display["data"]
    known = mime in ("text/html", "text/plain") or (mime in fmt.SAFE_IMAGE_TYPES and is_base64(data))
    return {"mime": str(mime), "data": data} if known else None


def display_html(result: ToolResultMessage | None) -> str:
    """The display as an HTML fragment for the call's card; ``""`` without one."""
    display = display_of(result)
    if display is None:
        return ""
    mime, data = display["mime"], display["data"]
    if mime == "text/html":
        return f'<div class="openprogram-display" style="overflow-x:auto;margin:2px 0">{clean_html(data)}</div>'
    if mime == "text/plain":
        return f'<div style="{_MUTED}">display: {escape(data)}</div>'
    return f'<img alt="tool result display" style="max-width:100%" src="data:{mime};base64,{"".join(data.split())}">'


def display_label(result: ToolResultMessage | None) -> str | None:
    """A line saying what the display is, for the views that cannot show it
    (``display: <the note>`` for a ``text/plain`` display); ``None`` without one."""
    display = display_of(result)
    if display is None:
        return None
    mime, data = display["mime"], display["data"]
    if mime == "text/html":
        return f"[HTML display, {len(data):,} characters: shown in the HTML view]"
    if mime == "text/plain":
        return f"display: {data}"
    return f"[{mime} display, {len(data) * 3 // 4 / 1024:.1f} KB: shown in the HTML view]"
