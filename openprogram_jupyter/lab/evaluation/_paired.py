"""Two tool variants compared pair by pair: ``ev.compare("short", "long")``.

A pair is one prompt on one model at one repeat, run under each variant. The pairs that
agree say nothing about which variant is better; the discordant ones — passed under one,
not under the other — are counted both ways and tested with McNemar's exact test
(:func:`._stats.mcnemar_exact`). The comparison says what it means in a sentence, and its
table shows, for every discordant pair, both runs' picks, tokens and transcripts side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from ...core.errors import SetupError
from ...render import render_html
from ...render._details import details_html
from ...render._safe import safe_view
from ...render._table import html_table
from ._html import MARK
from ._stats import mcnemar_exact

if TYPE_CHECKING:
    from ._report import EvalRow

__all__ = ["SIGNIFICANCE", "PairedComparison", "compare_variants"]

SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class PairedComparison:
    """Variants ``a`` and ``b`` on the same prompts: ``pairs`` every ``(row_a, row_b)``
    (same prompt, model and repeat), ``only_a`` the pairs that passed under ``a`` alone,
    ``only_b`` under ``b`` alone, ``p_value`` McNemar's exact two-sided p-value."""

    a: str
    b: str
    pairs: list[tuple[EvalRow, EvalRow]]

    @property
    def only_a(self) -> list[tuple[EvalRow, EvalRow]]:
        return [(x, y) for x, y in self.pairs if x.passed and not y.passed]

    @property
    def only_b(self) -> list[tuple[EvalRow, EvalRow]]:
        return [(x, y) for x, y in self.pairs if y.passed and not x.passed]

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.only_a), len(self.only_b))

    @property
    def significant(self) -> bool:
        """True when ``p_value`` is below 0.05."""
        return self.p_value < SIGNIFICANCE

    def sentence(self) -> str:
        """What the counts mean, e.g. ``long passes 9 prompts short fails, short passes 2
        long fails; p = 0.065: not yet significant``."""
        ahead, behind = (self.b, self.a) if len(self.only_b) >= len(self.only_a) else (self.a, self.b)
        wins = len(self.only_b if ahead == self.b else self.only_a)
        losses = len(self.only_a if ahead == self.b else self.only_b)
        verdict = (
            f"significant at 5 %: {ahead} is better" if self.significant and wins != losses else "not yet significant"
        )
        return (
            f"{ahead} passes {wins} {_prompts(wins)} {behind} fails, {behind} passes {losses} {ahead} fails; "
            f"p = {self.p_value:.2g}: {verdict}"
        )

    def __repr__(self) -> str:
        lines = [self.sentence()]
        for x, y in self.only_a + self.only_b:
            lines.append(
                f"  {x.prompt!r} on {x.model}" + (f" (repeat {x.repeat})" if x.repeat else "") + ": "
                f"{self.a} {x.verdict} [{', '.join(x.picks)}] {x.tokens} tokens | "
                f"{self.b} {y.verdict} [{', '.join(y.picks)}] {y.tokens} tokens"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        headers = ["prompt", "model", "repeat"] + [f"{escape(v)}: {part}" for v in (self.a, self.b) for part in _PARTS]
        rows = [
            [escape(x.prompt), f"<code>{escape(x.model)}</code>", str(x.repeat), *_side(x), *_side(y)]
            for x, y in self.only_a + self.only_b
        ]
        return safe_view(
            "text/html",
            f'<div class="openprogram-comparison"><p>{escape(self.sentence())}.</p>'
            f"{html_table(headers, rows, numbers={2, 5, 9})}</div>",
        )


_PARTS = ("result", "picks", "tokens", "run")


def _prompts(count: int) -> str:
    return "prompt" if count == 1 else "prompts"


def _side(row: EvalRow) -> list[str]:
    why = f"<br><small>{escape(row.why)}</small>" if row.why else ""
    run = details_html(f"#{row.number}", render_html(row.run)) if row.run is not None else f"#{row.number}"
    return [f"{MARK[row.verdict]}{why}", escape(", ".join(row.picks)) or "—", f"{row.tokens:,}", run]


def compare_variants(rows: Sequence[EvalRow], variants: Sequence[str], a: str, b: str) -> PairedComparison:
    """Pair each row of variant ``a`` with the row of ``b`` for the same prompt, model,
    repeat (and copy of a prompt given twice). Raises ``ValueError`` naming an unknown
    variant, or the same one twice."""
    for name in (a, b):
        if name not in variants:
            raise SetupError(
                f"no variant {name!r} in this evaluation: the variants are {', '.join(map(repr, variants))}"
            )
    if a == b:
        raise SetupError(f"compare needs two different variants, got {a!r} twice")
    on_b = _keyed([r for r in rows if r.variant == b])
    pairs = []
    for key, row_a in _keyed([r for r in rows if r.variant == a]).items():
        row_b = on_b.get(key)
        if row_b is not None:
            pairs.append((row_a, row_b))
    return PairedComparison(a, b, pairs)


def _keyed(rows: list[EvalRow]) -> dict[tuple[str, str, int, int], EvalRow]:
    seen: dict[tuple[str, str, int], int] = {}
    keyed = {}
    for row in sorted(rows, key=lambda r: r.number):
        group = (row.prompt, row.model, row.repeat)
        seen[group] = seen.get(group, 0) + 1
        keyed[(row.prompt, row.model, row.repeat, seen[group])] = row
    return keyed
