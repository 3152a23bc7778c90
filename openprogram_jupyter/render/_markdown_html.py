"""The model's Markdown as safe HTML: :func:`markdown_html`.

An answer is parsed as CommonMark with GitHub tables by markdown-it-py with raw HTML off
(``<script>``, ``<div onclick=…>`` and every other tag in the answer come out as the text
they are), then sanitized by :func:`._sanitize.clean_html`. An image from a remote host
is not loaded: it becomes a link reading ``[image: ALT]`` to its address. A table cell's
alignment becomes an ``align`` attribute (the policy keeps no ``style``).

markdown-it-py is imported on the first call. Results are cached by text, so a live view
redrawing an unchanged answer ten times a second parses it once; an answer still streaming
is drawn by :func:`streaming_markdown_html` in chunks, so each redraw parses only its end.
"""

from __future__ import annotations

import functools
import re
from html import escape
from typing import Any

from ._sanitize import clean_html, sanitizer_available

__all__ = ["STREAMING_CHUNK_CHARS", "markdown_html", "streaming_markdown_html"]

STREAMING_CHUNK_CHARS = 2000
"""A streaming answer is cut into chunks of about this many characters (at paragraph
breaks) that are rendered, and cached, one by one."""

_SAFE_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,", re.IGNORECASE)
_ALIGNED = re.compile(r"^text-align:(left|right|center)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parser.add_render_rule("image", _image)
    return parser


def _image(renderer: Any, tokens: list[Any], index: int, options: Any, env: Any) -> str:
    """An embedded ``data:`` image as an ``<img>``; any other as a link to it (never fetched)."""
    token = tokens[index]
    source = str(token.attrGet("src") or "")
    if _SAFE_DATA_IMAGE.match(source):
        return str(renderer.image(tokens, index, options, env))
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    return f'<a href="{escape(source)}">[image: {escape(alt)}]</a>'


def _align_cells(tokens: list[Any]) -> None:
    """``style="text-align:X"`` on table cells becomes ``align="X"``."""
    for token in tokens:
        if token.type in ("th_open", "td_open"):
            match = _ALIGNED.match(str(token.attrGet("style") or ""))
            if match:
                token.attrs.pop("style", None)
                token.attrSet("align", match.group(1))


@functools.lru_cache(maxsize=256)
def markdown_html(text: str) -> str:
    """``text`` (Markdown) as a sanitized HTML fragment; ``""`` for ``""``. Where no
    sanitizer can be imported (:func:`._sanitize.sanitizer_available`), ``text`` itself,
    escaped, its line breaks kept: shown as written rather than rendered."""
    if not text:
        return ""
    if not sanitizer_available():
        return f'<div style="white-space:pre-wrap">{escape(text)}</div>'
    parser = _parser()
    tokens = parser.parse(text)
    _align_cells(tokens)
    return clean_html(parser.renderer.render(tokens, parser.options, {}))


def streaming_markdown_html(text: str) -> str:
    """``text``, still growing, as :func:`markdown_html` draws it, chunk by chunk: the text
    is cut at blank lines outside code fences that are followed by an unindented line,
    once a chunk has :data:`STREAMING_CHUNK_CHARS` characters. Every chunk but the last is
    the same at the next redraw, so it comes from the cache; only the last is parsed again.
    (A list or a reference link split across two chunks may look different until the
    answer ends and is drawn whole.)"""
    return "".join(markdown_html(chunk) for chunk in _chunks(text))


def _chunks(text: str) -> list[str]:
    lines = text.split("\n")
    chunks: list[str] = []
    start, size, fence = 0, 0, ""
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if opened and (not fence or opened.group(1).startswith(fence)):
            fence = "" if fence else opened.group(1)[0] * 3
        size += len(line) + 1
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if size >= STREAMING_CHUNK_CHARS and not fence and not line.strip() and following[:1] not in ("", " ", "\t"):
            chunks.append("\n".join(lines[start : number + 1]) + "\n")
            start, size = number + 1, 0
    chunks.append("\n".join(lines[start:]))
    return chunks
