"""Views of an evaluation's rows: sorted, filtered, one run opened, two models compared.

Each view keeps every row's ``number`` (its place in the whole evaluation), so the number
a table shows is the one ``ev.show(N)`` takes, whatever view the table came from.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from ...core.errors import SetupError
from ...render import render_bundle
from ...render._safe import safe_view
from ...render._table import html_table
from ._html import MARK, row_html

if TYPE_CHECKING:
    from ._report import EvalRow

__all__ = ["SORT_KEYS", "Comparison", "RowTranscript", "compare", "find", "select", "sort_rows"]

_VERDICTS = ("pass", "fail", "error", "timeout", "stopped")
_BY = ("verdict", "picks", "answer")
_ANSWER_CHARS = 300


def _cost_key(value: float | None) -> float:
    return float("inf") if value is None else value  # an unknown cost sorts as the largest: never hidden as cheap


SORT_KEYS: dict[str, Callable[[EvalRow], Any]] = {
    "number": lambda r: r.number,
    "prompt": lambda r: r.prompt,
    "model": lambda r: r.model,
    "verdict": lambda r: _VERDICTS.index(r.verdict),
    "tokens": lambda r: r.tokens,
    "cost": lambda r: _cost_key(r.cost),
    "judge_cost": lambda r: _cost_key(r.judge_cost),
    "seconds": lambda r: r.seconds,
}


def sort_rows(rows: Sequence[EvalRow], key: str, descending: bool) -> list[EvalRow]:
    """``rows`` by ``key`` (one of :data:`SORT_KEYS`), smallest first unless ``descending``;
    rows that tie keep their order. ``"verdict"`` puts passes first. Raises ``ValueError``
    naming the keys for any other."""
    if key not in SORT_KEYS:
        raise SetupError(f"cannot sort by {key!r}: sort by one of {', '.join(SORT_KEYS)}")
    return sorted(rows, key=SORT_KEYS[key], reverse=descending)


def select(
    rows: Sequence[EvalRow],
    test: Callable[[EvalRow], object] | None,
    model: str | Collection[str] | None,
    verdict: str | Collection[str] | None,
    contains: str | None,
    models: Sequence[str],
) -> list[EvalRow]:
    """The rows that pass every filter given: ``test(row)`` true, one of ``model``, one of
    ``verdict``, ``contains`` in the prompt or the answer (any case). Raises ``ValueError``
    for a model or verdict that no row can have."""
    wanted_models = _names("model", model, models)
    wanted_verdicts = _names("verdict", verdict, _VERDICTS)
    needle = contains.casefold() if contains is not None else None
    if test is not None and not callable(test):
        raise SetupError(f"where(test): test must be a callable taking an EvalRow, got {type(test).__name__}")
    return [
        r
        for r in rows
        if (wanted_models is None or r.model in wanted_models)
        and (wanted_verdicts is None or r.verdict in wanted_verdicts)
        and (needle is None or needle in r.prompt.casefold() or needle in r.answer.casefold())
        and (test is None or test(r))
    ]


def _names(what: str, given: str | Collection[str] | None, known: Sequence[str]) -> set[str] | None:
    if given is None:
        return None
    names = {given} if isinstance(given, str) else set(given)
    unknown = sorted(names - set(known))
    if unknown:
        raise SetupError(
            f"no {what} {', '.join(map(repr, unknown))} in this evaluation: "
            f"the {what}s are {', '.join(map(repr, known))}"
        )
    return names


def find(rows: Sequence[EvalRow], number: int) -> EvalRow:
    """The row numbered ``number``; ``IndexError`` naming the numbers there are."""
    for row in rows:
        if row.number == number:
            return row
    numbers = sorted(r.number for r in rows)
    shown = f"{numbers[0]} to {numbers[-1]}" if numbers else "none"
    raise IndexError(f"no row number {number!r} here (the numbers in the # column: {shown})")


class RowTranscript:
    """One row opened: a line saying what it was (number, prompt, model, result, why),
    then the run's transcript and every judge's verdict; in HTML, Markdown-free plain
    text, and the package's static transcript formats."""

    def __init__(self, row: EvalRow) -> None:
        self.row = row

    def _repr_html_(self) -> str:
        return safe_view(
            "text/html",
            row_html(self.row, judged=bool(self.row.judge_runs), budget=[1], open_=True),
        )

    def __repr__(self) -> str:
        row = self.row
        lines = [
            f"#{row.number} {row.model}: {MARK[row.verdict]}" + (f" ({row.why})" if row.why else ""),
            f"prompt: {row.prompt}",
        ]
        lines += [f"judge: {MARK['pass' if j.passed else 'fail']}: {j.reason}" for j in row.judgements]
        if row.run is not None:
            lines.append(render_bundle(row.run)["text/plain"])
        return "\n".join(lines)


