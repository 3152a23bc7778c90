"""Whether a JSON text nests deeper than a limit, found without parsing it: :func:`nesting_past`.

Python's JSON reader recurses once per level, so a text nested a few thousand levels deep
raises ``RecursionError`` instead of a readable error (and whatever reads the value
afterwards recurses too). Measuring first, in one linear pass that does not recurse, lets
a reader refuse such a text in its own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TooDeep", "nesting_past"]

# A string (its brackets are text, not nesting) or one bracket.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


@dataclass(frozen=True)
class TooDeep:
    """A text nested past the limit: its deepest ``depth`` (``1`` for ``[1]``), and the
    ``line`` and ``column`` (from 1) of the first bracket that went past the limit."""

    depth: int
    line: int
    column: int


def nesting_past(text: str, limit: int) -> TooDeep | None:
    """Where ``text`` nests its arrays and objects deeper than ``limit``; ``None`` if it does not.

    Brackets inside strings do not count. The text need not be valid JSON: for an invalid
    one the answer is a best guess (the parser then says what is wrong). Linear in the
    length of the text, and a text with at most ``limit`` brackets is not scanned at all.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = deepest = 0
    first_past: int | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit and first_past is None:
                first_past = match.start()
        elif token == "]" or token == "}":
            depth -= 1
    if first_past is None:
        return None
    line = text.count("\n", 0, first_past) + 1
    column = first_past - text.rfind("\n", 0, first_past)
    return TooDeep(depth=deepest, line=line, column=column)
