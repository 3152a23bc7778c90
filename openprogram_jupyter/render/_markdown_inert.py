"""The model's Markdown passed on as Markdown, with nothing in it a viewer would obey as
markup: :func:`inert_markdown`.

The ``text/markdown`` transcript carries an answer as the Markdown it is (headings, lists,
tables and code stay what they are), but a viewer renders raw HTML in Markdown, so:

- outside code, every ``<`` becomes ``&lt;`` and every ``&`` becomes ``&amp;``: a tag,
  a comment or an entity in the answer reads as the text it is (an autolink such as
  ``<https://example.com>`` is kept, since it is no tag);
- an image, ``![alt](url)``, becomes ``\\![alt](url)``: an ``!`` and a link, so no viewer
  fetches it;
- ``javascript:`` and ``vbscript:`` get an invisible U+200B before the colon, so a link
  to one is no longer a script;
- a code span holding ``<``, ``>`` or ``&`` becomes ``<code>…</code>`` with its text
  escaped (a code span cannot hold an escape); code blocks (fenced or indented, found by
  parsing the answer as CommonMark) are kept as written, and one the answer left open is
  closed, so it cannot swallow the transcript after it.

A backslash escape in the answer (``\\<``, ``\\*``) is kept as written.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["inert_dollars", "inert_markdown"]

_SCANNED = re.compile(
    r"(?P<escape>\\[\s\S])"
    r"|(?P<ticks>`+)"
    r"|(?P<autolink><(?:https?|mailto):[^\s<>]*>)"
    r"|(?P<lt><)|(?P<amp>&)|(?P<image>!\[)"
    r"|(?P<script>(?i:javascript|vbscript)(?=\\?:))"
)
_CODE_ESCAPES = str.maketrans(
    {"<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " ", **{c: "\\" + c for c in "\\`*_[]()!#|~{}+-."}}
)


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def inert_markdown(text: str) -> str:
    """``text`` as Markdown a viewer shows as written, with no raw HTML, no remote image
    and no script link (see the module's docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    code, closers = _code_lines(text, len(lines))
    out: list[str] = []
    prose: list[str] = []
    for number, line in enumerate(lines):
        if number in code or not line.strip():
            if prose:
                out.append(_inert_prose("\n".join(prose)))
                prose = []
            out.append(line)
            out += closers.get(number, [])
        else:
            prose.append(line)
    if prose:
        out.append(_inert_prose("\n".join(prose)))
    return "\n".join(out)


def _code_lines(text: str, count: int) -> tuple[set[int], dict[int, list[str]]]:
    """The numbers of the lines inside code blocks, and the closing fence to add after the
    last line of a fence left open."""
    code: set[int] = set()
    closers: dict[int, list[str]] = {}
    lines = text.split("\n")
    for token in _parser().parse(text):
        if token.type not in ("fence", "code_block") or not token.map:
            continue
        start, end = token.map
        code.update(range(start, min(end, count)))
        if token.type == "fence" and not _closed(lines, start, end, token.markup):
            opener = lines[start]
            closers[min(end, count) - 1] = [opener[: opener.index(token.markup)] + token.markup]
    return code, closers


def _closed(lines: list[str], start: int, end: int, markup: str) -> bool:
    if end - start < 2 or end > len(lines):
        return False
    last = lines[end - 1].lstrip(" \t>")
    return len(last.strip()) >= len(markup) and set(last.strip()) == {markup[0]}


def _inert_prose(text: str) -> str:
    """One run of non-blank, non-code lines made inert (code spans found as CommonMark does)."""
    out: list[str] = []
    position = 0
    while (match := _SCANNED.search(text, position)) is not None:
        out.append(text[position : match.start()])
        position = match.end()
        kind = match.lastgroup
        if kind == "ticks":
            closing = re.compile(rf"(?<!`){match.group()}(?!`)").search(text, match.end())
            if closing is None:
                out.append(match.group())
                continue
            out.append(_code_span(match.group(), text[match.end() : closing.start()]))
            position = closing.end()
        else:
            out.append(_REPLACEMENT[kind](match.group()) if kind in _REPLACEMENT else match.group())
    out.append(text[position:])
    return "".join(out)


def _code_span(ticks: str, code: str) -> str:
    if not any(c in code for c in "<>&"):
        return f"{ticks}{code}{ticks}"
    inner = code.strip(" ") if code.strip(" ") else code
    return f"<code>{inner.translate(_CODE_ESCAPES)}</code>"


_REPLACEMENT = {
    "lt": lambda _: "&lt;",
    "amp": lambda _: "&amp;",
    "image": lambda _: "\\![",
    "script": lambda word: word + "\u200b",
}


_DOLLAR_SCANNED = re.compile(
    r"(?P<escape>\\[\s\S])|(?P<ticks>`+)|(?P<autolink><(?:https?|mailto):[^\s<>]*>)|(?P<dollar>\$)"
)


@functools.lru_cache(maxsize=1)
def _block_parser() -> Any:
    from markdown_it import MarkdownIt

    # Blocks only: which lines are code is all this reader needs, at half the parse time.
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("inline")


def inert_dollars(text: str) -> str:
    """``text`` (Markdown) with every ``$`` outside code written ``\\$``, so a viewer that
    typesets ``$…$`` as math (JupyterLab, Notebook, nbclassic) shows a dollar sign; code
    blocks, code spans, autolinks and backslash escapes (an ``\\$`` already there) are kept
    as written, so applying it twice changes nothing. Line ends become ``\\n``."""
    if "$" not in text:
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    code = _block_code_lines(text, len(lines))
    out: list[str] = []
    prose: list[str] = []
    for number, line in enumerate([*lines, ""]):
        if number in code or not line.strip():
            if prose:
                out.append(_dollars_in_prose("\n".join(prose)))
                prose = []
            out.append(line)
        else:
            prose.append(line)
    return "\n".join(out[:-1])


def _block_code_lines(text: str, count: int) -> set[int]:
    code: set[int] = set()
    for token in _block_parser().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(token.map[0], min(token.map[1], count)))
    return code


def _dollars_in_prose(text: str) -> str:
    """One run of non-blank, non-code lines with its ``$`` escaped outside code spans."""
    out: list[str] = []
    position = 0
    while (match := _DOLLAR_SCANNED.search(text, position)) is not None:
        out.append(text[position : match.start()])
        position = match.end()
        if match.lastgroup == "dollar":
            out.append("\\$")
        elif (
            match.lastgroup == "ticks"
            and (closing := re.compile(rf"(?<!`){match.group()}(?!`)").search(text, match.end())) is not None
        ):
            out.append(text[match.start() : closing.end()])
            position = closing.end()
        else:
            out.append(match.group())
    out.append(text[position:])
    return "".join(out)
