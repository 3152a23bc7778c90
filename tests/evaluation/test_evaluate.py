"""op.evaluate in this process: the table, bounded concurrency, timeouts, Stop, and errors as rows."""

from __future__ import annotations

import concurrent.futures
import sys
import threading
import time
import types

import pytest

import openprogram_jupyter as op

from . import scenario
from .scenario import add, careful, prompts, right_sum, sloppy


def by_model(evaluation, model):
    return [row for row in evaluation.rows if row.model == model]


def test_forty_prompts_on_two_models_at_concurrency_eight_give_the_right_table():
    scenario.reset()
    evaluation = op.evaluate(
        prompts(40), models=[careful(), sloppy()], tools=[add], expect=right_sum, concurrency=8, progress=False
    )
    assert len(evaluation.rows) == 80
    assert [(row.prompt, row.model) for row in evaluation.rows[:3]] == [
        ("Add 0 and 1.", "careful"),
        ("Add 0 and 1.", "sloppy"),
        ("Add 1 and 2.", "careful"),
    ]
    assert all(row.passed and row.picks == ["add"] for row in by_model(evaluation, "careful"))
    sloppy_rows = by_model(evaluation, "sloppy")
    assert [row.passed for row in sloppy_rows] == [i % 2 == 0 for i in range(40)]
    assert all(row.picks == [] for row in sloppy_rows)
    summary = {line.model: line for line in evaluation.summary()}
    assert (summary["careful"].passed, summary["sloppy"].passed) == (40, 20)
    assert summary["sloppy"].pass_rate == 0.5
    assert 2 <= scenario.ACTIVE["most"] <= 8  # runs overlapped, never more than eight at once


def test_a_run_that_fails_is_a_row_saying_why_and_the_others_go_on():
    broken = op.ScriptedModel([], name="broken")  # every round is past the end of its script
    evaluation = op.evaluate(prompts(3), models=[careful(), broken], tools=[add], progress=False)
    assert [row.verdict for row in by_model(evaluation, "careful")] == ["pass"] * 3
    for row in by_model(evaluation, "broken"):
        assert row.verdict == "error" and "script has 0 round" in row.why


def test_expect_failures_carry_the_assertion_message():
    def expect(run):
        assert "add" in [c.name for m in run.messages for c in getattr(m, "tool_calls", [])], "add was not called"

    evaluation = op.evaluate(prompts(2), models=[careful(), sloppy()], tools=[add], expect=expect, progress=False)
    assert [row.verdict for row in by_model(evaluation, "sloppy")] == ["fail", "fail"]
    assert by_model(evaluation, "sloppy")[0].why.startswith("add was not called")
    assert all(row.passed for row in by_model(evaluation, "careful"))


def test_expect_returning_false_fails_and_raising_something_else_fails_naming_it():
    evaluation = op.evaluate(
        ["Add 1 and 2."], models={"a": careful(), "b": careful()}, tools=[add], progress=False, expect=lambda run: False
    )
    assert [row.why for row in evaluation.rows] == ["expect returned False"] * 2
    evaluation = op.evaluate(
        ["Add 1 and 2."], models=[careful()], tools=[add], progress=False, expect=lambda run: 1 / 0
    )
    assert evaluation.rows[0].verdict == "fail" and "ZeroDivisionError" in evaluation.rows[0].why


def test_the_per_run_timeout_stops_a_slow_run_and_says_so():
    slow = op.ScriptedModel(["word " * 2000], name="slow", delay=0.01)  # about 20 s unstopped
    started = time.monotonic()
    evaluation = op.evaluate(["Add 1 and 2."], models=[slow, careful()], tools=[add], timeout=0.5, progress=False)
    assert time.monotonic() - started < 10
    slow_row, careful_row = evaluation.rows
    assert slow_row.verdict == "timeout" and careful_row.verdict == "pass"


def test_abort_stops_the_evaluation_and_keeps_the_rows_so_far():
    abort = threading.Event()
    done = []

    def progress(finished, total):
        done.append(finished)
        if finished >= 4:
            abort.set()

    evaluation = op.evaluate(
        prompts(40), models=[careful()], tools=[add], concurrency=2, abort=abort, progress=progress
    )
    assert evaluation.stopped and done[-1] == 40 and done[:4] == [1, 2, 3, 4]
    verdicts = [row.verdict for row in evaluation.rows]
    assert verdicts.count("pass") >= 4 and verdicts.count("stopped") >= 30
    never_started = [row for row in evaluation.rows if row.verdict == "stopped" and row.run is None]
    assert never_started and all(r.why == "the evaluation was stopped before this run started" for r in never_started)
    assert (
        len(never_started)
        + verdicts.count("pass")
        + sum(
            row.verdict == "stopped" and row.run is not None and row.run.stop_reason == "aborted"
            for row in evaluation.rows
        )
        == 40
    )  # every row is one of the three, nothing else


def test_a_thread_pool_executor_runs_the_same_table():
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        evaluation = op.evaluate(
            prompts(10),
            models=[careful(), sloppy()],
            tools=[add],
            expect=right_sum,
            executor=pool,
            concurrency=3,
            progress=False,
        )
    assert [s.passed for s in evaluation.summary()] == [10, 5]


def test_the_html_table_has_a_row_per_run_and_escapes_outside_text():
    evaluation = op.evaluate(
        ["Add 1 and 2. <script>x</script>"], models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False
    )
    html = evaluation._repr_html_()
    assert html.count("<tr>") == 2 + 1  # summary rows + header
    assert html.count('<details class="openprogram-evaluation-row"') == 2  # a row per run, each opens on it
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<img alt="pass rate and cost per model"' in html  # matplotlib is a test dependency
    assert "1/1 (100%)" in html and "✓ pass" in html


