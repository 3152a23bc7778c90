"""How each run of an evaluation is made and ended: a fresh model per run (a scripted one
keeps its name, a factory is called), the notebook's Runtime its settings come from but
not its cassette, Stop reaching the runs in flight, a timeout and a failure on an
executor, the seconds a row took, and two models of one name."""

from __future__ import annotations

import concurrent.futures
import threading
import time

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.engine.runtime import default_runtime

from .scenario import add, careful, prompts


def no_key_here():
    raise RuntimeError("no key here")


def test_each_run_of_a_scripted_model_carries_its_name_and_takes_well_under_a_minute():
    evaluation = op.evaluate(prompts(2), models=[careful()], tools=[add], progress=False)
    assert [row.run.model for row in evaluation.rows] == ["careful", "careful"]
    assert all(0 < row.seconds < 60 for row in evaluation.rows)


def test_a_model_given_as_a_function_is_called_for_a_fresh_model_each_run():
    made = []

    def factory() -> op.ScriptedModel:
        made.append(1)
        return op.ScriptedModel(["hi"], name="made")

    evaluation = op.evaluate(prompts(3), models={"made": factory}, progress=False)
    assert [(row.verdict, row.answer) for row in evaluation.rows] == [("pass", "hi")] * 3
    assert len(made) >= 3


def test_the_runs_take_the_notebooks_settings_but_not_its_cassette(tmp_path, monkeypatch):
    runtime = default_runtime()
    cassette = tmp_path / "notebook.json"
    monkeypatch.setattr(runtime, "_config", runtime._config.with_changes({"system": "Be terse.", "record": cassette}))

    def says(request) -> str:
        return f"system: {request.system}"

    evaluation = op.evaluate(prompts(2), models=[op.ScriptedModel([says], name="echo")], progress=False)
    assert [row.answer for row in evaluation.rows] == ["system: Be terse."] * 2
    assert not cassette.exists()  # every run's replies at once would make it useless


def test_stop_ends_the_runs_in_flight_as_aborted():
    slow = op.ScriptedModel(["word " * 2000], name="slow", delay=0.01)  # about 20 s unstopped
    abort = threading.Event()
    timer = threading.Timer(0.3, abort.set)
    timer.start()
    started = time.monotonic()
    evaluation = op.evaluate(prompts(3), models=[slow], abort=abort, concurrency=2, progress=False)
    assert time.monotonic() - started < 10
    assert [(row.verdict, row.why, row.run and row.run.stop_reason) for row in evaluation.rows] == [
        ("stopped", "the evaluation was stopped before this run ended", "aborted"),
        ("stopped", "the evaluation was stopped before this run ended", "aborted"),
        ("stopped", "the evaluation was stopped before this run started", None),
    ]


def test_a_model_that_cannot_be_made_is_its_rows_error_in_process_and_on_an_executor():
    evaluation = op.evaluate(["Hi."], models={"broken": no_key_here}, progress=False)
    assert [(row.verdict, row.why) for row in evaluation.rows] == [("error", "RuntimeError: no key here")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        evaluation = op.evaluate(["Hi."], models={"broken": no_key_here}, executor=pool, progress=False)
    assert [(row.verdict, row.why) for row in evaluation.rows] == [("error", "RuntimeError: no key here")]
    assert 0 <= evaluation.rows[0].seconds < 60


def test_on_an_executor_a_run_past_its_timeout_is_stopped_kept_and_says_so():
    slow = op.ScriptedModel(["word " * 2000], name="slow", delay=0.01)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        evaluation = op.evaluate(
            ["Add 1 and 2."], models=[slow, careful()], tools=[add], executor=pool, timeout=0.3, progress=False
        )
    assert time.monotonic() - started < 10
    slow_row, careful_row = evaluation.rows
    assert (slow_row.verdict, slow_row.why) == ("timeout", "the run was stopped at its time limit")
    assert slow_row.run is not None and slow_row.run.stop_reason == "aborted"  # the paid run is kept
    assert careful_row.verdict == "pass" and 0.3 <= slow_row.seconds < 10


def test_two_models_of_one_name_are_refused_saying_how_to_name_them():
    with pytest.raises(ValueError) as refused:
        op.evaluate(["Hi."], models=[careful(), careful()], progress=False)
    assert str(refused.value) == (
        "two models are called 'careful'; give them different names "
        "(ScriptedModel(name=...), or pass models as a dict {name: model})"
    )
