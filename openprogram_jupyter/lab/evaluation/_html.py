"""An evaluation as HTML: the line per model, the plot, and one row per run that opens.

Each run's row is a ``<details>`` element: its ``<summary>`` is the row (number, prompt,
model, picks, result, tokens, cost, the judges' cost when a judge graded, time), laid out
on one grid so the columns line up, and clicking it opens the run's transcript — and each
judge's verdict with the judge's own transcript — right under it. Plain HTML, no script
and no widget, so it works the same in JupyterLab, Notebook 7, VS Code and Colab, and in
the saved notebook (GitHub, nbviewer). Transcripts are kept up to :data:`TRANSCRIPT_CHARS`
characters in all; a row past that says how to show its run (``ev.show(N)``). Every string
from outside (prompts, picks, answers, reasons, errors) is escaped; transcripts are the
package's sanitized static ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from ...core._money import dollars
from ...render import render_html
from ...render._details import details_html
from ...render._table import html_table
from ._plot import summary_plot

if TYPE_CHECKING:
    from ._report import EvalRow, ModelSummary

__all__ = ["MARK", "TRANSCRIPT_CHARS", "cost_text", "evaluation_html", "row_html", "rows_html"]

TRANSCRIPT_CHARS = 1_000_000
MARK = {"pass": "✓ pass", "fail": "✗ fail", "error": "✗ error", "timeout": "✗ timeout", "stopped": "– stopped"}
_COLOR = {"pass": "#1a7f37", "stopped": "#57606a"}
_PROMPT_CHARS = 300
_CELL = "padding:2px 8px;min-width:0;overflow-wrap:break-word"
_NUMBER = "padding:2px 8px;text-align:right;white-space:nowrap"
_MUTED = "color:#57606a;font-size:0.9em"


def evaluation_html(rows: Sequence[EvalRow], summary: list[ModelSummary], *, stopped: bool) -> str:
    """The whole view: a note if ``stopped``, the table per model, its plot, the rows."""
    judged = any(r.judge_runs for r in rows)
    varied = any(s.variant is not None for s in summary)
    repeated = any(s.repeats > 1 for s in summary)
    k = max((s.repeats for s in summary), default=1)
    head = (
        ["model"]
        + (["variant"] if varied else [])
        + ["passed"]
        + ([f"pass@{k} (95 %)", f"pass^{k} (95 %)", "flaky"] if repeated else [])
        + ["tokens", "cost", "time"]
        + (["judge tokens", "judge cost"] if judged else [])
    )
    lines = [
        [f"<code>{escape(s.model)}</code>"]
        + ([f"<code>{escape(s.variant or '')}</code>"] if varied else [])
        + [f"{s.passed}/{s.runs} ({s.pass_rate:.0%})"]
        + (
            [
                _rate(s.pass_at_k, s.prompts, s.pass_at_k_interval),
                _rate(s.pass_all_k, s.prompts, s.pass_all_k_interval),
                f"{s.flaky}",
            ]
            if repeated
            else []
        )
        + [f"{s.tokens:,}", cost_text(s.cost), f"{s.seconds:.2f} s"]
        + ([f"{s.judge_tokens:,}", cost_text(s.judge_cost)] if judged else [])
        for s in summary
    ]
    first_number = head.index("passed")
    note = "<p><b>Stopped</b> before every run ended.</p>" if stopped else ""
    return (
        f'<div class="openprogram-evaluation">{note}'
        + html_table(head, lines, numbers=set(range(first_number, len(head))))
        + summary_plot(summary)
        + rows_html(rows, judged=judged)
        + "</div>"
    )


def _rate(count: int, of: int, interval: tuple[float, float]) -> str:
    low, high = interval
    return f"{count}/{of} ({count / of if of else 0:.0%}, {low:.0%}–{high:.0%})"


def _columns(judged: bool) -> str:
    # Each row is a grid of its own, so every track is sized without its content: the
    # columns line up from row to row whatever each row holds.
    numbers = "4.5em 5em " + ("5em " if judged else "") + "4.5em"
    return (
        "display:grid;grid-template-columns:2.5em minmax(6em,3fr) minmax(7em,1.2fr) minmax(5em,1fr) "
        f"minmax(8em,3fr) {numbers};align-items:start"
    )


def _least_width(judged: bool) -> str:
    """The rows' narrowest width: narrower output scrolls sideways rather than squeeze a name."""
    return f"{2.5 + 6 + 7 + 5 + 8 + 4.5 + 5 + (5 if judged else 0) + 4.5 + 1.2:g}em"


