"""The words and cells of an evaluation's views: an opened row as text and HTML (its
judges' verdicts and cost), a comparison of two models as a table, and the errors a bad
view names."""

from __future__ import annotations

import re

import pytest

import openprogram_jupyter as op

from .scenario import add, careful, prompts, right_sum, sloppy
from .test_judge import RUBRIC, grader

NUMBER = "text-align:right;vertical-align:top;white-space:nowrap;padding:2px 8px"
TEXT = "text-align:left;vertical-align:top;padding:2px 8px"


def says(text: str) -> op.ScriptedModel:
    return op.ScriptedModel([text], name=f"says {len(text)}")


def judged() -> op.Evaluation:
    """careful (right) and sloppy (wrong on "Add 1 and 2."), each graded by the judge."""
    judge = op.judge(RUBRIC, model=grader())
    return op.evaluate(["Add 1 and 2."], models=[careful(), sloppy()], tools=[add], expect=judge, progress=False)


def test_an_opened_row_as_text_gives_its_result_its_why_only_when_there_is_one_and_each_verdict():
    ev = judged()
    passed, failed = (repr(ev.transcript(n)).split("\n") for n in (0, 1))
    assert passed[:3] == ["#0 careful: ✓ pass", "prompt: Add 1 and 2.", "judge: ✓ pass: 1+2: right"]
    assert failed[:3] == ["#1 sloppy: ✗ fail (judge: 1+2: wrong)", "prompt: Add 1 and 2.", "judge: ✗ fail: 1+2: wrong"]


def test_an_opened_row_as_html_is_math_inert_and_shows_what_judging_it_cost():
    html = judged().transcript(0)._repr_html_()
    assert html.startswith('<div class="mathjax_ignore tex2jax_ignore">')
    assert ">$0.2500</span>" in html  # the judge's cost, in the row's line
    unjudged = op.evaluate(["Add 1 and 2."], models=[careful()], tools=[add], progress=False)
    assert ">$0.2500</span>" not in unjudged.transcript(0)._repr_html_()


def test_a_comparison_table_names_both_models_and_right_aligns_their_row_numbers():
    ev = op.evaluate(prompts(2), models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False)
    html = ev.compare("careful", "sloppy", by=["verdict", "answer"])._repr_html_()
    assert html.startswith('<div class="mathjax_ignore tex2jax_ignore"><div class="openprogram-comparison">')
    assert "<p>1 prompt(s) where <code>careful</code> and <code>sloppy</code> differ (by verdict, answer).</p>" in html
    heads = re.findall(r'<th style="([^"]*)">(.*?)</th>', html)
    assert [text for _, text in heads] == [
        "prompt",
        "careful: #",
        "careful: result",
        "careful: answer",
        "sloppy: #",
        "sloppy: result",
        "sloppy: answer",
    ]
    assert [i for i, (style, _) in enumerate(heads) if style == NUMBER] == [1, 4]
    cells = [text for _, text in re.findall(r'<td style="([^"]*)">(.*?)</td>', html)]
    assert cells == [
        "Add 1 and 2.",
        "2",
        "✓ pass",
        "The sum is 3.",
        "3",
        "✗ fail<br><small>expect returned False</small>",
        "The sum is 4.",
    ]


@pytest.mark.parametrize(("length", "cut"), [(300, False), (301, True)])
def test_a_compared_answer_is_cut_after_300_characters_and_an_empty_one_shows_a_dash(length, cut):
    ev = op.evaluate(["Hi."], models=[says("x" * length), says("")], progress=False)
    html = ev.compare(f"says {length}", "says 0", by="answer")._repr_html_()
    cells = [text for _, text in re.findall(r'<td style="([^"]*)">(.*?)</td>', html)]
    assert cells[3] == ("x" * 300 + "…" if cut else "x" * 300) and cells[6] == "—"
    assert cells[2] == cells[5] == "✓ pass"


def test_compare_by_answer_finds_answers_that_differ_under_the_same_verdict():
    ev = op.evaluate(["Hi."], models=[says("Hello."), says("Hi!")], progress=False)
    assert ev.compare("says 6", "says 3", by="answer").prompts == ["Hi."]
    assert ev.compare("says 6", "says 3", by="verdict").prompts == []


def test_a_bad_view_names_what_it_was_given_and_what_there_is():
    ev = op.evaluate(prompts(2), models=[careful(), sloppy()], tools=[add], progress=False)
    with pytest.raises(TypeError) as not_callable:
        ev.where("careful")
    assert str(not_callable.value) == "where(test): test must be a callable taking an EvalRow, got str"
    with pytest.raises(ValueError) as verdicts:
        ev.where(verdict=["yes", "maybe"])
    assert str(verdicts.value) == (
        "no verdict 'maybe', 'yes' in this evaluation: the verdicts are 'pass', 'fail', 'error', 'timeout', 'stopped'"
    )
    with pytest.raises(ValueError) as model:
        ev.compare("careful", "gpt")
    assert str(model.value) == "no model 'gpt' in this evaluation: the models are 'careful', 'sloppy'"
    with pytest.raises(IndexError) as empty:
        ev.where(verdict="timeout").show(1)
    assert str(empty.value) == "no row number 1 here (the numbers in the # column: none)"