@dataclass(frozen=True)
class Comparison:
    """The prompts where models ``a`` and ``b`` differ: ``pairs`` of ``(row_a, row_b)`` in
    prompt order, and ``by`` the fields compared. Renders as a table; ``prompts`` lists them."""

    a: str
    b: str
    by: tuple[str, ...]
    pairs: list[tuple[EvalRow, EvalRow]]

    @property
    def prompts(self) -> list[str]:
        return [row_a.prompt for row_a, _ in self.pairs]

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self) -> Any:
        return iter(self.pairs)

    def __repr__(self) -> str:
        head = f"{len(self.pairs)} prompt(s) where {self.a} and {self.b} differ (by {', '.join(self.by)})"
        lines = [
            f"  {a.prompt!r}: {self.a} {a.verdict} {a.answer!r} | {self.b} {b.verdict} {b.answer!r}"
            for a, b in self.pairs
        ]
        return "\n".join([head + (":" if lines else "."), *lines])

    def _repr_html_(self) -> str:
        note = (
            f"<p>{len(self.pairs)} prompt(s) where <code>{escape(self.a)}</code> and "
            f"<code>{escape(self.b)}</code> differ (by {escape(', '.join(self.by))}).</p>"
        )
        headers = ["prompt"] + [
            f"{escape(name)}: {part}" for name in (self.a, self.b) for part in ("#", "result", "answer")
        ]
        rows = [[escape(a.prompt), *_side(a), *_side(b)] for a, b in self.pairs]
        return safe_view(
            "text/html", f'<div class="openprogram-comparison">{note}{html_table(headers, rows, numbers={1, 4})}</div>'
        )


def _side(row: EvalRow) -> list[str]:
    answer = row.answer if len(row.answer) <= _ANSWER_CHARS else row.answer[:_ANSWER_CHARS] + "…"
    why = f"<br><small>{escape(row.why)}</small>" if row.why else ""
    return [str(row.number), f"{MARK[row.verdict]}{why}", escape(answer) or "—"]


def compare(rows: Sequence[EvalRow], models: Sequence[str], a: str, b: str, by: str | Sequence[str]) -> Comparison:
    """The prompts both models ran where any field of ``by`` differs (``"verdict"``,
    ``"picks"``, ``"answer"``). The k-th row of a prompt on ``a`` pairs with the k-th on
    ``b``, so a prompt given twice compares twice. Raises ``ValueError`` for an unknown or
    repeated model, or an unknown field."""
    fields = (by,) if isinstance(by, str) else tuple(by)
    bad = [f for f in fields if f not in _BY]
    if bad or not fields:
        raise SetupError(f"compare(by=...) takes {', '.join(map(repr, _BY))} (one or a list), got {by!r}")
    for name in (a, b):
        if name not in models:
            raise SetupError(f"no model {name!r} in this evaluation: the models are {', '.join(map(repr, models))}")
    if a == b:
        raise SetupError(f"compare needs two different models, got {a!r} twice")
    on_b = _by_occurrence([r for r in rows if r.model == b])
    pairs = []
    for key, row_a in _by_occurrence([r for r in rows if r.model == a]).items():
        row_b = on_b.get(key)
        if row_b is not None and any(_field(row_a, f) != _field(row_b, f) for f in fields):
            pairs.append((row_a, row_b))
    return Comparison(a, b, fields, pairs)


def _by_occurrence(rows: list[EvalRow]) -> dict[tuple[str, int], EvalRow]:
    seen: dict[str, int] = {}
    keyed = {}
    for row in sorted(rows, key=lambda r: r.number):
        seen[row.prompt] = seen.get(row.prompt, 0) + 1
        keyed[(row.prompt, seen[row.prompt])] = row
    return keyed


def _field(row: EvalRow, name: str) -> object:
    return row.answer if name == "answer" else row.picks if name == "picks" else row.verdict
