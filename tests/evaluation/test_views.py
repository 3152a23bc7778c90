"""An evaluation's rows open on their runs; ev.show, ev.sort, ev.where and ev.compare."""

from __future__ import annotations

import re

import pytest

import openprogram_jupyter as op

from .scenario import add, careful, prompts, right_sum, sloppy


@pytest.fixture(scope="module")
def evaluation():
    """Four prompts on careful (all right) and sloppy (odd A's wrong): rows 0-7."""
    return op.evaluate(prompts(4), models=[careful(), sloppy()], tools=[add], expect=right_sum, progress=False)


def opened(html: str, number: int) -> str:
    """What row ``number`` shows once clicked: the part of its <details> after the summary."""
    row = re.search(
        rf'<details class="openprogram-evaluation-row" data-row="{number}".*?</summary>(.*?)'
        r'(?=<details class="openprogram-evaluation-row"|$)',
        html,
        re.S,
    )
    assert row is not None, f"no row {number}"
    return row.group(1)


def test_each_row_opens_on_its_own_runs_transcript(evaluation):
    html = evaluation._repr_html_()
    assert "Add 1 and 2." in opened(html, 3) and "The sum is 4." in opened(html, 3)  # sloppy's wrong answer
    assert "The sum is 3." in opened(html, 2) and "add" in opened(html, 2)  # careful's, with its call
    assert "The sum is 3." not in opened(html, 3)


def test_show_displays_the_row_numbered_n_even_in_a_sorted_view(evaluation, capsys):
    view = evaluation.sort("number", descending=True)
    assert view.rows[0].number == 7
    view.show(3)  # no IPython shell here: display prints the plain text
    shown = capsys.readouterr().out
    assert shown.startswith("#3 sloppy: ✗ fail (expect returned False)\nprompt: Add 1 and 2.")
    assert "The sum is 4." in shown
    html = view.transcript(3)._repr_html_()
    assert '<details open class="openprogram-evaluation-row" data-row="3"' in html and "The sum is 4." in html


def test_show_names_the_numbers_there_are(evaluation):
    with pytest.raises(IndexError, match=r"no row number 8 here \(the numbers in the # column: 0 to 7\)"):
        evaluation.show(8)
    with pytest.raises(IndexError, match="0 to 6"):
        evaluation.where(model="careful").show(1)


def test_sort_orders_smallest_first_unless_descending_and_ties_keep_their_order():
    def model(name, tokens):
        return op.ScriptedModel(
            [
                op.AssistantMessage(
                    content=[op.TextContent(text="ok")], usage=op.Usage(total_tokens=tokens, cost=tokens / 1000)
                )
            ],
            name=name,
        )

    evaluation = op.evaluate(
        ["one", "two"], models=[model("mid", 20), model("big", 30), model("small", 10)], progress=False
    )
    assert [r.tokens for r in evaluation.sort("cost").rows] == [10, 10, 20, 20, 30, 30]
    assert [r.number for r in evaluation.sort("tokens").rows] == [2, 5, 0, 3, 1, 4]
    assert [r.tokens for r in evaluation.sort("cost", descending=True).rows] == [30, 30, 20, 20, 10, 10]
    assert [r.model for r in evaluation.sort("model").rows][:2] == ["big", "big"]


def test_sort_by_verdict_puts_passes_first_and_an_unknown_cost_last(evaluation):
    assert [r.verdict for r in evaluation.sort("verdict").rows] == ["pass"] * 6 + ["fail"] * 2
    assert [r.verdict for r in evaluation.sort("verdict", descending=True).rows][:2] == ["fail", "fail"]
    with pytest.raises(ValueError, match="cannot sort by 'price': sort by one of number, prompt, model"):
        evaluation.sort("price")


def test_where_keeps_the_matching_rows_and_their_numbers(evaluation):
    failed = evaluation.where(verdict="fail")
    assert [r.number for r in failed.rows] == [3, 7] and failed.models == ["sloppy"]
    assert [r.number for r in evaluation.where(model="careful", contains="ADD 2").rows] == [4]
    assert [r.number for r in evaluation.where(contains="sum is 8").rows] == [7]  # the answer counts too
    assert [r.number for r in evaluation.where(lambda r: r.number > 5, verdict=["pass", "fail"]).rows] == [6, 7]
    assert [s.passed for s in evaluation.where(model="sloppy").summary()] == [2]
    with pytest.raises(ValueError, match="no model 'carefull' in this evaluation: the models are 'careful', 'sloppy'"):
        evaluation.where(model="carefull")
    with pytest.raises(ValueError, match="no verdict 'failed'"):
        evaluation.where(verdict="failed")


