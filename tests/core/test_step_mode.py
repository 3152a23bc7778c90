"""Step mode through the API: every pick asks ``approve=``, which may run, deny, edit or skip it."""

from __future__ import annotations

import json
from html import unescape

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.render import render_html, render_markdown, render_plain

from .conftest import call, results


def make_add():
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        ran.append((a, b))
        return a + b

    ran: list[tuple[float, float]] = []
    return add, ran


def scripted(*items):
    return op.ScriptedModel(list(items))


def test_every_pick_asks_and_each_answer_does_what_it_says():
    add, ran = make_add()
    asked = []
    answers = iter([True, False, op.edit(a=10, b=20), op.skip("we know this one")])

    def approve(request):
        asked.append((request.tool_name, dict(request.arguments)))
        return next(answers)

    model = scripted(call("add", a=1, b=2), call("add", a=3, b=4), call("add", a=5, b=6), call("add", a=7, b=8), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=approve)
    # add is not requires_approval: without step mode none of these would have asked.
    assert asked == [
        ("add", {"a": 1, "b": 2}),
        ("add", {"a": 3, "b": 4}),
        ("add", {"a": 5, "b": 6}),
        ("add", {"a": 7, "b": 8}),
    ]
    assert ran == [(1, 2), (10, 20)]
    statuses = [(r.status, r.details.get("approval")) for r in results(run)]
    assert statuses == [("done", "approved"), ("denied", "denied"), ("done", "edited"), ("skipped", "skipped")]
    skipped = results(run)[3]
    assert skipped.is_error and "we know this one" in skipped.text


def test_an_edited_call_keeps_the_models_message_and_tells_the_model_what_ran():
    add, _ = make_add()
    model = scripted(call("add", a=5, b=6), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=lambda r: op.edit(a=10, b=20))
    sent_call = run.messages[1].tool_calls[0]
    assert sent_call.arguments == {"a": 5, "b": 6}  # the model's own message, as it was sent
    result = results(run)[0]
    assert result.details["edited_arguments"] == {"a": 10, "b": 20}
    # What the model reads in round 2: the note, the edited arguments, then the value.
    seen = model.requests[1].messages[-1]
    assert seen.tool_call_id == sent_call.id
    first_line, value = seen.text.split("\n")
    assert "user changed" in first_line and json.loads(first_line.split(" to ", 1)[1].split("; ")[0]) == {
        "a": 10,
        "b": 20,
    }
    assert value == "30.0"


def test_every_transcript_format_shows_the_original_and_the_edited_arguments():
    add, _ = make_add()
    model = scripted(call("add", a=5, b=6), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=lambda r: op.edit(a=10.5, b=20))
    plain, markdown, html = render_plain(run), render_markdown(run), unescape(render_html(run))
    assert "add(a=10.5, b=20) → done · edited" in plain
    assert "arguments edited by the user before it ran; the model asked for a=5, b=6" in plain
    for text in (markdown, html):
        assert '"a": 5' in text and '"a": 10.5' in text, text
        assert "edited by the user" in text


def test_edited_arguments_the_schema_refuses_do_not_run_and_say_why():
    add, ran = make_add()
    model = scripted(call("add", a=1, b=2), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=lambda r: op.edit(a="lots"))
    result = results(run)[0]
    assert ran == []
    assert result.status == "denied" and "edited arguments" in result.text and "b" in result.text


def test_an_async_approver_may_answer_with_an_edit():
    add, ran = make_add()

    async def approve(request):
        return op.edit(a=request.arguments["a"] * 100, b=0)

    model = scripted(call("add", a=2, b=2), "ok")
    op.Runtime(model=model).run("go", tools=[add], step=True, approve=approve)
    assert ran == [(200, 0)]


def test_a_requires_approval_tool_outside_step_mode_accepts_the_same_answers():
    @op.function(requires_approval=True)
    def launch(target: str) -> str:
        """Launch."""
        return f"launched {target}"

    model = scripted(call("launch", target="moon"), call("launch", target="sun"), "ok")
    answers = iter([op.edit(target="mars"), op.skip("too hot")])
    run = op.Runtime(model=model).run("go", tools=[launch], approve=lambda r: next(answers))
    assert [r.text.split("\n")[-1] for r in results(run)] == [
        "launched mars",
        "skipped by the user: too hot. The call did not run.",
    ]


def test_step_mode_without_an_approver_is_refused_before_anything_runs():
    add, ran = make_add()
    model = scripted(call("add", a=1, b=2), "ok")
    with pytest.raises(op.SetupError, match="step=True needs an approver"):
        op.Runtime(model=model).run("go", tools=[add], step=True)
    assert ran == [] and model.rounds_played == 0


def test_step_must_be_a_bool():
    with pytest.raises(op.SetupError, match="step must be True or False"):
        op.Runtime(model="offline").prepare("go", step="yes")


def test_skip_needs_a_text_reason():
    with pytest.raises(TypeError, match="must be a str"):
        op.skip(3)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_approver_that_raises_denies_the_call_and_the_run_goes_on(kind):
    add, ran = make_add()

    def broken(request):
        raise ValueError(f"no answer for {request.tool_name}")

    async def broken_async(request):
        broken(request)

    model = scripted(call("add", a=1, b=2), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=broken if kind == "sync" else broken_async)
    assert ran == []
    (result,) = results(run)
    assert (result.status, result.is_error) == ("denied", True)
    assert result.text == "denied: the approval check failed (ValueError: no answer for add)"
    assert (run.stop_reason, run.text) == ("stop", "ok")


