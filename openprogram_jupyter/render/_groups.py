"""Long lists in a view: which items are drawn, and the rest counted in one line.

A saved transcript draws each list (a run's timeline, a round's items, a call's nested
runs) with :func:`draw_span`: the first ``head`` and the last ``tail`` items, and one
group for what lies between, while the transcript's :class:`~._format.Budget` lasts.
The live view draws its own windows (:mod:`openprogram_jupyter.jupyter._window`) and
counts what it leaves out with the same :func:`tally_item` and :func:`left_out_line`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ._format import STATUS_LABEL, Budget
from .tree import Block, CallNode, NoticeNode, RetryNode, RoundNode, RunNode, UserNode

__all__ = [
    "CHILDREN_SPAN",
    "ROUND_SPAN",
    "TIMELINE_SPAN",
    "Drawn",
    "Span",
    "draw_span",
    "failures",
    "left_out_line",
    "tally",
    "tally_item",
]

T = TypeVar("T")
S = TypeVar("S")


@dataclass(frozen=True)
class Span:
    """How much of a long list a saved transcript draws: the first ``head`` items and the
    last ``tail`` (a list of at most ``head + tail`` items is drawn whole)."""

    head: int
    tail: int


TIMELINE_SPAN = Span(head=4, tail=16)  # a run's prompt, rounds and user messages
ROUND_SPAN = Span(head=10, tail=30)  # a round's texts, calls, notes and waits
CHILDREN_SPAN = Span(head=2, tail=3)  # the nested runs a call opened


@dataclass
class Drawn(Generic[S]):
    """A list as drawn: the drawings of its first items, the items left out (one group,
    in order), the drawings of its last items."""

    head: list[S]
    left_out: list[Any]
    tail: list[S]


def draw_span(
    items: Sequence[T], draw: Callable[[T], S], span: Span, budget: Budget, size: Callable[[S], int]
) -> Drawn[S]:
    """Draw the first ``span.head`` and last ``span.tail`` of ``items`` while ``budget``
    lasts; the rest is one contiguous group, left out.

    The tail is drawn first (the last item first: a run's end matters most), then the
    head. Each drawing spends its ``size`` from the budget (what nested lists spent while
    it was drawn is part of that size, not counted twice); once the budget is exhausted
    no further item is drawn, so a transcript overshoots it by at most one item.
    """
    count = len(items)
    first_tail = count
    tail: list[S] = []
    while first_tail > 0 and len(tail) < span.tail and not budget.exhausted:
        first_tail -= 1
        tail.append(_drawn_within(budget, draw, items[first_tail], size))
    tail.reverse()
    head: list[S] = []
    while len(head) < min(span.head, first_tail) and not budget.exhausted:
        head.append(_drawn_within(budget, draw, items[len(head)], size))
    return Drawn(head, list(items[len(head) : first_tail]), tail)


def _drawn_within(budget: Budget, draw: Callable[[T], S], item: T, size: Callable[[S], int]) -> S:
    """``draw(item)``, its size spent: what nested lists spent while it was drawn is
    replaced by the size of the whole drawing, which holds theirs."""
    before = budget.spent
    drawing = draw(item)
    budget.spent = before + size(drawing)
    return drawing


def tally_item(item: object, counts: Counter[str]) -> None:
    """Add what ``item`` is to ``counts``: ``"round"`` (and its calls), ``"call"`` and
    ``"call:<status>"``, ``"message"`` (a user message after the prompt), ``"prompt"``,
    ``"text"``, ``"thinking"``, ``"note"``, ``"retry wait"`` or ``"nested run"``."""
    if isinstance(item, CallNode):
        counts["call"] += 1
        counts[f"call:{item.status}"] += 1
    elif isinstance(item, RoundNode):
        counts["round"] += 1
        for inner in item.items:
            if isinstance(inner, CallNode):
                tally_item(inner, counts)
    elif isinstance(item, UserNode):
        counts["prompt" if item.kind == "prompt" else "message"] += 1
    elif isinstance(item, Block):
        counts[item.kind] += 1
    elif isinstance(item, NoticeNode):
        counts["note"] += 1
    elif isinstance(item, RetryNode):
        counts["retry wait"] += 1
    elif isinstance(item, RunNode):
        counts["nested run"] += 1


def tally(items: Iterable[Any]) -> Counter[str]:
    """:func:`tally_item` of every item."""
    counts: Counter[str] = Counter()
    for item in items:
        tally_item(item, counts)
    return counts


_KINDS = (
    ("prompt", "prompt", "prompts"),
    ("message", "user message", "user messages"),
    ("round", "round", "rounds"),
    ("call", "call", "calls"),
    ("text", "text", "texts"),
    ("thinking", "thinking block", "thinking blocks"),
    ("note", "note", "notes"),
    ("retry wait", "retry wait", "retry waits"),
    ("nested run", "nested run", "nested runs"),
)


def left_out_line(counts: Counter[str], *, statuses: bool = True) -> str:
    """``1 user message, 976 rounds, 1,952 calls (1,950 done, 2 error)``: the kinds in
    ``counts`` (from :func:`tally_item`), each with its number; calls followed by their
    statuses, most frequent first, unless ``statuses`` is false."""
    parts = []
    for key, one, many in _KINDS:
        number = counts.get(key, 0)
        if not number:
            continue
        part = f"{number:,} {one if number == 1 else many}"
        if key == "call" and statuses:
            by_status = sorted(
                ((n, k[5:]) for k, n in counts.items() if k.startswith("call:") and n),
                key=lambda pair: (-pair[0], pair[1]),
            )
            part += " (" + ", ".join(f"{n:,} {STATUS_LABEL.get(s, s)}" for n, s in by_status) + ")"
        parts.append(part)
    return ", ".join(parts) or "nothing"


def failures(items: Iterable[Any], limit: int = 10) -> list[CallNode]:
    """The first ``limit`` calls among ``items`` (and the calls of rounds among them) that
    did not end ``done``."""
    found: list[CallNode] = []
    for item in items:
        calls = (
            [item]
            if isinstance(item, CallNode)
            else ([i for i in item.items if isinstance(i, CallNode)] if isinstance(item, RoundNode) else [])
        )
        for call in calls:
            if call.status != "done":
                found.append(call)
                if len(found) >= limit:
                    return found
    return found
