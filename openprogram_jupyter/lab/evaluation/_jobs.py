"""One cell of an evaluation — one prompt on one model — as a job, and how it runs.

A job is plain data (:class:`EvalJob`) and :func:`run_job` a module-level function, so a
job can be sent to another process: an executor pickles both (Dask with cloudpickle, so
tools and models defined in a notebook travel by value). What must be importable where
it runs: this package and everything the tools' bodies import. The job comes back as an
:class:`EvalOutcome` holding the :class:`~openprogram_jupyter.engine.run.Run`; the caller judges
it with ``expect`` in its own process, so ``expect`` itself never travels.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core._stop import StopToken, wait_until_set
from ...core.errors import SetupError
from ...engine.run import Run
from ...engine.runtime import Runtime
from ...models import Model, ScriptedModel
from ...models._provider_common import ProviderModel
from ._job_loop import job_loop, shared_model

__all__ = ["EvalJob", "EvalOutcome", "arun_job", "fresh_model", "resolved_once", "run_job"]


@dataclass(frozen=True)
class EvalJob:
    """Run ``prompt`` on ``model`` with ``options`` (``Runtime.run`` keywords), for at
    most ``timeout`` seconds (``None``: no limit), on ``base`` with ``model`` in place of
    its model (its approver, deny list, caps, registry and settings hold; ``None``: a
    Runtime of defaults). ``index`` is the cell's place in the table; ``variant`` the
    name of the tool variant it runs (``None``: no variants) and ``repeat`` which of the
    prompt's repeats it is (0 first). ``model_key`` names ``model`` among the jobs of one
    evaluation sent to an executor: a process running several of them resolves the model
    for the first and gives the later ones the same object (``None``: each job its own)."""

    index: int
    prompt: str
    model_label: str
    model: object
    options: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    base: Runtime | None = None
    variant: str | None = None
    repeat: int = 0
    model_key: str | None = None


@dataclass
class EvalOutcome:
    """What came back: the Run (``None`` if it never started), whether it ``timed_out``,
    the ``error`` that kept it from running, whether it was ``skipped`` (the evaluation
    was stopped before its turn), and how long it took (``seconds``)."""

    index: int
    run: Run | None = None
    timed_out: bool = False
    skipped: bool = False
    error: str | None = None
    seconds: float = 0.0


def fresh_model(model: object) -> Any:
    """The model one run gets. A :class:`ScriptedModel` plays its script from the first
    round for every run (a shared one would go on where the last run stopped); a provider's
    model is :meth:`~openprogram_jupyter.models._provider_common.ProviderModel.for_another_run`
    (its SDK client shared, its memo its own); a callable that is not a model is called for
    a new one; a model string or any other model is used as it is."""
    if isinstance(model, ScriptedModel):
        return ScriptedModel(model.script, name=model.name, delay=model.delay)
    if isinstance(model, ProviderModel):
        return model.for_another_run()
    if callable(model) and not isinstance(model, Model):
        return model()
    return model


def _runtime(job: EvalJob) -> Runtime:
    """The job's Runtime: its ``base`` with a fresh model (and no cassette of its own: the
    base's would get every run's replies at once)."""
    return (job.base or Runtime()).replace(model=fresh_model(job.model), record=None)


async def arun_job(job: EvalJob, stop: threading.Event) -> EvalOutcome:
    """Run ``job`` on the current event loop; ``stop`` (or the timeout) ends it as aborted."""
    started = time.monotonic()
    abort = StopToken()
    outcome = EvalOutcome(job.index)
    loop = asyncio.get_running_loop()
    timer = loop.call_later(job.timeout, _time_out, outcome, abort) if job.timeout is not None else None
    watcher = asyncio.ensure_future(_forward(stop, abort))
    try:
        outcome.run = await _runtime(job).arun(job.prompt, **job.options, abort=abort)
    except Exception as error:  # a bad option or model: this cell's row says so
        outcome.error = f"{type(error).__name__}: {error}"
    finally:
        watcher.cancel()
        if timer is not None:
            timer.cancel()
    outcome.seconds = time.monotonic() - started
    return outcome


def run_job(job: EvalJob) -> EvalOutcome:
    """Run ``job`` to its end in this process and return its outcome (what an executor
    calls, on a thread of its own): on this process's job loop (:mod:`._job_loop`), beside
    the other jobs running here, with the model the earlier jobs of its ``model_key`` had
    (so they share its SDK client). Blocks the calling thread until the run has ended."""
    if job.model_key is not None:
        job = dataclasses.replace(job, model=shared_model(job.model_key, lambda: resolved_once(job.model, job.base)))
    never_stopped = threading.Event()  # a run on another process cannot be reached from the caller's
    return asyncio.run_coroutine_threadsafe(arun_job(job, never_stopped), job_loop()).result()


def resolved_once(model: object, base: Runtime | None) -> object:
    """A model string resolved now, on ``base``'s key and base URL, when it names a
    provider's model: every run then gets :func:`fresh_model` of that one object, which
    shares its SDK client, instead of resolving the string and building a client of its
    own (about 20 ms of its event loop each). Anything else — another kind of model (a
    replay plays its cassette once per run), a string that does not resolve (each row then
    says why), or any model when there is no ``base`` — is returned as it is."""
    if not isinstance(model, str) or base is None:
        return model
    try:
        resolved = base.replace(model=model, record=None).model
    except Exception:
        return model
    return resolved if isinstance(resolved, ProviderModel) else model


def _time_out(outcome: EvalOutcome, abort: threading.Event) -> None:
    outcome.timed_out = True
    abort.set()


async def _forward(source: threading.Event, target: threading.Event) -> None:
    await wait_until_set(source)
    target.set()


def picks(run: Run | None) -> list[str]:
    """The tools the model picked at the top level, in order."""
    if run is None:
        return []
    return [call.name for message in run.messages for call in getattr(message, "tool_calls", [])]


def check_names(labels: Sequence[str]) -> None:
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            raise SetupError(
                f"two models are called {label!r}; give them different names "
                "(ScriptedModel(name=...), or pass models as a dict {name: model})"
            )
        seen.add(label)
