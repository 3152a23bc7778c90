"""Grading after the runs have ended: a judge that grades one run at a time (a model of
your own), judges on an executor's evaluation side by side, grading from a notebook cell's
running event loop, checks alone, an interrupt while grading, and the words a failed
expectation leaves in the row."""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import threading
from collections.abc import AsyncIterator

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.events import AssistantUpdate
from openprogram_jupyter.models.base import MessageBuilder, ModelRequest

from .scenario import add, careful, prompts, right_sum
from .test_judge import RUBRIC, verdict_for


class OneAtATime(op.Model):
    """A grader of the test's own (so its judge grades in order), noting which prompt it
    graded, on which thread, and how many gradings were under way at most."""

    name = "own grader"

    def __init__(self) -> None:
        self.graded: list[str] = []
        self.threads: set[str] = set()
        self.active = self.most = 0

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        self.active += 1
        self.most = max(self.most, self.active)
        self.threads.add(threading.current_thread().name)
        self.graded.append(request.messages[-1].text.split("User: ", 1)[1].split("\n", 1)[0])
        await asyncio.sleep(0.01)
        async for update in op.ScriptedModel([verdict_for]).stream(request, out):
            yield update
        self.active -= 1


def reasons(evaluation: op.Evaluation) -> list[tuple[str, list[str]]]:
    return [(row.verdict, [j.reason for j in row.judgements]) for row in evaluation.rows]


def test_a_judge_of_your_own_model_grades_every_row_one_at_a_time_in_table_order(tmp_path):
    grader = OneAtATime()
    judge = op.judge(RUBRIC, model=grader, record=tmp_path / "judge.json")
    assert judge.in_order
    evaluation = op.evaluate(
        prompts(5), models=[careful()], tools=[add], expect=[right_sum, judge], concurrency=4, progress=False
    )
    assert reasons(evaluation) == [("pass", [f"{i}+{i + 1}: right"]) for i in range(5)]
    assert grader.graded == prompts(5) and grader.most == 1
    rounds = json.loads((tmp_path / "judge.json").read_text())["rounds"]
    assert [entry["request"]["key"] for entry in rounds] == [[prompt, "careful", None, 0] for prompt in prompts(5)]


def test_judges_of_an_evaluation_on_an_executor_grade_side_by_side_after_the_runs():
    judge = op.judge(RUBRIC, model=op.ScriptedModel([verdict_for], name="grader", delay=0.01))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        evaluation = op.evaluate(
            prompts(6), models=[careful()], tools=[add], expect=judge, executor=pool, concurrency=3, progress=False
        )
    assert reasons(evaluation) == [("pass", [f"{i}+{i + 1}: right"]) for i in range(6)]
    judged = sorted((row.judge_runs[0].started_at, row.judge_runs[0].ended_at) for row in evaluation.rows)
    assert any(later_start < end for (_, end), (later_start, _) in itertools.pairwise(judged))


def test_from_a_cells_running_event_loop_the_rows_are_graded_on_a_grading_thread():
    grader = OneAtATime()

    async def cell() -> op.Evaluation:
        judge = op.judge(RUBRIC, model=grader)
        return op.evaluate(prompts(3), models=[careful()], tools=[add], expect=judge, progress=False)

    evaluation = asyncio.run(cell())
    assert reasons(evaluation) == [("pass", [f"{i}+{i + 1}: right"]) for i in range(3)]
    assert grader.threads == {"openprogram-grade"}


@pytest.mark.parametrize("in_a_cell", [False, True], ids=["script", "cell"])
def test_an_interrupt_while_an_in_order_judge_grades_keeps_the_rows_graded_before_it(in_a_cell):
    def expect(run):
        if "Add 2 and 3." in run.messages[0].text:
            raise KeyboardInterrupt
        return True

    def evaluate() -> op.Evaluation:
        judge = op.judge(RUBRIC, model=OneAtATime())
        return op.evaluate(prompts(4), models=[careful()], tools=[add], expect=[expect, judge], progress=False)

    async def cell() -> op.Evaluation:
        return evaluate()

    with pytest.raises(op.EvaluationInterrupted) as interrupted:
        asyncio.run(cell()) if in_a_cell else evaluate()
    rows = interrupted.value.evaluation.rows
    assert reasons(interrupted.value.evaluation) == [
        ("pass", ["0+1: right"]),
        ("pass", ["1+2: right"]),
        ("stopped", []),
        ("stopped", []),
    ]
    assert rows[2].why == "not judged: the evaluation was interrupted while judging"


def test_checks_alone_are_called_outside_any_event_loop_so_a_check_may_run_its_own():
    def checked_by_a_loop_of_its_own(run) -> bool:
        async def answer() -> str:
            return run.text

        return asyncio.run(answer()) == run.text

    evaluation = op.evaluate(
        prompts(3), models=[careful()], tools=[add], expect=[right_sum, checked_by_a_loop_of_its_own], progress=False
    )
    assert [(row.verdict, row.why) for row in evaluation.rows] == [("pass", "")] * 3


def test_what_a_failed_expectation_leaves_in_the_row_and_a_passed_one_leaves_nothing():
    def bare_assert(run):
        if "Add 0" in run.messages[0].text:
            raise AssertionError
        if "Add 1" in run.messages[0].text:
            raise ValueError("no sum in the answer")
        return True

    evaluation = op.evaluate(prompts(3), models=[careful()], tools=[add], expect=bare_assert, progress=False)
    assert [(row.verdict, row.why) for row in evaluation.rows] == [
        ("fail", "AssertionError"),
        ("fail", "expect raised ValueError: no sum in the answer"),
        ("pass", ""),
    ]


def test_an_expectation_that_is_not_callable_is_named_by_its_type():
    with pytest.raises(TypeError) as in_list:
        op.evaluate(prompts(1), models=[careful()], expect=[right_sum, "the right sum"], progress=False)
    assert str(in_list.value) == "expect[1] must be a callable taking the Run (or an op.judge), got str"
    with pytest.raises(TypeError) as alone:
        op.evaluate(prompts(1), models=[careful()], expect=3, progress=False)
    assert str(alone.value) == "expect must be a callable taking the Run, an op.judge, or a list of them, got int"
