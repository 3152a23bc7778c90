"""The questions a call puts to the user (``engine/_call_questions.py``): what the run's
events announce and what the call's result records."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.core.events import ToolExecutionUpdateEvent

from .conftest import call, results


@op.function(register_globally=False)
def rename(path: str, ctx: op.ToolContext) -> str:
    """Rename a file, asking for the new name."""
    return f"renamed {path} to {ctx.ask(f'New name for {path}?', choices=['b.txt', 'c.txt'])}"


def test_a_question_is_announced_answered_and_recorded_in_the_calls_result():
    events: list[object] = []
    asked: list[tuple[str, tuple[str, ...]]] = []

    def ask(question, cancelled):
        asked.append((question.text, tuple(question.choices)))
        return "b.txt"

    model = op.ScriptedModel([call("rename", path="a.txt"), "ok"])
    run = op.Runtime(model=model).run("go", tools=[rename], ask=ask, on_event=events.append)
    [result] = results(run)
    assert asked == [("New name for a.txt?", ("b.txt", "c.txt"))]
    assert result.text == "renamed a.txt to b.txt"
    assert result.details["answers"] == [{"question": "New name for a.txt?", "answer": "b.txt"}]
    updates = [
        (event.tool_call_id, event.tool_name, event.status, event.data)
        for event in events
        if isinstance(event, ToolExecutionUpdateEvent)
    ]
    assert updates == [
        (result.tool_call_id, "rename", "asking", {"question": "New name for a.txt?", "choices": ["b.txt", "c.txt"]}),
        (result.tool_call_id, "rename", "answered", {"question": "New name for a.txt?", "answer": "b.txt"}),
    ]


@op.function(register_globally=False)
def rename_or_not(path: str, ctx: op.ToolContext) -> str:
    """Rename a file, asking for the new name; says why when no answer came."""
    try:
        return f"renamed {path} to {ctx.ask(f'New name for {path}?', choices=['b.txt', 'c.txt'])}"
    except op.AskError as why:
        return f"not renamed: {why}"


def _refused(ask=None) -> tuple[op.ToolResultMessage, list[tuple[str, object]]]:
    events: list[object] = []
    model = op.ScriptedModel([call("rename_or_not", path="a.txt"), "ok"])
    run = op.Runtime(model=model).run("go", tools=[rename_or_not], ask=ask, on_event=events.append)
    [result] = results(run)
    updates = [(e.status, e.data) for e in events if isinstance(e, ToolExecutionUpdateEvent)]
    return result, updates


def test_with_no_one_to_ask_the_tool_hears_so_in_words_and_the_result_records_them():
    result, updates = _refused()
    words = (
        "rename_or_not asked 'New name for a.txt?', and no one can answer in this run (a run started "
        "from Python without ask=, an evaluation, a call from an MCP client); the tool may catch "
        "op.AskError and go on without the answer"
    )
    assert result.text == f"not renamed: {words}"
    assert result.details["answers"] == [{"question": "New name for a.txt?", "unanswered": words}]
    assert updates == []  # nothing was shown asking


def _unanswered(result, updates, words: str) -> None:
    assert result.text == f"not renamed: {words}"
    assert result.details["answers"] == [{"question": "New name for a.txt?", "unanswered": words}]
    assert updates[-1] == ("answered", {"question": "New name for a.txt?", "unanswered": words})


def test_an_answer_that_is_not_text_is_refused_naming_its_type():
    result, updates = _refused(lambda question, cancelled: 3)
    _unanswered(result, updates, "the answer to 'New name for a.txt?' is a int, not text")


def test_an_answer_that_is_not_one_of_the_choices_is_refused_listing_them():
    result, updates = _refused(lambda question, cancelled: "d.txt")
    _unanswered(result, updates, "the answer 'd.txt' to 'New name for a.txt?' is not one of ['b.txt', 'c.txt']")


def test_an_asker_s_own_refusal_such_as_a_timeout_is_recorded_and_shown_in_its_words():
    def timed_out(question, cancelled):
        raise op.AskError(f"no answer to {question.text!r} within 2 seconds")

    result, updates = _refused(timed_out)
    _unanswered(result, updates, "no answer to 'New name for a.txt?' within 2 seconds")


asked_about: set[str] = {"a.txt"}  # the paths ``rename_some`` asks about


@op.function(register_globally=False)
def rename_some(path: str, ctx: op.ToolContext) -> str:
    """Rename a file, asking for the new name only for the paths in ``asked_about``."""
    if path not in asked_about:
        return f"{path} kept"
    return f"renamed {path} to {ctx.ask(f'New name for {path}?')}"


def test_a_rerun_asks_live_a_question_its_recording_did_not_hold_for_that_call():
    model = op.ScriptedModel([[call("rename_some", path="a.txt"), call("rename_some", path="z.txt")], "ok"])
    recorded = op.Runtime(model=model).run("go", tools=[rename_some], ask=lambda question, cancelled: "b.txt")
    assert [r.text for r in results(recorded)] == ["renamed a.txt to b.txt", "z.txt kept"]
    asked_about.add("z.txt")  # the tool now asks about z.txt too
    try:
        asked: list[str] = []

        def ask(question, cancelled):
            asked.append(question.text)
            return "y.txt"

        again = recorded.rerun(ask=ask)
    finally:
        asked_about.discard("z.txt")
    assert asked == ["New name for z.txt?"]  # a.txt's answer came from the recording
    assert [r.text for r in results(again)] == ["renamed a.txt to b.txt", "renamed z.txt to y.txt"]
