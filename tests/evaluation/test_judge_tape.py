"""A judge's recording as a file and as a replay: what the cassette holds, when it is
written, a cassette recorded without keys, and what a keyed replay says of a row it lacks."""

from __future__ import annotations

import asyncio
import itertools
import json
import types

import openprogram_jupyter as op
from openprogram_jupyter.lab.evaluation import _judge_tape
from openprogram_jupyter.models.replay import RecordingModel

from .scenario import add, careful, prompts
from .test_judge import RUBRIC, grader, verdict_for


def rounds_in(path) -> list[dict]:
    return json.loads(path.read_text())["rounds"]


def test_a_judges_cassette_names_the_judges_model_and_numbers_its_rounds_from_one(tmp_path):
    cassette = tmp_path / "judge.json"
    judge = op.judge(RUBRIC, model=grader(), record=cassette)
    op.evaluate(prompts(3), models=[careful()], tools=[add], expect=judge, progress=False)
    data = json.loads(cassette.read_text())
    assert data["model"] == "grader"
    assert [entry["round"] for entry in data["rounds"]] == [1, 2, 3]
    assert [entry["request"]["key"][0] for entry in data["rounds"]] == prompts(3)


def test_the_first_verdict_is_saved_at_once_and_the_next_ones_within_the_interval_on_flush(tmp_path, monkeypatch):
    monkeypatch.setattr(_judge_tape, "_SAVE_EVERY_SECONDS", 3600.0)
    # The monotonic clock of a machine booted a minute ago: less than the interval. (The
    # first verdict was once saved only if the clock read more than the interval.)
    uptime = itertools.count(60.0, 0.001)
    monkeypatch.setattr(_judge_tape, "time", types.SimpleNamespace(monotonic=lambda: next(uptime)))
    cassette = tmp_path / "judge.json"
    judge = op.judge(RUBRIC, model=grader(), record=cassette)
    first, second = (op.Runtime(model=careful()).run(prompt, tools=[add]) for prompt in prompts(2))
    asyncio.run(judge.agrade(first, ["first"]))
    assert [entry["request"]["key"] for entry in rounds_in(cassette)] == [["first"]]
    asyncio.run(judge.agrade(second, ["second"]))
    assert len(rounds_in(cassette)) == 1  # not rewritten for every verdict
    judge.flush()
    assert [entry["request"]["key"] for entry in rounds_in(cassette)] == [["first"], ["second"]]


def test_a_cassette_recorded_without_keys_replays_its_verdicts_in_order(tmp_path):
    cassette = tmp_path / "plain.json"
    runs = [op.Runtime(model=careful()).run(prompt, tools=[add]) for prompt in prompts(2)]
    two_verdicts = op.ScriptedModel([verdict_for, verdict_for], name="grader")  # played on, run after run
    recording = op.judge(RUBRIC, model=RecordingModel(two_verdicts, cassette))
    assert [recording(run).reason for run in runs] == ["0+1: right", "1+2: right"]
    assert all("key" not in entry["request"] for entry in rounds_in(cassette))
    replayed = op.judge(RUBRIC, model=f"replay:{cassette}")
    assert replayed.in_order
    assert [replayed(run).reason for run in runs] == ["0+1: right", "1+2: right"]


def test_a_keyed_replay_names_the_row_it_holds_no_verdict_for_as_written(tmp_path):
    cassette = tmp_path / "judge.json"
    op.evaluate(
        ["Add 1 and 2."],
        models=[careful()],
        tools=[add],
        progress=False,
        expect=op.judge(RUBRIC, model=grader(), record=cassette),
    )
    other = op.evaluate(
        ["Add 1 and 2, café."],
        models=[careful()],
        tools=[add],
        progress=False,
        expect=op.judge(RUBRIC, model=f"replay:{cassette}"),
    )
    (row,) = other.rows
    said = (
        f'replay {cassette}: the recording holds no verdict for ["Add 1 and 2, café.", "careful", null, 0]'
        " — it graded other runs (another prompt, model, variant or repeat)"
    )
    assert row.verdict == "error"
    assert row.why == f"the judge gave no verdict: the run failed after 1 round(s): {said}"
    (judge_run,) = row.judge_runs
    failed = judge_run.messages[-1]
    assert isinstance(failed, op.AssistantMessage) and failed.error is not None
    assert (failed.error.kind, failed.error.summary) == ("replay", said)
