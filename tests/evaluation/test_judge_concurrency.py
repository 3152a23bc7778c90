"""Judges grade side by side, and a judge's recording replays by row, whatever the order."""

from __future__ import annotations

import json
import re

import openprogram_jupyter as op

from .scenario import add, careful, prompts, sloppy

RUBRIC = "The answer is the right sum of the two numbers."


def slow_verdict(request) -> op.AssistantMessage:
    """Passes a run whose answer is the right sum. Its reason is longer the smaller the
    first number, so (streamed a word at a time) the first rows' verdicts take longest."""
    text = request.messages[-1].text
    a, b = (int(n) for n in re.search(r"User: Add (\d+) and (\d+)\.", text).groups())
    right = f"Final answer: The sum is {a + b}." in text
    reason = f"{a}+{b}: {'right' if right else 'wrong'}" + " indeed" * (16 - a)
    return op.AssistantMessage(
        content=[op.TextContent(text=json.dumps({"call": "pass" if right else "fail", "args": {"reason": reason}}))]
    )


def verdicts(evaluation):
    return {(row.prompt, row.model): (row.verdict, row.why) for row in evaluation.rows}


def peak_overlap(runs) -> int:
    edges = sorted([(run.started_at, 1) for run in runs] + [(run.ended_at, -1) for run in runs])
    level = peak = 0
    for _, step in edges:
        level += step
        peak = max(peak, level)
    return peak


def test_a_judged_evaluation_at_concurrency_eight_replays_the_same_verdicts_in_any_order(tmp_path):
    cassette = tmp_path / "judge.json"
    grader = op.ScriptedModel([slow_verdict], name="grader", delay=0.002)
    recorded = op.evaluate(
        prompts(16),
        models=[careful(), sloppy()],
        tools=[add],
        expect=op.judge(RUBRIC, model=grader, record=cassette),
        concurrency=8,
        progress=False,
    )
    judge_runs = [run for row in recorded.rows for run in row.judge_runs]
    assert len(judge_runs) == 32
    assert peak_overlap(judge_runs) >= 4  # graded side by side, not one at a time
    finished = [row.number for row in sorted(recorded.rows, key=lambda row: row.judge_runs[0].ended_at)]
    assert finished != sorted(finished)  # and not in table order
    assert {verdict for verdict, _ in verdicts(recorded).values()} == {"pass", "fail"}

    replayed = op.judge(RUBRIC, model=f"replay:{cassette}")
    again = op.evaluate(
        prompts(16), models=[careful(), sloppy()], tools=[add], expect=replayed, concurrency=8, progress=False
    )
    assert verdicts(again) == verdicts(recorded)
    backwards = op.evaluate(  # the rows in the other order: each still gets its own verdict
        list(reversed(prompts(16))),
        models=[sloppy(), careful()],
        tools=[add],
        expect=replayed,
        concurrency=3,
        progress=False,
    )
    assert verdicts(backwards) == verdicts(recorded)


def test_the_recording_is_the_same_file_whatever_order_the_judges_finished_in(tmp_path):
    files = []
    for name, delay in (("first.json", 0.002), ("second.json", 0.0)):
        grader = op.ScriptedModel([slow_verdict], name="grader", delay=delay)
        op.evaluate(
            prompts(6),
            models=[careful(), sloppy()],
            tools=[add],
            expect=op.judge(RUBRIC, model=grader, record=tmp_path / name),
            concurrency=8,
            progress=False,
        )
        rounds = json.loads((tmp_path / name).read_text())["rounds"]
        files.append([(entry["round"], entry["request"], entry["reply"]["content"]) for entry in rounds])
    assert files[0] == files[1]  # the same rounds in the same places (only their timestamps differ)
    keys = [request["key"] for _, request, _ in files[0]]
    assert keys == sorted(keys, key=lambda key: json.dumps(key)) and len(keys) == 12
    assert ["Add 0 and 1.", "careful", None, 0] in keys
