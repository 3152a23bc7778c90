"""``op.evaluate``: a tool set tried on many prompts × models, as one table.

Every prompt runs on every model, each run on its own Runtime with a fresh model. In
this process the runs go on one event loop, at most ``concurrency`` at a time (an asyncio
semaphore); with ``executor=`` each run is one job submitted to that
``concurrent.futures.Executor`` — a thread or process pool, or a Dask ``distributed``
client's ``get_executor()`` spreading them over a cluster — again at most
``concurrency`` in flight. One failing run is one row saying why, never a crash.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from ...core._stop import StopToken, waiting_time
from ...core.errors import SetupError
from ...engine.runtime import ambient_runtime
from ...models import Model
from ._cost import Budget, EvaluationPlan, plan_of
from ._drivers import guarded, in_new_loop, in_process, on_executor
from ._grading import GradesAsRunsEnd, apply_grade, grade_rows
from ._jobs import EvalJob, EvalOutcome, check_names, resolved_once
from ._judge import Judge, Judgement, judge
from ._paired import PairedComparison
from ._progress import Progress
from ._report import EvalRow, Evaluation, Expect, ModelSummary, expectations, to_row
from ._variants import check_max_cost, check_repeat, parse_variants

__all__ = [
    "EvalRow",
    "Evaluation",
    "EvaluationInterrupted",
    "EvaluationPlan",
    "Judge",
    "Judgement",
    "ModelSummary",
    "PairedComparison",
    "aevaluate",
    "evaluate",
    "judge",
]

Expects = Expect | Sequence[Expect]
_CANCEL_GRACE = 0.5  # every run of an evaluation is on a Runtime with the default cancel_grace (._jobs)


class EvaluationInterrupted(KeyboardInterrupt):
    """Kernel ▸ Interrupt (Ctrl-C) stopped an evaluation; ``evaluation`` holds every row
    so far (the runs still going were stopped, those not started say so)."""

    def __init__(self, evaluation: Evaluation) -> None:
        super().__init__("the evaluation was interrupted; its rows so far are in this error's .evaluation")
        self.evaluation = evaluation


def evaluate(
    prompts: Sequence[str],
    *,
    models: Sequence[Any] | Mapping[str, Any] | None = None,
    tools: Sequence[object] | None = None,
    expect: Expects | None = None,
    concurrency: int = 8,
    timeout: float | None = None,
    executor: concurrent.futures.Executor | None = None,
    abort: threading.Event | None = None,
    progress: bool | Callable[[int, int], None] = True,
    repeat: int = 1,
    variants: Mapping[str, Sequence[object] | Mapping[str, Any]] | None = None,
    dry_run: bool = False,
    max_cost: float | None = None,
    **run_options: Any,
) -> Evaluation:
    """Run every prompt on every model and return the :class:`Evaluation`.

    ``models``: model strings, model objects (a ``ScriptedModel`` starts its script afresh
    for each run), or zero-argument callables that make one (a lambda is named after the
    model it makes); a dict names them; ``None`` (the default): the model of the runtime
    in use — the notebook's ``runtime`` — alone; each run is on that runtime, its model
    replaced (its approver, deny list, caps, settings hold). ``tools``, ``run_options``: ``Runtime.run``'s.
    ``expect(run)`` judges each run: it passes unless it raises (an ``AssertionError``'s
    message is the row's reason) or returns a falsy value other than ``None``; an
    ``op.judge`` grades it (after every run has ended, side by side, at most
    ``concurrency`` at once); in a list, all must pass, asked in order. ``timeout`` caps
    each run in seconds.
    ``repeat=k`` runs each prompt on each model k times (rows carry ``repeat``; the
    summary gives pass@k and pass^k with 95 % Wilson intervals, and ``ev.where(flaky=True)``
    the prompts that passed some times only). ``variants={"name": [tools...]}`` (or
    ``{"name": {run options}}``, e.g. ``system=``) runs every prompt under each variant,
    rows carrying ``variant``; ``ev.compare(a, b)`` then pairs them (McNemar's exact test).
    ``dry_run=True`` runs nothing and returns the :class:`EvaluationPlan`: runs, requests
    and, where prices are known, a floor of the cost. ``max_cost`` (dollars) caps the whole
    evaluation: once the finished runs cost that much no run starts, and those rows say so.
    ``executor`` sends each run to that executor (its jobs must be picklable: see :mod:`._jobs`). Setting ``abort``
    stops the evaluation: runs going on end as stopped, runs not started are not started,
    and the result says ``stopped``. Ctrl-C / Kernel ▸ Interrupt does the same, then
    raises :class:`EvaluationInterrupted` carrying the partial result. ``progress``: a
    progress bar in a notebook (``False``: none; a callable gets ``(done, total)``).

    Bad arguments raise ``TypeError`` / ``ValueError`` / :class:`SetupError` naming them
    before any run starts.
    """
    plan = _plan(prompts, models, tools, expect, concurrency, timeout, executor, run_options, repeat, variants)
    if dry_run:
        return plan.dry_run()  # type: ignore[return-value]  # documented: dry_run returns the plan
    plan.budget = _budget(max_cost)
    return _run_plan(plan, concurrency, executor, abort, progress)


def _run_plan(
    plan: _Plan,
    concurrency: int,
    executor: concurrent.futures.Executor | None,
    abort: threading.Event | None,
    progress: bool | Callable[[int, int], None],
) -> Evaluation:
    """Run ``plan``'s jobs on a worker thread (in its own event loop, or on ``executor``),
    the progress bar ticking here; an interrupt stops them and raises with the rows so far."""
    stop = abort or StopToken()
    outcomes: dict[int, EvalOutcome] = {}
    meter = Progress(len(plan.jobs), progress, plan.dry_run)
    finished = threading.Event()

    def record(outcome: EvalOutcome) -> None:
        outcomes[outcome.index] = outcome
        meter.count(outcome)

    if executor is not None:
        work: tuple[object, ...] = (on_executor, executor, plan.jobs, concurrency, stop, plan.budget.charging(record))
    else:
        work = (in_new_loop, plan.jobs, concurrency, stop, plan.budget.charging(record), plan.grading_as_runs_end(stop))
    worker = threading.Thread(
        target=guarded,
        args=(finished, *work, plan.budget),
        name="openprogram-evaluate",
        daemon=True,
    )
    worker.start()
    try:
        while not finished.wait(0.1):
            meter.tick()
    except KeyboardInterrupt:
        stop.set()
        finished.wait(waiting_time(_CANCEL_GRACE))
        raise EvaluationInterrupted(plan.result(outcomes, stopped=True)) from None
    finally:
        meter.close()
    return plan.result(outcomes, stopped=stop.is_set())


async def aevaluate(
    prompts: Sequence[str],
    *,
    models: Sequence[Any] | Mapping[str, Any] | None = None,
    tools: Sequence[object] | None = None,
    expect: Expects | None = None,
    concurrency: int = 8,
    timeout: float | None = None,
    executor: concurrent.futures.Executor | None = None,
    abort: threading.Event | None = None,
    progress: bool | Callable[[int, int], None] = True,
    repeat: int = 1,
    variants: Mapping[str, Sequence[object] | Mapping[str, Any]] | None = None,
    dry_run: bool = False,
    max_cost: float | None = None,
    **run_options: Any,
) -> Evaluation:
    """:func:`evaluate` on the current event loop (in a notebook: ``await op.aevaluate(...)``,
    which keeps the kernel free while it runs). Cancelling the awaiting task stops the
    evaluation and re-raises once the runs going on have ended."""
    plan = _plan(prompts, models, tools, expect, concurrency, timeout, executor, run_options, repeat, variants)
    if dry_run:
        return plan.dry_run()  # type: ignore[return-value]  # documented: dry_run returns the plan
    plan.budget = _budget(max_cost)
    stop = abort or StopToken()
    outcomes: dict[int, EvalOutcome] = {}
    meter = Progress(len(plan.jobs), progress, plan.dry_run)

    def record(outcome: EvalOutcome) -> None:
        outcomes[outcome.index] = outcome
        meter.count(outcome)

    if executor is not None:
        work = asyncio.ensure_future(
            asyncio.to_thread(
                on_executor, executor, plan.jobs, concurrency, stop, plan.budget.charging(record), plan.budget
            )
        )
    else:
        work = asyncio.ensure_future(
            in_process(
                plan.jobs, concurrency, stop, plan.budget.charging(record), plan.grading_as_runs_end(stop), plan.budget
            )
        )
    try:
        while not work.done():
            await asyncio.wait({work}, timeout=0.1)
            meter.tick()
        work.result()
    except asyncio.CancelledError:
        stop.set()
        await asyncio.wait({work}, timeout=waiting_time(_CANCEL_GRACE))
        raise
    finally:
        meter.close()
    if plan.expect:  # grading runs checks and judges on an event loop of its own
        return await asyncio.to_thread(plan.result, outcomes, stopped=stop.is_set())
    return plan.result(outcomes, stopped=stop.is_set())


class _Plan:
    """The checked jobs, and how their outcomes become the table."""

    def __init__(
        self,
        jobs: list[EvalJob],
        labels: list[str],
        expect: tuple[Expect, ...],
        concurrency: int = 8,
        variants: list[str] | None = None,
        repeats: int = 1,
        prompts: int = 0,
    ) -> None:
        self.jobs = jobs
        self.labels = labels
        self.expect = expect
        self.concurrency = concurrency
        self.variants = variants or []
        self.repeats = repeats
        self.prompts = prompts
        self.budget = Budget(None)
        self.early = GradesAsRunsEnd(expect)

    def grading_as_runs_end(self, stop: threading.Event) -> Callable[[EvalOutcome], Awaitable[None]] | None:
        """What grades a run in its slot as it ends (:class:`GradesAsRunsEnd`), when the
        expectations suit it; ``None`` otherwise (every row is graded by :meth:`result`).
        An expectation's ``KeyboardInterrupt`` sets ``stop``: no run starts after it."""
        if not GradesAsRunsEnd.suits(self.expect):
            return None

        async def grade(outcome: EvalOutcome) -> None:
            job = self.jobs[outcome.index]
            await self.early.grade(to_row(outcome, job), row_key(job, self.jobs))
            if self.early.interrupted:
                stop.set()

        return grade

    def dry_run(self) -> EvaluationPlan:
        """What running would take: runs, requests, a floor of the cost (:mod:`._cost`)."""
        judges = sum(isinstance(each, Judge) for each in self.expect)
        defaults = self.jobs[0].base.settings if self.jobs[0].base is not None else {}
        rounds = max(int(job.options.get("max_iterations") or defaults.get("max_iterations") or 1) for job in self.jobs)
        shape = {"prompts": self.prompts, "models": self.labels, "variants": self.variants, "repeats": self.repeats}
        return plan_of(self.jobs, judges, rounds, shape)

    def evaluation(self, rows: list[EvalRow], *, stopped: bool) -> Evaluation:
        return Evaluation(rows, self.labels, stopped=stopped, variants=self.variants, repeats=self.repeats)

    def result(self, outcomes: Mapping[int, EvalOutcome], *, stopped: bool) -> Evaluation:
        """The table, every finished run graded by ``expect`` (judges side by side, at most
        ``concurrency`` at once). An interrupt while grading raises
        :class:`EvaluationInterrupted` carrying every row: those graded keep their verdict,
        the others read ``stopped`` (not judged) — no finished run is lost."""
        rows = [to_row(outcomes.get(job.index) or EvalOutcome(job.index, skipped=True), job) for job in self.jobs]
        for row in rows:
            if row.passed and row.number in self.early.grades:
                apply_grade(row, self.early.grades[row.number])
        graded = [row.number for row in rows if row.number in self.early.grades]
        ended = [
            (row, row_key(job, self.jobs))
            for row, job in zip(rows, self.jobs, strict=True)
            if row.passed and row.number not in self.early.grades
        ]
        interrupted = self.early.interrupted  # an expectation interrupted grading as the runs ended
        if not interrupted:
            try:
                grade_rows(ended, self.expect, self.concurrency, graded)
            except KeyboardInterrupt:
                interrupted = True
        if interrupted:
            for row, _ in ended:
                if row.number not in graded and row.verdict == "pass":
                    row.verdict, row.why = "stopped", "not judged: the evaluation was interrupted while judging"
            raise EvaluationInterrupted(self.evaluation(rows, stopped=True)) from None
        return self.evaluation(rows, stopped=stopped)


def row_key(job: EvalJob, jobs: Sequence[EvalJob]) -> list[Any]:
    """The name a judge's recording keeps ``job``'s verdict under: its prompt, model,
    variant and repeat, and — for a prompt given more than once — which copy it is."""
    key: list[Any] = [job.prompt, job.model_label, job.variant, job.repeat]
    copy = sum(
        1
        for other in jobs[: job.index]
        if other.prompt == job.prompt
        and (other.model_label, other.variant, other.repeat) == (job.model_label, job.variant, job.repeat)
    )
    return [*key, copy] if copy else key


def _plan(
    prompts: Sequence[str],
    models: Sequence[Any] | Mapping[str, Any] | None,
    tools: Sequence[object] | None,
    expect: Expects | None,
    concurrency: int,
    timeout: float | None,
    executor: concurrent.futures.Executor | None,
    run_options: dict[str, Any],
    repeat: int = 1,
    variants: object = None,
) -> _Plan:
    prompt_list = _prompts(prompts)
    named = _models(models)
    expect_all = expectations(expect)
    shapes = parse_variants(variants)
    repeats = check_repeat(repeat)
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise SetupError(f"concurrency must be a positive int, got {concurrency!r}")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise SetupError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise SetupError(
            f"executor must be a concurrent.futures.Executor (with .submit), got {type(executor).__name__}"
        )
    if "abort" in run_options or "on_event" in run_options:
        raise SetupError("evaluate() has its own abort=; on_event= and the other hooks are not per-run options here")
    options = {**run_options, **({"tools": list(tools)} if tools is not None else {})}
    base = ambient_runtime()  # every run derives from it: its approver, deny list, caps, settings
    for _, variant in shapes:  # a bad option, or a bad variant's, fails here
        base.replace(model="offline", record=None).prepare(prompt_list[0], **{**options, **variant})
    if executor is None:  # one event loop: the runs of a model share its SDK client
        named = [(label, resolved_once(model, base)) for label, model in named]
    # On an executor each job travels alone; a process running several shares one model
    # (and so its client) between the jobs of the same key (_job_loop.shared_model).
    evaluation = uuid.uuid4().hex
    keys = {label: f"{evaluation}:{label}" if executor is not None else None for label, _ in named}
    cells = [
        (prompt, label, model, name, variant, r)
        for prompt in prompt_list
        for label, model in named
        for name, variant in shapes
        for r in range(repeats)
    ]
    jobs = [
        EvalJob(index, prompt, label, model, {**options, **variant}, timeout, base, name, r, keys[label])
        for index, (prompt, label, model, name, variant, r) in enumerate(cells)
    ]
    names = [name for name, _ in shapes if name is not None]
    return _Plan(jobs, [label for label, _ in named], expect_all, concurrency, names, repeats, len(prompt_list))


def _prompts(prompts: Any) -> list[str]:
    if isinstance(prompts, str) or not isinstance(prompts, Iterable):
        raise SetupError("prompts must be a list of prompt strings (one str is one prompt: pass [prompt])")
    listed = list(prompts)
    if not listed:
        raise SetupError("prompts is empty: give at least one prompt")
    for index, prompt in enumerate(listed):
        if not isinstance(prompt, str) or not prompt.strip():
            raise SetupError(f"prompts[{index}] must be a non-empty str, got {prompt!r}")
    return listed


def _models(models: Any) -> list[tuple[str, Any]]:
    if models is None:
        runtime = ambient_runtime()
        spec = runtime.model_spec if runtime.model_spec is not None else runtime.model.name
        return [(_label(spec), spec)]
    if isinstance(models, Mapping):
        named = [(str(label), model) for label, model in models.items()]
    elif isinstance(models, (str, Model)) or not isinstance(models, Iterable):
        raise SetupError("models must be a list of models (model strings, model objects or factories) or a dict")
    else:
        named = [(_label(model), model) for model in models]
    if not named:
        raise SetupError("models is empty: give at least one model")
    check_names([label for label, _ in named])
    return named


def _label(model: object) -> str:
    if isinstance(model, str):
        return model
    if isinstance(model, Model):
        return str(model.name)
    if callable(model):
        name = str(getattr(model, "__name__", repr(model)))
        if name == "<lambda>":  # named after what it makes
            made = model()
            return str(made.name) if isinstance(made, Model) else _label(made)
        return name
    raise SetupError(f"{model!r} is not a model: give a model string, a model object or a callable that makes one")


def _budget(max_cost: object) -> Budget:
    return Budget(check_max_cost(max_cost))
