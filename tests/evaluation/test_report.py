"""The evaluation's result as the user reads it: each row's verdict and words, the summary
line's totals and pass@k over a prompt given several times, the text and HTML views,
to_pandas' columns, show() in a notebook, and what sorted and filtered views keep."""

from __future__ import annotations

import sys
import types
from collections.abc import AsyncIterator

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.events import AssistantUpdate
from openprogram_jupyter.lab.evaluation import _report
from openprogram_jupyter.models.base import MessageBuilder, ModelRequest

from .scenario import add, careful, plain_add, prompts, right_sum, sloppy
from .test_judge import RUBRIC, grader


class FailsWithoutWords(op.Model):
    """A model whose every reply fails with no message."""

    name = "mute"

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        out.fail("")
        return
        yield


def priced(name: str, cost: float | None) -> op.ScriptedModel:
    reply = op.AssistantMessage(content=[op.TextContent(text="ok")], usage=op.Usage(total_tokens=3, cost=cost))
    return op.ScriptedModel([reply], name=name)


def test_a_run_that_failed_without_words_says_it_ended_with_an_error():
    (row,) = op.evaluate(["Hi."], models=[FailsWithoutWords()], progress=False).rows
    assert (row.verdict, row.why) == ("error", "the run ended with an error")


def test_a_prompt_given_three_times_with_repeats_counts_as_three_prompts():
    ev = op.evaluate(["Add 1 and 2."] * 3, models=[careful()], tools=[add], expect=right_sum, repeat=2, progress=False)
    (line,) = ev.summary()
    assert (line.prompts, line.runs, line.pass_at_k, line.pass_all_k, line.flaky) == (3, 6, 3, 3, 0)


def test_the_summary_adds_costs_to_the_millionth_and_an_unknown_cost_makes_the_total_unknown():
    ev = op.evaluate(prompts(3), models=[priced("cheap", 0.1), priced("unknown", None)], progress=False, concurrency=1)
    cheap, unknown = ev.summary()
    assert (cheap.cost, cheap.tokens, unknown.cost, unknown.tokens) == (0.3, 9, None, 9)
    assert cheap.seconds > 0 and cheap.seconds == pytest.approx(sum(row.seconds for row in ev.rows[::2]), abs=1e-3)


def test_the_text_view_gives_each_models_passes_and_says_when_it_was_stopped():
    ev = op.evaluate(prompts(2), models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False)
    assert repr(ev) == "<Evaluation 4 runs: careful: 2/2 passed; sloppy: 1/2 passed>"
    stopped = op.Evaluation(ev.rows, ev.models, stopped=True)
    assert repr(stopped) == "<Evaluation 4 runs, stopped: careful: 2/2 passed; sloppy: 1/2 passed>"
    made = op.Evaluation(ev.rows, ev.models)
    assert repr(made) == repr(ev) and made.summary()[0].repeats == 1


def test_row_finds_a_prompt_on_a_model_and_names_what_it_lacks():
    ev = op.evaluate(prompts(2), models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False)
    assert ev.row("Add 1 and 2.", "sloppy") is ev.rows[3]
    with pytest.raises(KeyError) as missing:
        ev.row("Add 1 and 2.", "gpt")
    assert missing.value.args == ("no row for prompt 'Add 1 and 2.' on model 'gpt'",)


def test_the_html_view_is_math_inert_and_says_when_the_evaluation_was_stopped():
    ev = op.evaluate(["What is $x$?"], models=[priced("m", 0.1)], progress=False)
    assert ev._repr_html_().startswith('<div class="mathjax_ignore tex2jax_ignore">')
    assert "<b>Stopped</b>" not in ev._repr_html_()
    stopped = op.Evaluation(ev.rows, ev.models, stopped=True)
    assert "<p><b>Stopped</b> before every run ended.</p>" in stopped._repr_html_()


def test_to_pandas_gives_every_column_of_a_row(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=lambda records: records))
    ev = op.evaluate(["Add 1 and 2."], models=[careful()], tools=[add], expect=right_sum, progress=False)
    (record,) = ev.to_pandas()
    row = ev.rows[0]
    assert record == {
        "number": 0,
        "prompt": "Add 1 and 2.",
        "model": "careful",
        "verdict": "pass",
        "passed": True,
        "picks": ["add"],
        "tokens": row.tokens,
        "cost": row.cost,
        "seconds": row.seconds,
        "why": "",
        "judge_tokens": 0,
        "judge_cost": 0,
    }
    assert row.seconds > 0


def test_show_in_a_notebook_displays_the_rows_transcript_as_text_and_html(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    shown = []
    monkeypatch.setattr(InteractiveShell, "initialized", classmethod(lambda cls: True))
    monkeypatch.setattr(_report, "display_bundle", shown.append)
    ev = op.evaluate(prompts(2), models=[careful()], tools=[add], progress=False)
    ev.show(1)
    transcript = ev.transcript(1)
    assert shown == [{"text/plain": repr(transcript), "text/html": transcript._repr_html_()}]
    assert "Add 1 and 2." in shown[0]["text/plain"]


def variants_evaluation() -> op.Evaluation:
    return op.evaluate(
        prompts(2),
        models=[careful()],
        variants={"short": [plain_add], "long": [plain_add]},
        expect=right_sum,
        repeat=2,
        progress=False,
    )


def test_views_keep_the_variants_they_show_the_repeats_and_the_stop():
    ev = variants_evaluation()
    long = ev.where(variant="long")
    assert long.variants == ["long"] and [line.variant for line in long.summary()] == ["long"]
    assert long.summary()[0].repeats == 2 and long.repeats == 2
    both = ev.where(variant=["short", "long"])
    assert both.variants == ["short", "long"] and len(both.rows) == 8
    stopped = op.Evaluation(ev.rows, ev.models, stopped=True, variants=ev.variants, repeats=2)
    assert stopped.sort("tokens").stopped and stopped.where(variant="long").stopped
    assert [row.number for row in ev.sort("prompt", descending=True).sort().rows] == list(range(8))


def test_an_unknown_variant_is_named_with_the_ones_there_are():
    ev = variants_evaluation()
    with pytest.raises(ValueError) as unknown:
        ev.where(variant=["both", "long", "all"])
    assert str(unknown.value) == "no variant 'all', 'both' in this evaluation: the variants are 'short', 'long'"
    plain = op.evaluate(prompts(1), models=[careful()], tools=[add], progress=False)
    with pytest.raises(ValueError) as none:
        plain.where(variant="long")
    assert str(none.value) == "no variant 'long' in this evaluation: the variants are none (it ran without variants=)"


def test_names_that_are_both_a_model_and_a_variant_are_refused():
    ev = op.evaluate(
        prompts(1),
        models={"short": careful(), "long": careful()},
        variants={"short": [plain_add], "long": [plain_add]},
        progress=False,
    )
    with pytest.raises(ValueError) as both:
        ev.compare("short", "long")
    assert str(both.value) == "'long', 'short' names both a model and a variant: rename one"


def test_the_summary_adds_the_judges_cost_apart_and_each_row_took_its_runs_time():
    judge = op.judge(RUBRIC, model=grader())
    slow = op.ScriptedModel(["The sum is 1."], name="slow", delay=0.1)
    ev = op.evaluate(prompts(2), models=[slow], expect=judge, progress=False)
    (line,) = ev.summary()
    assert (line.judge_cost, line.judge_tokens) == (0.5, 200)
    for row in ev.rows:
        took = row.run.ended_at - row.run.started_at
        assert took >= 0.1 and row.seconds == pytest.approx(took, abs=2.0)
