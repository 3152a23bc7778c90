"""The result of an evaluation: one :class:`EvalRow` per prompt × model, and its views.

``Evaluation._repr_html_`` is the table (prompt × model: picks, pass/fail, tokens, cost,
time) under a summary per model (pass rate, cost) and its plot; ``to_pandas()`` gives the
rows as a DataFrame when pandas is installed. Every string from outside (prompts, picks,
errors) is escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from typing import Any, Literal

from ..render._table import html_table
from ..run import Run
from ._jobs import EvalOutcome, picks
from ._plot import summary_plot

__all__ = ["EvalRow", "Evaluation", "ModelSummary", "judge"]

Verdict = Literal["pass", "fail", "error", "timeout", "stopped"]


@dataclass
class EvalRow:
    """One prompt on one model. ``verdict``: ``"pass"`` / ``"fail"`` (what ``expect``
    said; ``"pass"`` when there is no ``expect`` and the run ended normally), ``"error"``
    (the run failed or never started), ``"timeout"``, ``"stopped"`` (the evaluation was
    stopped first). ``why`` says what failed. ``run`` is the Run (``None`` if it never ran)."""

    prompt: str
    model: str
    verdict: Verdict
    picks: list[str] = field(default_factory=list)
    tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    why: str = ""
    run: Run | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


@dataclass(frozen=True)
class ModelSummary:
    """One model's line: runs, passes, pass rate (over every run), tokens, cost (``None``
    if any run's cost is unknown), total time of its runs."""

    model: str
    runs: int
    passed: int
    tokens: int
    cost: float | None
    seconds: float

    @property
    def pass_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0


def judge(outcome: EvalOutcome, prompt: str, model: str, expect: Callable[[Run], Any] | None) -> EvalRow:
    """Turn what came back into a row. ``expect(run)`` passes unless it returns ``False``
    (or another falsy value other than ``None``) or raises — an ``AssertionError``'s
    message (or any other exception's) becomes the row's ``why``."""
    run = outcome.run
    row = EvalRow(prompt, model, "error", picks(run), seconds=round(outcome.seconds, 3), run=run)
    if run is not None:
        usage = run.usage
        row.tokens, row.cost = usage.total_tokens, usage.cost
    if outcome.skipped:
        row.verdict, row.why = "stopped", "the evaluation was stopped before this run started"
    elif outcome.error is not None or run is None:
        row.why = outcome.error or "the run left no record"
    elif outcome.timed_out:
        row.verdict, row.why = "timeout", "the run was stopped at its time limit"
    elif run.stop_reason == "aborted":
        row.verdict, row.why = "stopped", "the evaluation was stopped before this run ended"
    elif run.stop_reason == "error":
        row.why = str(run.error or "the run ended with an error")
    else:
        row.verdict, row.why = _expectation(expect, run)
    return row


def _expectation(expect: Callable[[Run], Any] | None, run: Run) -> tuple[Verdict, str]:
    if expect is None:
        return "pass", ""
    try:
        answer = expect(run)
    except AssertionError as error:
        return "fail", str(error) or "AssertionError"
    except KeyboardInterrupt:
        raise  # the user's interrupt: the caller keeps the rows judged so far
    except BaseException as error:  # SystemExit, pytest's fail(): this row's failure, not the table's
        return "fail", f"expect raised {type(error).__name__}: {_text(error)}"
    if answer is not None and not answer:
        return "fail", f"expect returned {answer!r}"
    return "pass", ""


class Evaluation:
    """Every prompt × model of one :func:`~openprogram_jupyter.evaluate` call.

    ``rows`` in prompt order, each prompt's models in the order given; ``stopped`` says
    the evaluation was stopped before every run ended; ``summary()`` one line per model;
    ``row(prompt, model)`` one row. Renders as a table in a notebook.
    """

    def __init__(self, rows: list[EvalRow], models: list[str], *, stopped: bool = False) -> None:
        self.rows = rows
        self.models = models
        self.stopped = stopped

    def row(self, prompt: str, model: str) -> EvalRow:
        for row in self.rows:
            if row.prompt == prompt and row.model == model:
                return row
        raise KeyError(f"no row for prompt {prompt!r} on model {model!r}")

    def summary(self) -> list[ModelSummary]:
        lines = []
        for model in self.models:
            rows = [r for r in self.rows if r.model == model]
            costs = [r.cost for r in rows]
            lines.append(ModelSummary(
                model, len(rows), sum(r.passed for r in rows), sum(r.tokens for r in rows),
                None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6),
                round(sum(r.seconds for r in rows), 3),
            ))
        return lines

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame`` (one row per prompt × model, no Run objects).

        Raises ``ImportError`` saying how to install pandas when it is not installed (it is
        not a dependency of this package)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Evaluation.to_pandas() needs pandas, which is not installed (pip install pandas); "
                              "evaluation.rows holds the same data") from None
        return pandas.DataFrame([
            {"prompt": r.prompt, "model": r.model, "verdict": r.verdict, "passed": r.passed,
             "picks": list(r.picks), "tokens": r.tokens, "cost": r.cost, "seconds": r.seconds, "why": r.why}
            for r in self.rows
        ])

    def __repr__(self) -> str:
        parts = [f"{s.model}: {s.passed}/{s.runs} passed" for s in self.summary()]
        state = ", stopped" if self.stopped else ""
        return f"<Evaluation {len(self.rows)} runs{state}: {'; '.join(parts)}>"

    def _repr_html_(self) -> str:
        summary = self.summary()
        models = [[f"<code>{escape(s.model)}</code>", f"{s.passed}/{s.runs} ({s.pass_rate:.0%})", f"{s.tokens:,}",
                   _cost(s.cost), f"{s.seconds:.2f} s"] for s in summary]
        note = "<p><b>Stopped</b> before every run ended.</p>" if self.stopped else ""
        return (
            f'<div class="openprogram-evaluation">{note}'
            + html_table(["model", "passed", "tokens", "cost", "time"], models, numbers={1, 2, 3, 4})
            + summary_plot(summary)
            + html_table(["prompt", "model", "picks", "result", "tokens", "cost", "time"],
                         [_row_cells(r) for r in self.rows], numbers={4, 5, 6})
            + "</div>"
        )


_MARK = {"pass": "✓ pass", "fail": "✗ fail", "error": "✗ error", "timeout": "✗ timeout", "stopped": "– stopped"}


def _row_cells(row: EvalRow) -> list[str]:
    why = f"<br><small>{escape(row.why)}</small>" if row.why else ""
    return [escape(row.prompt), f"<code>{escape(row.model)}</code>", escape(", ".join(row.picks)) or "—",
            f"{_MARK[row.verdict]}{why}", f"{row.tokens:,}", _cost(row.cost), f"{row.seconds:.2f} s"]


def _cost(cost: float | None) -> str:
    return "unknown" if cost is None else f"${cost:.4f}"


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return "(its message cannot be shown)"