@pytest.mark.parametrize(
    "answer", ["no", "n", "False", "yes", "", None, 1, 0, {"approve": True}, [True], op.skip, op.edit]
)
def test_an_answer_that_is_not_true_false_edit_or_skip_never_runs_the_call_and_names_the_answer(answer):
    ran = []

    @op.function(requires_approval=True)
    def drop(table: str) -> str:
        """Drop a table."""
        ran.append(table)
        return f"dropped {table}"

    model = scripted(call("drop", table="users"), "ok")
    run = op.Runtime(model=model, approve=lambda request: answer).run("go", tools=[drop])
    assert ran == []
    (result,) = results(run)
    assert (result.status, result.is_error) == ("denied", True)
    assert result.text.startswith("denied: the approval check failed: the approver answered ")
    shown = f"op.{answer.__name__} itself" if callable(answer) else repr(answer)
    assert shown in result.text
    assert (run.stop_reason, run.text) == ("stop", "ok")


@pytest.mark.parametrize(
    ("answer", "ran"), [(True, ["users"]), (False, []), (op.edit(table="logs"), ["logs"]), (op.skip("not today"), [])]
)
def test_true_and_edit_run_a_call_false_and_skip_do_not(answer, ran):
    calls = []

    @op.function(requires_approval=True)
    def drop(table: str) -> str:
        """Drop a table."""
        calls.append(table)
        return f"dropped {table}"

    op.Runtime(model=scripted(call("drop", table="users"), "ok"), approve=lambda request: answer).run(
        "go", tools=[drop]
    )
    assert calls == ran


def test_an_edited_call_that_fails_still_tells_the_model_its_arguments_were_changed():
    @op.function
    def divide(a: float, b: float) -> float:
        """Divide."""
        return a / b

    model = scripted(call("divide", a=1, b=2), "ok")
    run = op.Runtime(model=model).run("go", tools=[divide], step=True, approve=lambda r: op.edit(a=1, b=0))
    result = results(run)[0]
    note, error = result.text.split("\n", 1)
    assert note == (
        'Note: the user changed this call\'s arguments before it ran, to {"a": 1, "b": 0}; '
        "this is the result for those arguments."
    )
    assert error == "Error: divide raised ZeroDivisionError: float division by zero"


# -- what mutmut found unpinned in engine/_approval_gate.py (docs/testing.md, "Mutation tool") --


def test_a_skip_without_a_reason_says_so_and_records_none():
    add, ran = make_add()
    model = scripted(call("add", a=1, b=2), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=lambda r: op.skip())
    result = results(run)[0]
    assert result.text == "skipped by the user (no reason given). The call did not run."
    assert (result.details["approval"], result.details["skip_reason"], ran) == ("skipped", "", [])
    reasoned = op.Runtime(model=scripted(call("add", a=1, b=2), "ok")).run(
        "go", tools=[add], step=True, approve=lambda r: op.skip("known")
    )
    assert results(reasoned)[0].details["skip_reason"] == "known"


def test_refusals_record_that_the_call_was_denied_and_the_edited_arguments():
    add, ran = make_add()
    bad_edit = op.Runtime(model=scripted(call("add", a=1, b=2), "ok")).run(
        "go", tools=[add], step=True, approve=lambda r: op.edit(a="lots")
    )
    details = results(bad_edit)[0].details
    assert (details["approval"], details["edited_arguments"]) == ("denied", {"a": "lots"})

    def broken(request):
        raise RuntimeError("no answer")

    failed = op.Runtime(model=scripted(call("add", a=1, b=2), "ok")).run(
        "go", tools=[add], approve=op.policy(ask=["add"], ask_with=broken)
    )
    details = results(failed)[0].details
    assert (details["approval"], details["approval_by"], ran) == ("denied", "user", [])


def test_an_approver_is_shown_the_tool_and_the_view_hears_the_call_wait_and_pass():
    add, _ = make_add()
    shown = []
    model = scripted(call("add", a=1, b=2), "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=lambda r: shown.append(r.tool.name) or True)
    call_id = run.messages[1].tool_calls[0].id
    assert shown == ["add"]
    updates = [(e.status, e.tool_call_id) for e in run.events if e.type == "tool_execution_update"]
    assert updates == [("awaiting_approval", call_id), ("approved", call_id)]


def test_a_policy_judges_a_call_by_its_arguments_and_says_when_it_has_no_one_to_ask():
    add, ran = make_add()
    rules = op.policy(allow=["add(a=1)"], deny=["add(a=3)"])
    model = scripted([call("add", a=1, b=2), call("add", a=3, b=4), call("add", a=5, b=6)], "ok")
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=rules)
    assert ran == [(1, 2)]
    assert [r.status for r in results(run)] == ["done", "denied", "denied"]
    assert results(run)[2].text == (
        "denied: the approval policy says to ask about add, and it has no one to ask "
        "(the user did not see this call; give op.policy(..., ask_with=...), or run it in a notebook)"
    )


def test_a_policy_s_ask_shows_its_approver_the_tool():
    add, _ = make_add()
    shown = []
    rules = op.policy(ask=["add"], ask_with=lambda request: shown.append(request.tool.name) or True)
    op.Runtime(model=scripted(call("add", a=1, b=2), "ok")).run("go", tools=[add], approve=rules)
    assert shown == ["add"]


def test_in_step_mode_a_policy_with_no_rule_for_the_call_shows_its_approver_the_tool():
    add, _ = make_add()
    shown = []
    rules = op.policy(allow=["other"], ask_with=lambda request: shown.append(request.tool.name) or True)
    op.Runtime(model=scripted(call("add", a=1, b=2), "ok")).run("go", tools=[add], step=True, approve=rules)
    assert shown == ["add"]
