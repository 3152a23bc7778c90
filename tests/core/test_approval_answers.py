"""What the model and the views read of an approver's answers (``core/approvals.py``):
the edited call's note, a skip's reason, and the refusal naming an answer that is none."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.render import render_html

from .conftest import call, results


def make_launch():
    @op.function
    def launch(target: str) -> str:
        """Launch."""
        return f"launched {target}"

    return launch


def test_an_edited_call_tells_the_model_its_arguments_in_one_exact_line_unescaped():
    model = op.ScriptedModel([call("launch", target="moon"), "ok"])
    op.Runtime(model=model).run("go", tools=[make_launch()], step=True, approve=lambda r: op.edit(target="Mars ü"))
    assert model.requests[1].messages[-1].text == (
        'Note: the user changed this call\'s arguments before it ran, to {"target": "Mars ü"}; '
        "this is the result for those arguments.\nlaunched Mars ü"
    )


def test_the_live_views_one_line_preview_of_an_edited_call_is_what_the_tool_returned():
    run = op.Runtime(model=op.ScriptedModel([call("launch", target="moon"), "ok"])).run(
        "go", tools=[make_launch()], step=True, approve=lambda r: op.edit(target="mars")
    )
    assert " — launched mars</span>" in render_html(run)


def test_the_preview_of_an_edited_call_that_returned_nothing_is_empty_not_the_note():
    @op.function
    def clear(target: str) -> str:
        """Clear."""
        return ""

    run = op.Runtime(model=op.ScriptedModel([call("clear", target="moon"), "ok"])).run(
        "go", tools=[clear], step=True, approve=lambda r: op.edit(target="mars")
    )
    assert " — (empty)</span>" in render_html(run)


def test_a_skips_reason_reaches_the_model_without_its_surrounding_spaces():
    run = op.Runtime(model=op.ScriptedModel([call("launch", target="moon"), "ok"])).run(
        "go", tools=[make_launch()], step=True, approve=lambda r: op.skip("  too hot \n")
    )
    assert results(run)[0].text == "skipped by the user: too hot. The call did not run."


def test_a_long_answer_that_is_none_is_named_by_its_first_79_characters_and_its_type():
    answer = "n" * 200
    run = op.Runtime(model=op.ScriptedModel([call("launch", target="moon"), "ok"])).run(
        "go", tools=[make_launch()], step=True, approve=lambda r: answer
    )
    shown = repr(answer)[:79] + "… (a str)"
    assert results(run)[0].text.startswith(f"denied: the approval check failed: the approver answered {shown}; ")
    exact = "n" * 78  # its repr, quotes included, is exactly 80 characters: shown whole
    run = op.Runtime(model=op.ScriptedModel([call("launch", target="moon"), "ok"])).run(
        "go", tools=[make_launch()], step=True, approve=lambda r: exact
    )
    assert f"answered {exact!r} (a str); only True or op.edit(...) run a call" in results(run)[0].text


def test_an_edit_to_a_value_json_cannot_encode_is_shown_to_the_model_as_its_text():
    import datetime

    model = op.ScriptedModel([call("launch", target="moon"), "ok"])
    op.Runtime(model=model).run(
        "go", tools=[make_launch()], step=True, approve=lambda r: op.edit(target=datetime.date(2026, 1, 2))
    )
    assert 'to {"target": "2026-01-02"}; this is the result' in model.requests[1].messages[-1].text


def test_the_preview_of_an_edited_call_keeps_every_line_the_tool_returned():
    @op.function
    def lines(target: str) -> str:
        """Lines."""
        return f"one {target}\ntwo\nthree"

    run = op.Runtime(model=op.ScriptedModel([call("lines", target="moon"), "ok"])).run(
        "go", tools=[lines], step=True, approve=lambda r: op.edit(target="mars")
    )
    assert " — one mars two three</span>" in render_html(run)


def test_a_skip_reason_that_is_no_text_is_refused_naming_its_type():
    with pytest.raises(op.SetupError) as refused:
        op.skip(3)  # type: ignore[arg-type]
    assert str(refused.value) == "op.skip(reason): the reason must be a str, not int"


def test_an_answer_whose_repr_is_81_characters_is_cut():
    answer = "n" * 79
    run = op.Runtime(model=op.ScriptedModel([call("launch", target="moon"), "ok"])).run(
        "go", tools=[make_launch()], step=True, approve=lambda r: answer
    )
    assert f"answered {repr(answer)[:79]}… (a str); " in results(run)[0].text
