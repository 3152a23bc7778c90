"""Grading an evaluation's finished runs by ``expect``: checks and judges, rows side by side.

Each row's expectations are asked in order until one fails (a judge after a failed check
is not asked, so it costs nothing). Rows are graded concurrently on one event loop, at
most ``concurrency`` at a time: a check runs as it is called, a judge's model call is
awaited (:meth:`Judge.agrade`), keyed by its row so a recording replays whatever order the
judges finish in. A judge that must grade in order (:attr:`Judge.in_order`) makes the rows
go one at a time, in table order.

Where every judge grades side by side, an evaluation on this process's event loop grades
each run in the slot it ran in, the moment it ends (:class:`GradesAsRunsEnd`), so the
judges' requests fill the slots the runs free instead of waiting for the slowest run.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ...core.errors import DecisionError, RunError, SetupError
from ...engine.run import Run
from ..check import RunCheck
from ._judge import Judge, Judgement

if TYPE_CHECKING:
    from ._report import EvalRow

__all__ = ["Expect", "Grade", "GradesAsRunsEnd", "agrade", "apply_grade", "expectations", "grade_rows"]

Expect = Callable[[Run], Any]
Verdict = Literal["pass", "fail", "error", "timeout", "stopped"]


@dataclass
class Grade:
    """What ``expect`` said of one run: the verdict, why, and the judges' verdicts and runs."""

    verdict: Verdict = "pass"
    why: str = ""
    judgements: list[Judgement] = field(default_factory=list)
    judge_runs: list[Run] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)


def expectations(expect: Expect | Sequence[Expect] | None) -> tuple[Expect, ...]:
    """``expect`` as a tuple of callables: ``None`` is none, one callable (a judge too) is
    one, a list or tuple is its items. Raises ``TypeError`` naming what is not callable."""
    if expect is None:
        return ()
    if callable(expect):
        return (expect,)
    if isinstance(expect, (list, tuple)):
        for index, each in enumerate(expect):
            if not callable(each):
                raise SetupError(
                    f"expect[{index}] must be a callable taking the Run (or an op.judge), got {type(each).__name__}"
                )
        return tuple(expect)
    raise SetupError(
        f"expect must be a callable taking the Run, an op.judge, or a list of them, got {type(expect).__name__}"
    )


async def agrade(expect: Sequence[Expect], run: Run, key: list[Any]) -> Grade:
    """Ask each expectation in order until one fails. A :class:`Judge` fails the run with
    its reason, and a judge that gives no verdict makes it an ``"error"``; its run is kept
    in ``judge_runs`` either way. Anything else passes unless it returns ``False`` (or
    another falsy value other than ``None``) or raises — an ``AssertionError``'s message
    (or any other exception's) becomes ``why``; ``KeyboardInterrupt`` propagates. What an
    ``op.check`` returned by an expectation checked is kept in ``checked``."""
    graded = Grade()
    for each in expect:
        if isinstance(each, Judge):
            try:
                verdict = await each.agrade(run, key)
            except (RunError, DecisionError) as error:
                if isinstance(error.run, Run):
                    graded.judge_runs.append(error.run)
                graded.verdict, graded.why = "error", f"the judge gave no verdict: {error}"
                return graded
            assert verdict.run is not None
            graded.judge_runs.append(verdict.run)
            graded.judgements.append(verdict)
            if not verdict.passed:
                graded.verdict, graded.why = "fail", f"judge: {verdict.reason}"
                return graded
        else:
            graded.verdict, graded.why = _expectation(each, run, graded.checked)
            if graded.verdict != "pass":
                return graded
    return graded


