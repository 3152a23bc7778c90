"""The one writer of ``<details>`` / ``<summary>`` HTML in the package.

A ``<summary>`` shows its ▶ / ▼ disclosure marker because browsers display it as a list
item. nbclassic's stylesheet (Bootstrap 3) sets ``summary { display: block }``, which
removes the marker, so a transcript's calls looked like plain lines there. Each summary
this module writes says ``display:list-item`` in its own ``style`` attribute, which
outranks any stylesheet rule, so the marker shows in JupyterLab, Notebook 7 and nbclassic
alike. ``tests/render/test_details_marker.py`` fails for any other module that writes a
``<summary``, so no summary escapes this rule.
"""

from __future__ import annotations

from html import escape

__all__ = ["SUMMARY_DISPLAY", "details_html"]

SUMMARY_DISPLAY = "display:list-item"
"""The declaration every summary starts its ``style`` with (what keeps its marker)."""


def details_html(
    summary: str,
    body: str,
    *,
    open_: bool = False,
    style: str = "",
    summary_style: str = "",
    attributes: dict[str, str] | None = None,
) -> str:
    """``<details>`` holding ``<summary>summary</summary>`` then ``body``.

    ``summary`` and ``body`` are HTML already (escaping what they quote is the caller's
    job). ``open_`` writes the element open. ``style`` is the ``<details>``' style and
    ``attributes`` its other attributes (names and values escaped here); the summary's
    style is :data:`SUMMARY_DISPLAY` then ``summary_style``. No attribute is written
    empty: ``style`` and ``attributes`` only when given.
    """
    opened = " open" if open_ else ""
    extra = "".join(f' {escape(name)}="{escape(value)}"' for name, value in (attributes or {}).items())
    details_style = f' style="{escape(style)}"' if style else ""
    summary_css = escape(f"{SUMMARY_DISPLAY};{summary_style}" if summary_style else SUMMARY_DISPLAY)
    return f'<details{opened}{extra}{details_style}><summary style="{summary_css}">{summary}</summary>{body}</details>'
