"""The result of an evaluation: one :class:`EvalRow` per prompt × model, and its views.

:func:`to_row` turns a run's outcome into its row, graded by ``expect`` (:func:`grade`:
checks and judges, all of which must pass). ``Evaluation._repr_html_`` is the line per
model, its plot and the rows, each opening on its run (:mod:`._html`); ``show``,
``sort``, ``where`` and ``compare`` are views (:mod:`._views`); ``to_pandas()`` gives
the rows as a DataFrame when pandas is installed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...engine.run import Run
from ...render._safe import display_bundle, safe_view
from ._grading import Expect, Verdict, expectations
from ._html import evaluation_html
from ._jobs import EvalJob, EvalOutcome, picks
from ._judge import Judgement
from ._views import Comparison, RowTranscript, compare, find, select, sort_rows

__all__ = ["EvalRow", "Evaluation", "Expect", "ModelSummary", "expectations", "to_row"]


@dataclass
class EvalRow:
    """One prompt on one model. ``verdict``: ``"pass"`` / ``"fail"`` (what ``expect``
    said; ``"pass"`` when there is no ``expect`` and the run ended normally), ``"error"``
    (the run failed or never started, or a judge could not grade it), ``"timeout"``,
    ``"stopped"`` (the evaluation was stopped first). ``why`` says what failed. ``run`` is
    the Run (``None`` if it never ran). ``number`` is the row's place in the whole
    evaluation (``ev.show(number)``), kept by sorted and filtered views. ``judgements``
    are the judges' verdicts on this run, ``judge_runs`` every judge run made for it (one
    that gave no verdict included); their tokens and cost are ``judge_tokens`` and
    ``judge_cost``, never part of ``tokens`` and ``cost``."""

    prompt: str
    model: str
    verdict: Verdict
    picks: list[str] = field(default_factory=list)
    tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0
    why: str = ""
    run: Run | None = field(default=None, repr=False)
    number: int = 0
    judgements: list[Judgement] = field(default_factory=list, repr=False)
    judge_runs: list[Run] = field(default_factory=list, repr=False)
    variant: str | None = None
    repeat: int = 0

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def judge_tokens(self) -> int:
        return sum(run.usage.total_tokens for run in self.judge_runs)

    @property
    def judge_cost(self) -> float | None:
        """The judges' cost in dollars: 0 when no judge ran, ``None`` if a price is unknown."""
        costs = [run.usage.cost for run in self.judge_runs]
        return None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6)

    @property
    def answer(self) -> str:
        """The run's answer text (``""`` if it never ran)."""
        return self.run.text if self.run is not None else ""


@dataclass(frozen=True)
class ModelSummary:
    """One model's line: runs, passes, pass rate (over every run), tokens, cost (``None``
    if any run's cost is unknown), total time of its runs, and what judging its runs took
    (``judge_tokens``, ``judge_cost``: kept apart from the runs' own)."""

    model: str
    runs: int
    passed: int
    tokens: int
    cost: float | None
    seconds: float
    judge_tokens: int = 0
    judge_cost: float | None = 0.0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0


