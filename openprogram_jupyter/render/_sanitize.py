"""The one HTML policy for every fragment that comes from outside: :func:`clean_html`.

Outside HTML is what the package did not write itself: a model's answer rendered from
Markdown (:mod:`._markdown_html`), a DataFrame's ``_repr_html_``, a tool's ``render=``
output. All of it passes through nh3 (the ammonia sanitizer) with this policy:

- only text-formatting tags are kept (paragraphs, headings, lists, emphasis, code,
  quotes, tables, links, images); ``<script>`` and ``<style>`` go with their content,
  every other tag is dropped and its text kept;
- no event handler, ``style``, ``class`` or ``id`` attribute survives; the look (table
  borders, code backgrounds, heading sizes) is set by the policy itself, the same for
  everything;
- a link keeps its ``href`` only when it is ``http:``, ``https:`` or ``mailto:`` (no
  ``javascript:``, no ``data:``, no relative address), and opens in a new tab with
  ``rel="noopener noreferrer nofollow"``;
- an image keeps its ``src`` only when it is a ``data:`` URL of a PNG, JPEG, GIF or WebP
  image in base64, so nothing is ever fetched from a remote host.

nh3 is imported on the first call, not when this module loads (``%load_ext`` stays fast).
Where nh3 cannot be imported (a JupyterLite site that serves its own packages: the package
index has no Pyodide build of it), nothing from outside is kept as markup: :func:`clean_html`
returns its input escaped, shown as text, and :mod:`._markdown_html` shows an answer's
Markdown source as text (:func:`sanitizer_available` tells them apart).
"""

from __future__ import annotations

import base64
import binascii
import html as html_text
import importlib.util
import re
from typing import Any

__all__ = ["clean_html", "sanitizer_available"]

_TAGS = frozenset(
    {
        "p",
        "br",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "strong",
        "b",
        "em",
        "i",
        "del",
        "s",
        "sup",
        "sub",
        "kbd",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "a",
        "img",
        "span",
        "div",
        "table",
        "caption",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "th",
        "td",
    }
)
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "th": {"align", "colspan", "rowspan"},
    "td": {"align", "colspan", "rowspan"},
}
_CELL = "border:1px solid rgba(127,127,127,0.35);padding:2px 6px;"
_LOOK = {
    "a": {"target": "_blank"},
    "p": {"style": "margin:4px 0"},
    "h1": {"style": "font-size:1.35em;margin:8px 0 4px"},
    "h2": {"style": "font-size:1.2em;margin:8px 0 4px"},
    "h3": {"style": "font-size:1.1em;margin:6px 0 4px"},
    "pre": {
        "style": "white-space:pre-wrap;word-break:break-word;margin:4px 0;padding:4px 6px;"
        "background:rgba(127,127,127,0.08);border-radius:3px;font-size:12px"
    },
    "code": {
        "style": "background:rgba(127,127,127,0.12);border-radius:3px;padding:0 2px;"
        "font-family:var(--jp-code-font-family,monospace)"
    },
    "blockquote": {"style": "margin:4px 0;padding-left:8px;border-left:3px solid rgba(127,127,127,0.4)"},
    "table": {"style": "border-collapse:collapse;margin:4px 0"},
    "th": {"style": _CELL + "font-weight:600"},
    "td": {"style": _CELL},
    "img": {"style": "max-width:100%"},
}
_LINK = re.compile(r"^(https?|mailto):", re.IGNORECASE)
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,")
_ALIGN = frozenset({"left", "right", "center"})
_cleaner: Any = None


def _attribute(tag: str, name: str, value: str) -> str | None:
    """Keep an allowed attribute's value, or ``None`` to drop it."""
    if name == "href":
        return value if _LINK.match(value.strip()) else None
    if name == "src":
        src = value.strip()
        prefix = _DATA_IMAGE.match(src)
        return value if prefix is not None and is_base64(src[prefix.end() :]) else None
    if name == "align":
        return value if value.lower() in _ALIGN else None
    return value


def is_base64(text: str) -> bool:
    """Whether ``text`` is base64 (whitespace anywhere ignored, padding checked), decided
    by the standard library in one pass. (A regex that let whitespace match two ways took
    12 s for an image block of whitespace, on every render.)"""
    try:
        base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def sanitizer_available() -> bool:
    """Whether nh3 can be imported here (it can wherever pip installed the package)."""
    return importlib.util.find_spec("nh3") is not None


def clean_html(html: str) -> str:
    """``html`` with everything outside the policy above removed (never raises on bad HTML:
    the sanitizer parses it as a browser would). Without nh3 (:func:`sanitizer_available`
    False), ``html`` escaped: its tags show as text and none of it is markup."""
    global _cleaner
    if _cleaner is None:
        _cleaner = _make_cleaner() if sanitizer_available() else html_text.escape
    result: str = _cleaner(html)
    return result


def _make_cleaner() -> Any:
    """nh3's reusable ``Cleaner(...).clean`` (nh3 ≥ 0.3), else ``nh3.clean`` with the options."""
    import nh3

    options: dict[str, Any] = {
        "tags": set(_TAGS),
        "attributes": {tag: set(names) for tag, names in _ATTRIBUTES.items()},
        "url_schemes": {"http", "https", "mailto", "data"},
        "attribute_filter": _attribute,
        "link_rel": "noopener noreferrer nofollow",
        "set_tag_attribute_values": _LOOK,
    }
    cleaner = getattr(nh3, "Cleaner", None)
    if cleaner is not None:
        return cleaner(**options).clean
    return lambda text: nh3.clean(text, **options)
