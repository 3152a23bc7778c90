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
