"""What a tool's body wrote (a call's ``output``: ``_tool_output.py``), as each view draws
it inside the call's card, in order.

HTML (the saved transcript and the live card): stream text escaped in a ``<pre>``
(stderr in red), cut like a result; a ``display()`` drawn from the first part the views
can show safely — an image of a known type in real base64 as a ``data:`` URL, HTML
sanitized by :func:`._sanitize.clean_html`, Markdown rendered and sanitized, else its
``text/plain`` escaped. Markdown and plain text show stream text verbatim (Markdown in a
fence) and name each display (``[output: image/png, 12.3 KB: shown in the HTML view]``).
"""

from __future__ import annotations

from html import escape

from ..core._json import JsonObject
from . import _format as fmt
from ._sanitize import clean_html, is_base64
from ._text_html import text_html

__all__ = ["output_html", "output_label", "output_texts"]

_MUTED = "color:#57606a;font-size:12px;"
_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:4px 6px;"
    "background:rgba(127,127,127,0.08);border-radius:3px;font-size:12px;"
)
OUTPUT_KEPT = "the full output is in the result's details['output']"


def output_html(output: list[JsonObject], limit: int) -> str:
    """The output as one ``<div class="openprogram-output">``; ``""`` when there is none."""
    parts = []
    for item in output:
        if item.get("type") == "stream":
            shown, note = fmt.truncate(str(item.get("text", "")), limit, OUTPUT_KEPT)
            color = "color:#cf222e;" if item.get("name") == "stderr" else ""
            parts.append(
                f'<pre style="{_PRE}{color}">{escape(shown)}</pre>'
                + (f'<div style="{_MUTED}">{escape(note)}</div>' if note else "")
            )
        elif item.get("type") == "display":
            parts.append(_display_html(item.get("data") or {}, limit))
    if not parts:
        return ""
    return f'<div class="openprogram-output"><div style="{_MUTED}">output</div>{"".join(parts)}</div>'


def _display_html(data: JsonObject, limit: int) -> str:
    for mime in ("image/png", "image/jpeg", "image/gif"):
        value = data.get(mime)
        if isinstance(value, str) and is_base64(value):
            return (
                f'<img alt="tool output image" style="max-width:100%" '
                f'src="data:{mime};base64,{"".join(value.split())}">'
            )
    if isinstance(data.get("text/html"), str):
        return f"<div>{clean_html(data['text/html'])}</div>"
    if isinstance(data.get("text/markdown"), str):
        return text_html(data["text/markdown"], limit)
    shown, _ = fmt.truncate(str(data.get("text/plain", "")), limit, OUTPUT_KEPT)
    return f'<pre style="{_PRE}">{escape(shown)}</pre>'


def output_label(data: JsonObject) -> str:
    """A display named in one line, for views that cannot draw it."""
    mime = next(
        (
            m
            for m in ("image/png", "image/jpeg", "image/gif", "text/html", "text/markdown", "text/plain")
            if isinstance(data.get(m), str)
        ),
        "display",
    )
    size = len(str(data.get(mime, "")))
    if mime.startswith("image/"):
        size = size * 3 // 4
    return f"[output: {mime}, {size / 1024:.1f} KB: shown in the HTML view]"


def output_texts(output: list[JsonObject]) -> list[tuple[str, str]]:
    """The output as ``(kind, text)`` pairs: ``("stdout" | "stderr", text)`` for stream
    text, ``("display", label)`` for a display (:func:`output_label`)."""
    pairs = []
    for item in output:
        if item.get("type") == "stream":
            pairs.append((str(item.get("name", "stdout")), str(item.get("text", ""))))
        elif item.get("type") == "display":
            pairs.append(("display", output_label(item.get("data") or {})))
    return pairs
