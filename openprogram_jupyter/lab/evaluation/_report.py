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

from ...core.errors import SetupError
from ...engine.run import Run
from ...render._safe import display_bundle, safe_view
from ._grading import Expect, Verdict, expectations
from ._html import evaluation_html
from ._jobs import EvalJob, EvalOutcome, picks
from ._judge import Judgement
from ._paired import PairedComparison, compare_variants
from ._stats import wilson
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
    ``judge_cost``, never part of ``tokens`` and ``cost``. ``variant`` names the tool
    variant it ran under (``None`` without ``variants=``), ``repeat`` which of the prompt's
    repeats it is (0 first); ``checked`` lists what the ``op.check`` chains its ``expect``
    returned checked — the rubric it passed ("called search; did not call delete; ≤ 3 calls")."""

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
    checked: list[str] = field(default_factory=list, repr=False)

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
    """One model's line (one per model and variant when there are variants): runs, passes,
    pass rate (over every run), tokens, cost (``None`` if any run's cost is unknown), total
    time of its runs, and what judging its runs took (``judge_tokens``, ``judge_cost``:
    kept apart from the runs' own). Over its ``prompts``, each run ``repeats`` times:
    ``pass_at_k`` prompts passed at least once, ``pass_all_k`` passed every time (pass^k,
    τ-bench's consistency), ``flaky`` passed some times and not others; a run that did not
    pass for any reason (failed, error, timeout, stopped) counts as not passed."""

    model: str
    runs: int
    passed: int
    tokens: int
    cost: float | None
    seconds: float
    judge_tokens: int = 0
    judge_cost: float | None = 0.0
    variant: str | None = None
    prompts: int = 0
    repeats: int = 1
    pass_at_k: int = 0
    pass_all_k: int = 0
    flaky: int = 0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0

    @property
    def pass_at_k_rate(self) -> float:
        """pass@k: the share of prompts that passed at least once in ``repeats`` runs."""
        return self.pass_at_k / self.prompts if self.prompts else 0.0

    @property
    def pass_all_k_rate(self) -> float:
        """pass^k: the share of prompts that passed in every one of ``repeats`` runs."""
        return self.pass_all_k / self.prompts if self.prompts else 0.0

    @property
    def pass_at_k_interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of :attr:`pass_at_k_rate`, over the prompts."""
        return wilson(self.pass_at_k, self.prompts)

    @property
    def pass_all_k_interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of :attr:`pass_all_k_rate`, over the prompts."""
        return wilson(self.pass_all_k, self.prompts)


def prompt_groups(rows: Sequence[EvalRow]) -> dict[tuple[str, str, str | None, int], list[EvalRow]]:
    """The rows of each prompt on each model and variant — its repeats — keyed by
    ``(prompt, model, variant, copy)``: ``copy`` counts a prompt given more than once."""
    groups: dict[tuple[str, str, str | None, int], list[EvalRow]] = {}
    for row in sorted(rows, key=lambda r: r.number):
        copy = 0
        while len(groups.get((row.prompt, row.model, row.variant, copy), [])) > row.repeat:
            copy += 1
        groups.setdefault((row.prompt, row.model, row.variant, copy), []).append(row)
    return groups


def is_flaky(group: Sequence[EvalRow]) -> bool:
    """A prompt's repeats that passed some times and not others."""
    return any(r.passed for r in group) and not all(r.passed for r in group)


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

    def __init__(
        self,
        rows: list[EvalRow],
        models: list[str],
        *,
        stopped: bool = False,
        variants: list[str] | None = None,
        repeats: int = 1,
    ) -> None:
        self.rows = rows
        self.models = models
        self.stopped = stopped
        self.variants = variants or []
        self.repeats = repeats

    def row(self, prompt: str, model: str) -> EvalRow:
        for row in self.rows:
            if row.prompt == prompt and row.model == model:
                return row
        raise KeyError(f"no row for prompt {prompt!r} on model {model!r}")

    def summary(self) -> list[ModelSummary]:
        """One line per model — per model and variant when there are variants."""
        lines = []
        variants: list[str | None] = [*self.variants] or [None]
        for model in self.models:
            for variant in variants:
                rows = [r for r in self.rows if r.model == model and r.variant == variant]
                groups = list(prompt_groups(rows).values())
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
                        variant,
                        len(groups),
                        self.repeats,
                        sum(any(r.passed for r in group) for group in groups),
                        sum(all(r.passed for r in group) for group in groups),
                        sum(is_flaky(group) for group in groups),
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
        variant: str | Collection[str] | None = None,
        flaky: bool | None = None,
    ) -> Evaluation:
        """The rows matching every filter given: ``test(row)`` true; run on ``model`` (a
        name or several); ending with ``verdict`` (``"pass"``, ``"fail"``, ``"error"``,
        ``"timeout"``, ``"stopped"``, or several); ``contains`` in the prompt or the answer,
        any case; under ``variant`` (a name or several); ``flaky=True``: the repeats of a
        prompt that passed some times and not others on its model and variant
        (``flaky=False``: every other row). ``ValueError`` names a model, verdict or
        variant this evaluation cannot have."""
        if flaky is not None and not isinstance(flaky, bool):
            raise SetupError(f"where(flaky=...) takes True or False, got {flaky!r}")
        if variant is not None:
            wanted = {variant} if isinstance(variant, str) else set(variant)
            unknown = sorted(wanted - set(self.variants))
            if unknown:
                known = ", ".join(map(repr, self.variants)) or "none (it ran without variants=)"
                raise SetupError(
                    f"no variant {', '.join(map(repr, unknown))} in this evaluation: the variants are {known}"
                )
        shaky = {row.number for group in prompt_groups(self.rows).values() if is_flaky(group) for row in group}
        rows = [
            r
            for r in select(self.rows, test, model, verdict, contains, self.models)
            if (variant is None or r.variant in wanted) and (flaky is None or (r.number in shaky) == flaky)
        ]
        return self._view(rows)

    def compare(self, a: str, b: str, *, by: str | Sequence[str] = "verdict") -> Comparison | PairedComparison:
        """Two variants (``variants=``): a :class:`PairedComparison` — per prompt, model
        and repeat, which passed under one and not the other, the counts both ways and
        McNemar's exact p-value, with the sentence it means. Two models: the prompts where
        they differ in ``by``: ``"verdict"`` (the default: one passed and the other did
        not, or they failed differently), ``"picks"``, ``"answer"``, or a list of them (any
        differing counts). ``ValueError`` for names that are neither, or a name that is
        both a model and a variant."""
        names = {a, b}
        both = sorted(names & set(self.variants) & set(self.models))
        if both:
            raise SetupError(f"{', '.join(map(repr, both))} names both a model and a variant: rename one")
        if names & set(self.variants):
            return compare_variants(self.rows, self.variants, a, b)
        return compare(self.rows, self.models, a, b, by)

    def _view(self, rows: list[EvalRow]) -> Evaluation:
        return Evaluation(
            rows,
            [m for m in self.models if any(r.model == m for r in rows)],
            stopped=self.stopped,
            variants=[v for v in self.variants if any(r.variant == v for r in rows)],
            repeats=self.repeats,
        )

    def _repr_html_(self) -> str:
        return safe_view("text/html", evaluation_html(self.rows, self.summary(), stopped=self.stopped))


def _total(costs: list[float | None]) -> float | None:
    return None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6)
