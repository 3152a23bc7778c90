"""How an evaluation's jobs are run: on one event loop in this process, or on an executor.

Both record each job's :class:`EvalOutcome` as it ends, at most ``concurrency`` jobs in
flight, and start none once the evaluation is stopped or its budget spent.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable

from ._cost import Budget
from ._jobs import EvalJob, EvalOutcome, arun_job, run_job

__all__ = ["guarded", "in_new_loop", "in_process", "on_executor"]


def guarded(finished: threading.Event, work: Callable[..., None], *args: object) -> None:
    try:
        work(*args)
    finally:
        finished.set()


def in_new_loop(
    jobs: list[EvalJob],
    concurrency: int,
    stop: threading.Event,
    record: Callable[[EvalOutcome], None],
    after: Callable[[EvalOutcome], Awaitable[None]] | None = None,
    budget: Budget | None = None,
) -> None:
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(in_process(jobs, concurrency, stop, record, after, budget))
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def in_process(
    jobs: list[EvalJob],
    concurrency: int,
    stop: threading.Event,
    record: Callable[[EvalOutcome], None],
    after: Callable[[EvalOutcome], Awaitable[None]] | None = None,
    budget: Budget | None = None,
) -> None:
    """Every job on this event loop, at most ``concurrency`` at once; none starts once
    ``stop`` is set or ``budget`` is spent. ``after`` (a run's grading) is awaited with each
    run's outcome in the run's own slot, unless ``stop`` was set by then."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(job: EvalJob) -> None:
        async with semaphore:
            refused = budget.refusal() if budget is not None else None
            if stop.is_set() or refused is not None:
                record(EvalOutcome(job.index, skipped=True, error=refused))
                return
            outcome = await arun_job(job, stop)
            record(outcome)
            if after is not None and not stop.is_set():
                await after(outcome)

    await asyncio.gather(*(one(job) for job in jobs))


def on_executor(
    executor: concurrent.futures.Executor,
    jobs: list[EvalJob],
    concurrency: int,
    stop: threading.Event,
    record: Callable[[EvalOutcome], None],
    budget: Budget | None = None,
) -> None:
    """Every job on ``executor``, at most ``concurrency`` submitted and not yet done.

    Stopping cancels what has not started; a run already going on elsewhere cannot be
    reached from here, so it is left to finish and its row says stopped.
    """
    waiting = list(jobs)
    running: dict[concurrent.futures.Future[EvalOutcome], EvalJob] = {}
    while waiting or running:
        while waiting and len(running) < concurrency and not stop.is_set():
            job = waiting.pop(0)
            refused = budget.refusal() if budget is not None else None
            if refused is not None:
                record(EvalOutcome(job.index, skipped=True, error=refused))
                continue
            try:
                running[executor.submit(run_job, job)] = job
            except Exception as error:  # e.g. a tool that cannot be pickled for another process
                record(
                    EvalOutcome(
                        job.index, error=f"the executor could not run it: {type(error).__name__}: {_first_line(error)}"
                    )
                )
        if stop.is_set():
            for future, job in running.items():
                future.cancel()
                record(EvalOutcome(job.index, skipped=True))
            for job in waiting:
                record(EvalOutcome(job.index, skipped=True))
            return
        done, _ = concurrent.futures.wait(running, timeout=0.1, return_when=concurrent.futures.FIRST_COMPLETED)
        for future in done:
            job = running.pop(future)
            try:
                record(future.result())
            except Exception as error:  # the executor lost the job (a worker died, pickling failed)
                record(
                    EvalOutcome(
                        job.index, error=f"the executor could not run it: {type(error).__name__}: {_first_line(error)}"
                    )
                )


def _first_line(error: BaseException) -> str:
    cause = error.__cause__ or error.__context__
    text = str(error).split("\n", 1)[0]
    return f"{text} ({type(cause).__name__}: {cause})" if cause is not None else text