class GradesAsRunsEnd:
    """Grades each row as its run ends, on the evaluation's own event loop, keeping the
    :class:`Grade` of each row by its number in ``grades``.

    :meth:`suits` says when: a judge among the expectations (checks alone cost nothing to
    run afterwards) and none grading in order. A row that did not end normally is not
    graded. An expectation that raises ``KeyboardInterrupt`` sets ``interrupted`` (the
    caller stops the evaluation and keeps the rows graded so far); a grading that failed
    otherwise leaves its row out of ``grades``, for the final pass (:func:`grade_rows`).
    """

    def __init__(self, expect: Sequence[Expect]) -> None:
        self.expect = expect
        self.grades: dict[int, Grade] = {}
        self.interrupted = False

    @staticmethod
    def suits(expect: Sequence[Expect]) -> bool:
        judges = [each for each in expect if isinstance(each, Judge)]
        return bool(judges) and not any(judge.in_order for judge in judges)

    async def grade(self, row: EvalRow, key: list[Any]) -> None:
        if not row.passed:
            return
        assert row.run is not None
        try:
            self.grades[row.number] = await agrade(self.expect, row.run, key)
        except KeyboardInterrupt:
            self.interrupted = True
        except Exception:  # asked again by the final pass
            return


def grade_rows(
    rows: Sequence[tuple[EvalRow, list[Any]]], expect: Sequence[Expect], concurrency: int, done: list[int]
) -> None:
    """Grade each ``(row, key)`` — a row whose run ended normally — setting its verdict,
    why, judgements and judge runs, and appending its number to ``done``. A
    ``KeyboardInterrupt`` (from Ctrl-C or from an expectation) propagates at once, the
    rows graded so far keeping their verdict (and listed in ``done``); the caller marks the rest."""
    judges = [each for each in expect if isinstance(each, Judge)]
    if not rows or not expect:
        done.extend(row.number for row, _ in rows)
        for judge in judges:  # rows graded as their runs ended are recorded too
            judge.flush()
        return
    if not judges:  # checks alone: called here, in table order, outside any event loop
        for row, _ in rows:
            assert row.run is not None
            apply_grade(row, _checked(expect, row.run))
            done.append(row.number)
        return
    width = 1 if any(judge.in_order for judge in judges) else concurrency

    async def all_rows() -> None:
        slots = asyncio.Semaphore(width)

        async def one(row: EvalRow, key: list[Any]) -> None:
            async with slots:
                assert row.run is not None
                graded = await agrade(expect, row.run, key)
            apply_grade(row, graded)
            done.append(row.number)

        await asyncio.gather(*(one(row, key) for row, key in rows))

    try:
        _run_to_the_end(all_rows)
    finally:
        for judge in judges:
            judge.flush()


def _run_to_the_end(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """``asyncio.run(main())``, on a worker thread of its own when this thread already runs
    an event loop (a notebook cell does: ``asyncio.run`` refuses to start inside one). The
    caller waits in 0.1 s slices, so Ctrl-C still lands, and what ``main`` raised —
    an expectation's ``KeyboardInterrupt`` too — is raised here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return
    raised: list[BaseException] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            context.run(asyncio.run, main())
        except BaseException as error:  # handed to the caller below
            raised.append(error)

    worker = threading.Thread(target=target, name="openprogram-grade", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)
    if raised:
        raise raised[0]


def _checked(expect: Sequence[Expect], run: Run) -> Grade:
    """:func:`agrade` for a list without judges, called outside an event loop."""
    graded = Grade()
    for each in expect:
        graded.verdict, graded.why = _expectation(each, run, graded.checked)
        if graded.verdict != "pass":
            return graded
    return graded


def apply_grade(row: EvalRow, graded: Grade) -> None:
    """Set ``row``'s verdict, why, judgements, judge runs and checks from ``graded``."""
    row.verdict, row.why = graded.verdict, graded.why
    row.judgements, row.judge_runs = graded.judgements, graded.judge_runs
    row.checked = graded.checked


def _expectation(expect: Expect, run: Run, checked: list[str]) -> tuple[Verdict, str]:
    """One expectation's verdict; what an ``op.check`` it returned checked is added to
    ``checked`` (so a list of checks reads as one rubric in the table)."""
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
    if isinstance(answer, RunCheck):
        checked.extend(answer.passed)
    return "pass", ""


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return "(its message cannot be shown)"
