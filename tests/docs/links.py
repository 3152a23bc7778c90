"""The links and page mentions of README.md and the pages under docs/, read with
markdown-it-py (the parser the package already renders answers with).

- :func:`links` — every Markdown link's target, with its line.
- :func:`anchors` — the ids mkdocs gives a page's headings (its ``toc`` slugify: accents
  dropped, punctuation removed, lower case, runs of spaces and hyphens as one ``-``; a
  repeated id gets ``_1``, ``_2``…), plus ids written as ``{#id}`` attributes.
- :func:`plain_mentions` — a page named (``replay.md``, ``docs/tools.md``) in text or in
  inline code outside any link: a mention a reader cannot follow.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

# A page name as prose writes it: `replay.md`, `docs/replay.md`, `how-to/stop-a-run.md`.
PAGE_NAME = re.compile(r"(?<![\w./-])(?:[\w-]+/)*[\w-]+\.md\b")
_PARSER = MarkdownIt("commonmark").enable("table")


@dataclass(frozen=True)
class Link:
    """A Markdown link in ``path`` at ``line`` (1-based) to ``target`` as written."""

    path: Path
    line: int
    target: str


def _inline_tokens(path: Path) -> Iterator[tuple[int, Token]]:
    for block in _PARSER.parse(path.read_text(encoding="utf-8")):
        if block.type == "inline" and block.children is not None:
            line = (block.map[0] + 1) if block.map else 0
            for child in block.children:
                yield line, child


def links(path: Path) -> list[Link]:
    """Every link and image target of ``path``, in document order."""
    found = []
    for line, token in _inline_tokens(path):
        if token.type == "link_open":
            found.append(Link(path, line, str(token.attrGet("href"))))
        elif token.type == "image":
            found.append(Link(path, line, str(token.attrGet("src"))))
    return found


def plain_mentions(path: Path) -> list[tuple[int, str]]:
    """``(line, name)`` for each page name in ``path``'s text or inline code that is not
    inside a link (code blocks are not prose and are left out)."""
    found, depth = [], 0
    for line, token in _inline_tokens(path):
        if token.type == "link_open":
            depth += 1
        elif token.type == "link_close":
            depth -= 1
        elif depth == 0 and token.type in ("text", "code_inline"):
            found += [(line, match.group()) for match in PAGE_NAME.finditer(token.content)]
    return found


def slugify(text: str) -> str:
    """A heading's id as mkdocs' ``toc`` extension makes it by default."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    """The ids of ``path``'s headings as the built site has them."""
    tokens = _PARSER.parse(path.read_text(encoding="utf-8"))
    seen: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[index + 1]
        text = "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))
        explicit = re.search(r"\{#([\w-]+)\}\s*$", text)
        slug = explicit.group(1) if explicit else slugify(text)
        unique, number = slug, 0
        while unique in seen:
            number += 1
            unique = f"{slug}_{number}"
        seen.add(unique)
    return seen


def broken(link: Link) -> str | None:
    """Why ``link`` does not lead where it says (None when it does): a relative target
    that names no file, or an ``#anchor`` that no heading of the target page has. Links
    with a scheme (``https:``, ``mailto:``) are not followed."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", link.target):
        return None
    file_part, _, anchor = link.target.partition("#")
    target = (link.path.parent / file_part).resolve() if file_part else link.path
    if not target.exists():
        return f"no file {file_part}"
    if anchor and target.suffix == ".md" and anchor not in anchors(target):
        return f"no heading with the id #{anchor} in {target.name}"
    return None