def test_compare_lists_only_the_prompts_where_the_two_models_differ(evaluation):
    by_verdict = evaluation.compare("careful", "sloppy")
    assert by_verdict.prompts == ["Add 1 and 2.", "Add 3 and 4."]
    assert [(a.number, b.number) for a, b in by_verdict] == [(2, 3), (6, 7)]
    assert len(evaluation.compare("careful", "sloppy", by="picks")) == 4  # careful calls add, sloppy never
    assert repr(by_verdict).startswith(
        "2 prompt(s) where careful and sloppy differ (by verdict):\n"
        "  'Add 1 and 2.': careful pass 'The sum is 3.' | sloppy fail 'The sum is 4.'"
    )
    html = by_verdict._repr_html_()
    assert html.count("<tr>") == 3 and "The sum is 4." in html


def test_compare_on_equal_answers_lists_nothing_and_says_so():
    evaluation = op.evaluate(prompts(2), models={"a": careful(), "b": careful()}, tools=[add], progress=False)
    same = evaluation.compare("a", "b", by=["verdict", "picks", "answer"])
    assert same.prompts == [] and repr(same) == "0 prompt(s) where a and b differ (by verdict, picks, answer)."


def test_compare_refuses_unknown_models_and_fields(evaluation):
    with pytest.raises(ValueError, match="no model 'gpt' in this evaluation"):
        evaluation.compare("careful", "gpt")
    with pytest.raises(ValueError, match="two different models"):
        evaluation.compare("careful", "careful")
    with pytest.raises(ValueError, match=r"compare\(by=\.\.\.\) takes 'verdict', 'picks', 'answer'"):
        evaluation.compare("careful", "sloppy", by="cost")


def test_markup_from_outside_stays_text_in_every_view():
    bad = "<img src=x onerror=alert(this)>"
    mocking = op.ScriptedModel([f"The sum is {bad}."], name="mocking")

    def judging(request):  # passes careful's run and fails mocking's, each time with markup in its reason
        verdict = "pass" if "Final answer: The sum is 3." in request.messages[-1].text else "fail"
        return f'{{"call": "{verdict}", "args": {{"reason": "{bad}"}}}}'

    evaluation = op.evaluate(
        [f"Add 1 and 2. {bad}"],
        models=[mocking, careful()],
        tools=[add],
        progress=False,
        expect=op.judge("Right sum.", model=op.ScriptedModel([judging], name="judge")),
    )
    assert [row.verdict for row in evaluation.rows] == ["fail", "pass"]
    views = [
        evaluation._repr_html_(),
        evaluation.transcript(0)._repr_html_(),
        evaluation.transcript(1)._repr_html_(),
        evaluation.compare("mocking", "careful", by="answer")._repr_html_(),
    ]
    for html in views:
        assert "<img src=x" not in html and "&lt;img src=x onerror=alert(this)&gt;" in html
    assert "judge: &lt;img src=x" in views[0]  # the passing judge's reason, under careful's result


def test_a_passing_judges_reason_shows_under_the_result():
    judge = op.judge(
        "Right sum.", model=op.ScriptedModel(['{"call": "pass", "args": {"reason": "3 is right"}}'], name="judge")
    )
    html = op.evaluate(["Add 1 and 2."], models=[careful()], tools=[add], expect=judge, progress=False)._repr_html_()
    assert "judge: 3 is right" in html and "The judge said ✓ pass: 3 is right" in html


def test_transcripts_past_the_budget_say_how_to_show_the_run(evaluation, monkeypatch):
    from openprogram_jupyter.lab.evaluation import _html

    monkeypatch.setattr(_html, "TRANSCRIPT_CHARS", 1)  # the first transcript spends it all
    html = evaluation._repr_html_()
    assert "The sum is 1." in opened(html, 0)
    assert "The sum is 1." not in opened(html, 1) and "<code>ev.show(1)</code> shows this one" in opened(html, 1)
    assert "Transcripts past the first 1 characters are not kept" in opened(html, 7)