def rows_html(rows: Sequence[EvalRow], *, judged: bool) -> str:
    """The rows under a header line; the header says a row opens on its run."""
    names = ["#", "prompt", "model", "picks", "result", "tokens", "cost"] + (["judge"] if judged else []) + ["time"]
    first_number = names.index("tokens")
    header = "".join(
        f'<span style="{_NUMBER if i >= first_number else _CELL};white-space:nowrap"><b>{n}</b></span>'
        for i, n in enumerate(names)
    )
    budget = [TRANSCRIPT_CHARS]
    body = "".join(row_html(row, judged=judged, budget=budget) for row in rows)
    also = " and the judge's verdict" if judged else ""
    return (
        f'<p style="{_MUTED}">Click a row to open its run{also}.</p>'
        f'<div style="overflow-x:auto"><div class="openprogram-evaluation-rows" '
        f'style="min-width:{_least_width(judged)}">'
        f'<div style="{_columns(judged)};padding-left:1.2em;border-bottom:1px solid rgba(127,127,127,0.5)">'
        f"{header}</div>{body}</div></div>"
    )


def row_html(row: EvalRow, *, judged: bool, budget: list[int], open_: bool = False) -> str:
    """One row as a ``<details>`` (open with ``open_``); its transcript counts against
    ``budget[0]`` characters."""
    prompt = row.prompt if len(row.prompt) <= _PROMPT_CHARS else row.prompt[:_PROMPT_CHARS] + "…"
    color = _COLOR.get(row.verdict, "#cf222e")
    cells = [
        (_CELL, f"{row.number}"),
        (_CELL, escape(prompt)),
        (_CELL, f"<code>{escape(row.model)}</code>{_where(row)}"),
        (_CELL, escape(", ".join(row.picks)) or "—"),
        (_CELL, f'<span style="color:{color}">{MARK[row.verdict]}</span>{_reasons(row)}'),
        (_NUMBER, f"{row.tokens:,}"),
        (_NUMBER, cost_text(row.cost)),
    ]
    cells += [(_NUMBER, cost_text(row.judge_cost) if row.judge_runs else "—")] if judged else []
    cells += [(_NUMBER, f"{row.seconds:.2f} s")]
    summary = "".join(f'<span style="{style}">{text}</span>' for style, text in cells)
    return details_html(
        f'<span style="{_columns(judged)};width:calc(100% - 1.2em);display:inline-grid">{summary}</span>',
        f'<div style="margin:4px 0 8px 1.2em">{_opened(row, budget)}</div>',
        open_=open_,
        style="border-bottom:1px solid rgba(127,127,127,0.2)",
        summary_style="cursor:pointer",
        attributes={"class": "openprogram-evaluation-row", "data-row": str(row.number)},
    )


def _where(row: EvalRow) -> str:
    """The row's variant and repeat under its model, when it has them."""
    parts = ([f"variant <code>{escape(row.variant)}</code>"] if row.variant is not None else []) + (
        [f"repeat {row.repeat}"] if row.repeat else []
    )
    return f'<br><small style="{_MUTED}">{" · ".join(parts)}</small>' if parts else ""


def _reasons(row: EvalRow) -> str:
    lines = [escape(row.why)] if row.why else []
    lines += [escape("; ".join(row.checked))] if row.checked and row.passed else []
    lines += [f"judge: {escape(j.reason)}" for j in row.judgements if j.passed]
    return "".join(f'<br><small style="{_MUTED}">{line}</small>' for line in lines)


def _opened(row: EvalRow, budget: list[int]) -> str:
    """What an opened row shows: the transcript, then each judge run, within the budget."""
    if row.run is None:
        return f'<p style="{_MUTED}">This run never started: {escape(row.why)}</p>'
    if budget[0] <= 0:
        return (
            f'<p style="{_MUTED}">Transcripts past the first {TRANSCRIPT_CHARS:,} characters are not kept '
            f"in the table: <code>ev.show({row.number})</code> shows this one.</p>"
        )
    parts = [render_html(row.run)]
    for judge_run, verdict in zip(row.judge_runs, [*row.judgements, None], strict=False):
        said = (
            f"{MARK['pass' if verdict.passed else 'fail']}: {escape(verdict.reason)}"
            if verdict is not None
            else "no verdict"
        )
        parts.append(details_html(f"The judge said {said}", render_html(judge_run)))
    html = "".join(parts)
    budget[0] -= len(html)
    return html


def cost_text(cost: float | None) -> str:
    return "unknown" if cost is None else dollars(cost)
