"""Sybil parsers for the code blocks of README.md and docs/*.md.

- A ```` ```python ```` block is plain Python, run with Sybil's ``PythonEvaluator``; one
  that starts with ``>>>`` is a doctest, whose shown output Sybil compares with what
  the code prints.
- A ```` ```ipython ```` block is a notebook cell (``%load_ext``, ``%%agent``, ``%env``):
  it runs in a real IPython ``InteractiveShell`` (:class:`IPythonCell`), and any error
  the cell raises fails it.
- A block right after a line ``<!-- not run: REASON -->`` (indented with the block in a
  list item, or not) is not run; :func:`not_run_markers` lists those markers so the test
  can count them against docs/testing.md.

Every block of a document shares one namespace, the shell's, and runs in document order.
Other fences (```` ```bash ````, ```` ```json ````, bare ```` ``` ```` for output or
usage text) are not code to run.
"""

from __future__ import annotations

import doctest
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

RUN_LANGUAGES = ("python", "ipython")
# The marker must be the last thing before the block's opening fence (blank lines aside).
NOT_RUN = re.compile(r"^[ \t]*<!-- not run: (?P<reason>[^\n]+?) -->\s*\Z", re.M)


@dataclass(frozen=True)
class NotRun:
    """A block marked ``<!-- not run: REASON -->``: its document, line and reason."""

    path: Path
    line: int
    reason: str


def _not_run_reason(document: Document, block_start: int) -> str | None:
    match = NOT_RUN.search(document.text, 0, block_start)
    return match.group("reason") if match else None


def _fenced_blocks(document: Document) -> Iterator[Region]:
    lexer = FencedCodeBlockLexer(language="|".join(RUN_LANGUAGES))
    yield from lexer(document)


class IPythonCell:
    """Runs a block in ``shell`` with ``run_cell``; the cell's own error, if any, is raised."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell

    def __call__(self, example: Example) -> None:
        result = self.shell.run_cell(str(example.parsed), store_history=True)
        result.raise_error()


class DocBlocks:
    """The Sybil parser: one region per python/ipython block (per ``>>>`` example in a
    doctest block), none for a block marked not run."""

    def __init__(self, shell: Any) -> None:
        self.python = PythonEvaluator()
        self.ipython = IPythonCell(shell)
        self.doctest = DocTestStringParser(DocTestEvaluator(doctest.NORMALIZE_WHITESPACE))  # outputs may wrap

    def __call__(self, document: Document) -> Iterable[Region]:
        for block in _fenced_blocks(document):
            if _not_run_reason(document, block.start) is not None:
                continue
            source = block.lexemes["source"]
            if block.lexemes["language"] == "ipython":
                yield Region(block.start, block.end, source, self.ipython)
            elif source.startswith(">>>"):
                for example in self.doctest(source, document.path):
                    example.adjust(block, source)
                    yield example
            else:
                yield Region(block.start, block.end, source, self.python)


def parse(path: Path, shell: Any) -> Document:
    """``path`` parsed into a Sybil document whose namespace is ``shell``'s user namespace."""
    document = Sybil(parsers=[DocBlocks(shell)]).parse(path)
    document.namespace = shell.user_ns
    return document


def run_blocks(path: Path) -> int:
    """How many python/ipython blocks ``path`` has that are not marked not run."""
    document = Document(path.read_text(), str(path))
    return sum(_not_run_reason(document, block.start) is None for block in _fenced_blocks(document))


def not_run_markers(path: Path) -> list[NotRun]:
    """Every ``<!-- not run: ... -->`` marker in ``path``; each must stand right before a
    python or ipython block (else it is reported with the reason ``"(marks no block)"``)."""
    document = Document(path.read_text(), str(path))
    marked = {m.start(): m for m in re.finditer(r"^[ \t]*<!-- not run: (?P<reason>[^\n]+?) -->", document.text, re.M)}
    found = []
    for block in _fenced_blocks(document):
        match = NOT_RUN.search(document.text, 0, block.start)
        if match is not None:
            marked.pop(match.start(), None)
            found.append(NotRun(path, document.text.count("\n", 0, block.start) + 1, match.group("reason")))
    found += [NotRun(path, document.text.count("\n", 0, start) + 1, "(marks no block)") for start in marked]
    return found