def to_row(outcome: EvalOutcome, job: EvalJob) -> EvalRow:
    """Turn what came back into a row. A run that ended normally reads ``"pass"`` until
    ``expect`` grades it (:func:`._grading.grade_rows`)."""
    run = outcome.run
    row = EvalRow(
        job.prompt,
        job.model_label,
        "error",
        picks(run),
        seconds=round(outcome.seconds, 3),
        run=run,
        number=outcome.index,
        variant=job.variant,
        repeat=job.repeat,
    )
    if run is not None:
        usage = run.usage
        row.tokens, row.cost = usage.total_tokens, usage.cost
    if outcome.skipped:
        row.verdict, row.why = "stopped", outcome.error or "the evaluation was stopped before this run started"
    elif outcome.error is not None or run is None:
        row.why = outcome.error or "the run left no record"
    elif outcome.timed_out:
        row.verdict, row.why = "timeout", "the run was stopped at its time limit"
    elif run.stop_reason == "aborted":
        row.verdict, row.why = "stopped", "the evaluation was stopped before this run ended"
    elif run.stop_reason == "error":
        row.why = str(run.error or "the run ended with an error")
    else:
        row.verdict = "pass"
    return row


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
            lines.append(
                ModelSummary(
                    model,
                    len(rows),
                    sum(r.passed for r in rows),
                    sum(r.tokens for r in rows),
                    _total([r.cost for r in rows]),
                    round(sum(r.seconds for r in rows), 3),
                    sum(r.judge_tokens for r in rows),
                    _total([r.judge_cost for r in rows]),
                )
            )
        return lines

    def to_pandas(self) -> Any:
        """The rows as a ``pandas.DataFrame`` (one row per prompt × model, no Run objects).

        Raises ``ImportError`` saying how to install pandas when it is not installed (it is
        not a dependency of this package)."""
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "Evaluation.to_pandas() needs pandas, which is not installed (pip install pandas); "
                "evaluation.rows holds the same data"
            ) from None
        return pandas.DataFrame(
            [
                {
                    "number": r.number,
                    "prompt": r.prompt,
                    "model": r.model,
                    "verdict": r.verdict,
                    "passed": r.passed,
                    "picks": list(r.picks),
                    "tokens": r.tokens,
                    "cost": r.cost,
                    "seconds": r.seconds,
                    "why": r.why,
                    "judge_tokens": r.judge_tokens,
                    "judge_cost": r.judge_cost,
                }
                for r in self.rows
            ]
        )

    def __repr__(self) -> str:
        parts = [f"{s.model}: {s.passed}/{s.runs} passed" for s in self.summary()]
        state = ", stopped" if self.stopped else ""
        return f"<Evaluation {len(self.rows)} runs{state}: {'; '.join(parts)}>"

    # -- views: each keeps the rows' numbers, so ev.show(N) opens the row numbered N ---------

    def show(self, number: int) -> None:
        """Display row ``number``'s run (the ``#`` column): what it was, its transcript and
        each judge's verdict with the judge's transcript — as clicking its row does. Outside
        a notebook it prints the plain-text transcript. ``IndexError`` for a number not here."""
        from IPython.core.interactiveshell import InteractiveShell

        shown = self.transcript(number)
        if not InteractiveShell.initialized():
            print(repr(shown))
            return
        display_bundle({"text/plain": repr(shown), "text/html": shown._repr_html_()})

    def transcript(self, number: int) -> RowTranscript:
        """What :meth:`show` displays, as an object (its HTML and plain-text views)."""
        return RowTranscript(find(self.rows, number))

    def sort(self, key: str = "number", *, descending: bool = False) -> Evaluation:
        """The same rows ordered by ``key`` — ``"number"``, ``"prompt"``, ``"model"``,
        ``"verdict"`` (passes first), ``"tokens"``, ``"cost"``, ``"judge_cost"``,
        ``"seconds"`` — smallest first unless ``descending``; an unknown cost counts as the
        largest. Ties keep their order, so sorts chain."""
        return self._view(sort_rows(self.rows, key, descending))

    def where(
        self,
        test: Callable[[EvalRow], object] | None = None,
        *,
        model: str | Collection[str] | None = None,
        verdict: str | Collection[str] | None = None,
        contains: str | None = None,
    ) -> Evaluation:
        """The rows matching every filter given: ``test(row)`` true; run on ``model`` (a
        name or several); ending with ``verdict`` (``"pass"``, ``"fail"``, ``"error"``,
        ``"timeout"``, ``"stopped"``, or several); ``contains`` in the prompt or the answer,
        any case. ``ValueError`` names a model or verdict this evaluation cannot have."""
        return self._view(select(self.rows, test, model, verdict, contains, self.models))

    def compare(self, a: str, b: str, *, by: str | Sequence[str] = "verdict") -> Comparison:
        """The prompts where models ``a`` and ``b`` differ in ``by``: ``"verdict"`` (the
        default: one passed and the other did not, or they failed differently),
        ``"picks"``, ``"answer"``, or a list of them (any differing counts)."""
        return compare(self.rows, self.models, a, b, by)

    def _view(self, rows: list[EvalRow]) -> Evaluation:
        return Evaluation(rows, [m for m in self.models if any(r.model == m for r in rows)], stopped=self.stopped)

    def _repr_html_(self) -> str:
        return safe_view("text/html", evaluation_html(self.rows, self.summary(), stopped=self.stopped))


def _total(costs: list[float | None]) -> float | None:
    return None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6)
