"""Which part of a long list the live view draws, and the counts of the rest.

However long a run gets, the live view draws a bounded number of widgets. Of a run's
timeline it draws the prompt and the latest items; of a round's items, a window around
the first call that has not ended (the one running, or next), or the latest items while
the reply still streams. A window's start moves in steps of :attr:`WindowSize.step`, so
the widgets on screen stay put between steps (a frontend redraws a box's children from
the first one that changed). What a window leaves out is counted as the window moves
(:class:`PrefixTally`), so a redraw costs the same for ten calls as for ten thousand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..render._groups import tally, tally_item
from ..render.tree import CallNode, RoundNode

__all__ = [
    "NESTED_ROUND",
    "NESTED_TIMELINE",
    "ROUND",
    "TIMELINE",
    "PrefixTally",
    "RoundWindow",
    "Shown",
    "WindowSize",
    "window",
]


@dataclass(frozen=True)
class WindowSize:
    """A list of at most ``whole`` items is drawn whole; a longer one from ``before`` to
    ``before + step - 1`` items before its anchor up to ``after`` items from it."""

    whole: int
    before: int
    after: int
    step: int


TIMELINE = WindowSize(whole=6, before=3, after=0, step=2)  # a top-level run: the latest 3–4 items
ROUND = WindowSize(whole=14, before=5, after=4, step=4)  # a top-level round: at most 12 items
NESTED_TIMELINE = WindowSize(whole=3, before=2, after=0, step=1)
NESTED_ROUND = WindowSize(whole=6, before=2, after=2, step=2)


def window(length: int, anchor: int, size: WindowSize) -> tuple[int, int]:
    """The slice ``[start, end)`` of a list of ``length`` items to draw around ``anchor``
    (an index; ``length`` for the list's end). ``start`` is a multiple of ``size.step``."""
    if length <= size.whole:
        return 0, length
    anchor = min(max(anchor, 0), length)
    start = max(0, anchor - size.before)
    start -= start % size.step
    end = min(length, max(anchor + size.after, start + size.before + size.after))
    return start, end


class PrefixTally:
    """The counts (:func:`~openprogram_jupyter.render._groups.tally_item`) of
    ``items[:end]``, kept as ``end`` moves forward over a list whose counted items no
    longer change. A new list, a new ``key`` or an ``end`` that moves back starts over."""

    def __init__(self) -> None:
        self._items: Sequence[Any] | None = None  # held, so its id cannot pass to a new list
        self._key: Any = None
        self._end = 0
        self.counts: Counter[str] = Counter()

    def upto(self, items: Sequence[Any], end: int, key: object = None) -> Counter[str]:
        if items is not self._items or key != self._key or end < self._end:
            self._items, self._key, self._end, self.counts = items, key, 0, Counter()
        for index in range(self._end, end):
            tally_item(items[index], self.counts)
        self._end = max(self._end, end)
        return self.counts


@dataclass
class Shown:
    """What a window draws of a list: ``items[start:end]``, with the counts of what comes
    before ``start`` and (kinds only) after ``end``."""

    start: int
    end: int
    before: Counter[str]
    after: Counter[str]


class RoundWindow:
    """The window on one round's items, kept from one redraw to the next.

    While the reply streams the window follows its end; once the reply is complete it
    follows the first call that has not ended (found by a scan that resumes where it
    stopped: calls before it have ended, and an ended call stays ended).
    """

    def __init__(self) -> None:
        self._scanned: tuple[Sequence[Any] | None, int] = (None, 0)
        self._before = PrefixTally()
        self._all = PrefixTally()

    def shown(self, round_: RoundNode, size: WindowSize) -> Shown:
        items = round_.items
        streaming = not round_.finished and round_.stop_reason is None
        anchor = len(items) if streaming else self._first_open_call(items)
        start, end = window(len(items), anchor, size)
        before = self._before.upto(items, start, key=streaming)
        every = self._all.upto(items, len(items))
        after = every - before - tally(items[start:end])
        return Shown(start, end, Counter(before), Counter({k: n for k, n in after.items() if ":" not in k}))

    def _first_open_call(self, items: Sequence[Any]) -> int:
        seen, index = self._scanned
        if seen is not items:
            index = 0
        while index < len(items) and not (isinstance(items[index], CallNode) and not items[index].finished):
            index += 1
        self._scanned = (items, index)
        return index
