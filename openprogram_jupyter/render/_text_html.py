"""The model's text and thinking as the HTML view and the live view draw them:
:func:`text_html`.

The text is Markdown rendered to sanitized HTML (:func:`._markdown_html.markdown_html`),
cut past the view's limit with a note saying how much was left out (the Run keeps it
whole). Thinking is drawn the same way, in muted italics.
"""

from __future__ import annotations

from html import escape

from . import _format as fmt
from ._markdown_html import markdown_html, streaming_markdown_html

__all__ = ["text_html"]

_TEXT = "word-break:break-word;overflow-x:auto;"
_THINKING = _TEXT + "font-style:italic;color:#57606a;"
_MUTED = "color:#57606a;font-size:12px;"


def text_html(text: str, limit: int, *, thinking: bool = False, cursor: str = "") -> str:
    """``text`` (the model's Markdown) as HTML, its first ``limit`` characters only (all of
    it for ``limit <= 0``). ``cursor`` (a streaming view's ``▍``) is written after its last
    character, and marks the text as still growing: it is then drawn chunk by chunk
    (:func:`._markdown_html.streaming_markdown_html`)."""
    shown, note = fmt.truncate(text, limit, fmt.TEXT_KEPT)
    body = streaming_markdown_html(shown + cursor) if cursor else markdown_html(shown)
    html = f'<div class="openprogram-text" style="{_THINKING if thinking else _TEXT}">{body}</div>'
    return html + (f'<div style="{_MUTED}">{escape(note)}</div>' if note else "")