def test_the_plot_is_inline_svg_without_matplotlib(monkeypatch):
    from openprogram_jupyter.lab.evaluation._plot import summary_plot

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    evaluation = op.evaluate(["Add 1 and 2."], models=[careful()], tools=[add], progress=False)
    plot = summary_plot(evaluation.summary())
    assert plot.startswith("<svg") and "careful" in plot and "100%" in plot


def test_to_pandas_says_how_to_install_pandas_when_it_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    evaluation = op.evaluate(["Add 1 and 2."], models=[careful()], tools=[add], progress=False)
    with pytest.raises(ImportError, match="pip install pandas"):
        evaluation.to_pandas()


def test_to_pandas_gives_one_record_per_run(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=lambda records: records))
    evaluation = op.evaluate(
        ["Add 1 and 2."], models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False
    )
    records = evaluation.to_pandas()
    assert [(r["model"], r["passed"], r["picks"]) for r in records] == [
        ("careful", True, ["add"]),
        ("sloppy", False, []),
    ]


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({"prompts": "Add 1 and 2."}, TypeError, "list of prompt strings"),
        ({"prompts": []}, ValueError, "prompts is empty"),
        ({"prompts": ["ok", ""]}, op.SetupError, r"prompts\[1\]"),
        ({"models": []}, ValueError, "models is empty"),
        ({"models": [careful(), careful()]}, ValueError, "two models are called 'careful'"),
        ({"concurrency": 0}, ValueError, "concurrency"),
        ({"timeout": -1}, ValueError, "timeout"),
        ({"expect": "yes"}, TypeError, "expect"),
        ({"executor": object()}, TypeError, "executor"),
        ({"tool_choice": "nope"}, op.SetupError, "nope"),
    ],
)
def test_bad_arguments_are_refused_before_any_run(arguments, error, match):
    given = {"prompts": ["Add 1 and 2."], "models": [careful()], "tools": [add], "progress": False, **arguments}
    with pytest.raises(error, match=match):
        op.evaluate(given.pop("prompts"), **given)


async def test_aevaluate_awaits_the_same_table_on_the_current_loop():
    evaluation = await op.aevaluate(
        prompts(6), models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False
    )
    assert [s.passed for s in evaluation.summary()] == [6, 3]


class Failed(BaseException):
    """What pytest's fail() raises: a BaseException, not an Exception."""


@pytest.mark.parametrize("raised", [SystemExit(2), Failed("not like this"), GeneratorExit()])
def test_an_expect_raising_a_base_exception_fails_its_row_and_keeps_every_other(raised):
    def expect(run):
        if "Add 1 and 2." in run.messages[0].text:
            raise raised
        return True

    evaluation = op.evaluate(prompts(4), models=[careful()], tools=[add], expect=expect, progress=False)
    assert [row.verdict for row in evaluation.rows] == ["pass", "fail", "pass", "pass"]
    assert evaluation.rows[1].why.startswith(f"expect raised {type(raised).__name__}")
    assert all(row.run is not None for row in evaluation.rows)


def test_an_interrupt_while_expect_judges_keeps_every_finished_run():
    judged = []

    def expect(run):
        if len(judged) == 2:
            raise KeyboardInterrupt
        judged.append(run)
        return True

    with pytest.raises(op.EvaluationInterrupted) as interrupted:
        op.evaluate(prompts(5), models=[careful()], tools=[add], expect=expect, progress=False)
    rows = interrupted.value.evaluation.rows
    assert [row.verdict for row in rows] == ["pass", "pass", "stopped", "stopped", "stopped"]
    assert all(row.run is not None and row.run.stop_reason == "stop" for row in rows)  # every paid run kept
    assert rows[2].why == "not judged: the evaluation was interrupted while judging"
    assert interrupted.value.evaluation.stopped


def test_without_models_the_runtime_in_use_runs_every_prompt(monkeypatch):
    """evaluate(prompts, tools=[...]) without models= raised a TypeError."""
    from openprogram_jupyter.engine.runtime import default_runtime

    runtime = default_runtime()
    monkeypatch.setattr(runtime, "_config", runtime._config.with_changes({"model": "offline"}))
    monkeypatch.setattr(runtime, "_model", None)
    evaluation = op.evaluate(prompts(2), tools=[add], progress=False)
    assert [row.model for row in evaluation.rows] == ["offline", "offline"]
    assert all(row.verdict == "pass" for row in evaluation.rows)


def test_a_lambda_model_is_named_after_the_model_it_makes():
    evaluation = op.evaluate(prompts(1), models=[lambda: op.ScriptedModel(["hi"], name="greeter")], progress=False)
    assert evaluation.rows[0].model == "greeter"


def test_the_cost_plot_says_when_no_price_is_known():
    from openprogram_jupyter.lab.evaluation._plot import summary_figure

    evaluation = op.evaluate(prompts(1), models=[careful()], tools=[add], progress=False)
    unpriced = [line.__class__(**{**vars(line), "cost": None}) for line in evaluation.summary()]
    texts = [text.get_text() for axes in summary_figure(unpriced).axes for text in axes.texts]
    assert texts == ["cost: no prices known for these models"]
    priced = [line.__class__(**{**vars(line), "cost": 0.25}) for line in evaluation.summary()]
    assert [text.get_text() for axes in summary_figure(priced).axes for text in axes.texts] == []


def test_an_expect_that_only_asserts_passes_when_its_asserts_hold():
    def expect(run):  # returns None
        assert run.stop_reason == "stop"

    evaluation = op.evaluate(prompts(2), models=[careful()], tools=[add], expect=expect, progress=False)
    assert [row.verdict for row in evaluation.rows] == ["pass", "pass"]
