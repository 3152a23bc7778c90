"""An evaluation on an executor: how many runs are in flight, Stop, max_cost, and an
executor that cannot take a job or loses it — each row says what happened."""

from __future__ import annotations

import concurrent.futures
import threading
import time

import openprogram_jupyter as op

from . import scenario
from .scenario import add, careful, prompts, right_sum


def test_at_most_concurrency_runs_are_in_flight_on_a_larger_executor():
    scenario.reset()
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        evaluation = op.evaluate(
            prompts(8), models=[careful()], tools=[add], expect=right_sum, executor=pool, concurrency=2, progress=False
        )
    assert [row.verdict for row in evaluation.rows] == ["pass"] * 8
    assert scenario.ACTIVE["most"] == 2  # two at a time, and two did run at once


def test_stop_on_an_executor_starts_nothing_more_and_every_row_not_ended_says_stopped():
    abort = threading.Event()
    counted: list[int] = []

    def progress(finished: int, total: int) -> None:
        counted.append(finished)
        if finished >= 2:
            abort.set()

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        evaluation = op.evaluate(
            prompts(12), models=[careful()], tools=[add], executor=pool, concurrency=2, abort=abort, progress=progress
        )
    verdicts = [row.verdict for row in evaluation.rows]
    passed = verdicts.count("pass")  # the two that ended first, and any that ended with them
    assert evaluation.stopped and 2 <= passed <= 4 and verdicts.count("stopped") == 12 - passed
    assert counted[-1] == 12  # the progress bar counts every row, the stopped ones too


def test_max_cost_on_an_executor_leaves_the_rows_not_started_saying_so():
    reply = op.AssistantMessage(content=[op.TextContent(text="ok")], usage=op.Usage(total_tokens=5, cost=0.5))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        evaluation = op.evaluate(
            prompts(4),
            models=[op.ScriptedModel([reply], name="priced")],
            executor=pool,
            concurrency=1,
            max_cost=1.0,
            progress=False,
        )
    assert [row.verdict for row in evaluation.rows] == ["pass", "pass", "stopped", "stopped"]
    assert evaluation.rows[3].why == (
        "not started: the evaluation's runs had cost $1.0000, reaching its max_cost of $1.0000"
    )


def test_an_executor_that_takes_no_more_jobs_makes_each_row_an_error_saying_why():
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    pool.shutdown()
    evaluation = op.evaluate(prompts(2), models=[careful()], tools=[add], executor=pool, progress=False)
    assert [(row.verdict, row.why) for row in evaluation.rows] == [
        ("error", "the executor could not run it: RuntimeError: cannot schedule new futures after shutdown")
    ] * 2


class LosesEveryJob(concurrent.futures.Executor):
    """An executor whose worker dies with each job: the future fails with an error of three
    lines, raised while another was handled."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        future: concurrent.futures.Future[object] = concurrent.futures.Future()
        try:
            try:
                raise OSError("pipe closed")
            except OSError:
                raise RuntimeError("worker died\nits traceback follows\nand ends here") from None
        except RuntimeError as error:
            error.__suppress_context__ = False  # raised while the OSError was handled, not from it
            future.set_exception(error)
        return future


def test_a_job_the_executor_lost_is_its_rows_error_with_the_first_line_and_the_cause():
    evaluation = op.evaluate(prompts(2), models=[careful()], tools=[add], executor=LosesEveryJob(), progress=False)
    assert [(row.verdict, row.why) for row in evaluation.rows] == [
        ("error", "the executor could not run it: RuntimeError: worker died (OSError: pipe closed)")
    ] * 2


def test_stop_returns_at_once_while_a_run_goes_on_where_it_cannot_be_reached():
    slow = op.ScriptedModel(["word " * 400], name="slow", delay=0.01)  # about 4 s
    abort = threading.Event()
    threading.Timer(0.2, abort.set).start()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        started = time.monotonic()
        evaluation = op.evaluate(["Hi."], models=[slow], executor=pool, abort=abort, progress=False)
        took = time.monotonic() - started
    finally:
        pool.shutdown(wait=True)
    assert took < 2.0 and evaluation.stopped
    assert [row.verdict for row in evaluation.rows] == ["stopped"]


def test_an_evaluation_leaves_no_error_behind_in_its_worker_thread(monkeypatch):
    raised: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    evaluation = op.evaluate(prompts(2), models=[careful()], tools=[add], expect=right_sum, progress=False)
    assert [row.verdict for row in evaluation.rows] == ["pass", "pass"] and raised == []
