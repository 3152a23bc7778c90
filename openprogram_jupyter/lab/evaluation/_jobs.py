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

__all__ = ["EvalJob", "EvalOutcome", "arun_job", "fresh_model", "run_job"]


@dataclass(frozen=True)
class EvalJob:
    """Run ``prompt`` on ``model`` with ``options`` (``Runtime.run`` keywords), for at
    most ``timeout`` seconds (``None``: no limit), on ``base`` with ``model`` in place of
    its model (its approver, deny list, caps, registry and settings hold; ``None``: a
    Runtime of defaults). ``index`` is the cell's place in the table; ``variant`` the
    name of the tool variant it runs (``None``: no variants) and ``repeat`` which of the
    prompt's repeats it is (0 first)."""

    index: int
    prompt: str
    model_label: str
    model: object
    options: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    base: Runtime | None = None
    variant: str | None = None
    repeat: int = 0


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
    """Run ``job`` to its end in this process, synchronously (what an executor calls)."""
    started = time.monotonic()
    outcome = EvalOutcome(job.index)
    try:
        handle = _runtime(job).start(job.prompt, **job.options)
        try:
            outcome.run = handle.wait(timeout=job.timeout)
        except TimeoutError:
            outcome.timed_out = True
            handle.abort()
            outcome.run = handle.wait(timeout=10.0)
    except Exception as error:
        outcome.error = f"{type(error).__name__}: {error}"
    outcome.seconds = time.monotonic() - started
    return outcome


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
