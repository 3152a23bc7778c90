"""Decorator options that act inside the loop: approval, cache, defer, progress."""

from __future__ import annotations

import asyncio

import openprogram_jupyter as op

from .conftest import call, results


def make_delete():
    deleted = []

    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete a file."""
        deleted.append(path)
        return f"deleted {path}"

    return delete, deleted


def test_requires_approval_without_an_approver_denies_and_says_why():
    delete, deleted = make_delete()
    model = op.ScriptedModel([call("delete", path="a"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[delete]))
    assert deleted == []
    assert result.status == "denied" and result.is_error
    assert "requires approval and no approver is configured" in result.text


def test_approver_sees_the_call_and_can_approve_or_deny():
    delete, deleted = make_delete()
    asked = []

    def approve(request: op.ApprovalRequest) -> bool:
        asked.append((request.tool_name, request.arguments))
        return request.arguments["path"] == "ok.txt"

    model = op.ScriptedModel([[call("delete", path="ok.txt"), call("delete", path="etc")], "done"])
    run = op.Runtime(model=model, approve=approve).run("go", tools=[delete])
    assert asked == [("delete", {"path": "ok.txt"}), ("delete", {"path": "etc"})]
    assert deleted == ["ok.txt"]
    assert [r.status for r in results(run)] == ["done", "denied"]
    updates = [e.status for e in run.events if e.type == "tool_execution_update"]
    assert updates == ["awaiting_approval", "approved", "awaiting_approval"]


def test_async_approver_is_awaited():
    delete, deleted = make_delete()

    async def approve(request):
        await asyncio.sleep(0.01)
        return True

    model = op.ScriptedModel([call("delete", path="x"), "ok"])
    op.Runtime(model=model).run("go", tools=[delete], approve=approve)
    assert deleted == ["x"]


def test_cache_returns_the_earlier_result_without_running_the_body():
    calls = []

    @op.function(cache=True)
    def expensive(n: int) -> int:
        """Square slowly."""
        calls.append(n)
        return n * n

    model = op.ScriptedModel([call("expensive", n=3), call("expensive", n=3), call("expensive", n=4), "ok"])
    run = op.Runtime(model=model).run("go", tools=[expensive])
    assert calls == [3, 4]
    assert [r.text for r in results(run)] == ["9", "9", "16"]
    assert results(run)[1].details.get("cached") is True


def test_deferred_tool_schema_is_loaded_by_tool_search_for_the_next_round():
    @op.function(defer=True)
    def convert_units(value: float, unit: str) -> str:
        """Convert a value between units."""
        return f"{value} {unit}"

    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    model = op.ScriptedModel([call("tool_search", query="convert"), call("convert_units", value=1, unit="m"), "ok"])
    run = op.Runtime(model=model).run("go")
    first, second = ([s["name"] for s in r.tools] for r in model.requests[:2])
    assert first == ["add", "tool_search"]
    assert second == ["convert_units", "add", "tool_search"]  # registration order
    catalog = model.requests[0].tools[1]["description"]
    assert "- convert_units: Convert a value between units." in catalog
    assert [r.text for r in results(run)][1] == "1.0 m"


def test_tool_search_with_no_match_lists_deferred_tools():
    @op.function(defer=True)
    def convert_units(value: float) -> str:
        """Convert."""
        return ""

    model = op.ScriptedModel([call("tool_search", query="weather"), "ok"])
    [result] = results(op.Runtime(model=model).run("go"))
    assert "No deferred tool matches 'weather'" in result.text and "convert_units" in result.text


def test_tool_progress_reports_become_update_events():
    @op.function
    def work(ctx: op.ToolContext) -> str:
        """Works in steps."""
        for step in range(3):
            ctx.report({"step": step})
        return "done"

    model = op.ScriptedModel([call("work"), "ok"])
    run = op.Runtime(model=model).run("go", tools=[work])
    progress = [e.data for e in run.events if e.type == "tool_execution_update" and e.status == "progress"]
    assert progress == [{"step": 0}, {"step": 1}, {"step": 2}]


def test_a_failed_call_is_not_cached_and_runs_again():
    calls = []

    @op.function(cache=True)
    def flaky(n: int) -> int:
        """Fails the first time."""
        calls.append(n)
        if len(calls) == 1:
            raise ConnectionError("try again")
        return n * 2

    model = op.ScriptedModel([call("flaky", n=3), call("flaky", n=3), call("flaky", n=3), "ok"])
    run = op.Runtime(model=model).run("go", tools=[flaky])
    assert calls == [3, 3], "the failure was not kept: the second call ran, the third was cached"
    assert [r.status for r in results(run)] == ["error", "done", "done"]
    assert results(run)[2].details.get("cached") is True


def test_a_tool_without_cache_runs_every_time():
    calls = []

    @op.function
    def fresh(n: int) -> int:
        """Counts."""
        calls.append(n)
        return len(calls)

    model = op.ScriptedModel([call("fresh", n=1), call("fresh", n=1), "ok"])
    run = op.Runtime(model=model).run("go", tools=[fresh])
    assert calls == [1, 1] and [r.text for r in results(run)] == ["1", "2"]


def test_the_same_arguments_in_another_order_are_the_same_cached_call():
    calls = []

    @op.function(cache=True)
    def area(width: int, height: int) -> int:
        """Area."""
        calls.append((width, height))
        return width * height

    model = op.ScriptedModel(
        [
            op.ToolCall(name="area", arguments={"width": 2, "height": 3}),
            op.ToolCall(name="area", arguments={"height": 3, "width": 2}),
            "ok",
        ]
    )
    run = op.Runtime(model=model).run("go", tools=[area])
    assert calls == [(2, 3)] and [r.text for r in results(run)] == ["6", "6"]


def test_a_cached_call_whose_arguments_the_user_edited_is_cached_under_the_edited_ones():
    """What ran is the edited call: a later call with those arguments is answered from the
    cache, and one with the model's first arguments runs."""
    calls = []

    @op.function(cache=True)
    def expensive(n: int) -> int:
        """Square slowly."""
        calls.append(n)
        return n * n

    answers = iter([op.edit(n=5), True, True])
    model = op.ScriptedModel([call("expensive", n=3), call("expensive", n=5), call("expensive", n=3), "ok"])
    run = op.Runtime(model=model).run("go", tools=[expensive], step=True, approve=lambda request: next(answers))
    assert calls == [5, 3]
    assert [r.details.get("cached", False) for r in results(run)] == [False, True, False]
