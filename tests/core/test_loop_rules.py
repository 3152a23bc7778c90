"""docs/semantics.md §1 and §4: one round = stream the reply, run the picks in order, feed back results."""

from __future__ import annotations

import threading
import time

import openprogram_jupyter as op

from .conftest import call, results


def make_add():
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    return add


def test_reply_with_tool_calls_runs_them_and_asks_again():
    add = make_add()
    model = op.ScriptedModel([call("add", a=1, b=2), "The sum is 3."])
    run = op.Runtime(model=model).run("1+2?", tools=[add])
    assert [r.text for r in results(run)] == ["3.0"]
    assert len(model.requests) == 2
    second_request = model.requests[1].messages
    assert isinstance(second_request[-1], op.ToolResultMessage)
    assert second_request[-1].tool_call_id == "call_1_1"


def test_text_only_reply_finishes_and_is_the_result():
    model = op.ScriptedModel(["Just text."])
    rt = op.Runtime(model=model)
    assert rt.exec("hi", tools=[make_add()]) == "Just text."
    run = rt.last_run
    assert (run.stop_reason, run.rounds, run.tool_results) == ("stop", 1, [])
    assert model.rounds_played == 1
    assert op.Runtime(model=model).last_run is None  # a fresh runtime has no run


def test_error_reply_ends_the_run_and_exec_raises_run_error():
    model = op.ScriptedModel([op.AssistantMessage(content=[], stop_reason="error", error_message="boom")])
    rt = op.Runtime(model=model)
    try:
        rt.exec("hi")
    except op.RunError as error:
        assert error.run.stop_reason == "error"
        assert "boom" in str(error)
        assert rt.last_run is error.run
    else:
        raise AssertionError("exec should raise RunError")


def test_running_past_the_script_fails_loudly():
    model = op.ScriptedModel([call("add", a=1, b=2)])
    run = op.Runtime(model=model).run("hi", tools=[make_add()])
    assert run.stop_reason == "error"
    assert "script has 1 round" in str(run.error)


def test_calls_run_one_after_another_in_the_models_order():
    order = []

    @op.function
    def record(label: str) -> str:
        """Record a label."""
        time.sleep(0.01 if label == "first" else 0)
        order.append(label)
        return label

    model = op.ScriptedModel(
        [[call("record", label="first"), call("record", label="second"), call("record", label="third")], "done"]
    )
    op.Runtime(model=model).run("go", tools=[record])
    assert order == ["first", "second", "third"]


def test_unknown_tool_becomes_error_result_listing_valid_names():
    model = op.ScriptedModel([call("mul", a=1), "ok"])
    run = op.Runtime(model=model).run("go", tools=[make_add()])
    [result] = results(run)
    assert result.is_error and result.status == "error"
    assert "unknown tool 'mul'" in result.text and "Valid tools: add" in result.text
    assert run.stop_reason == "stop"  # the loop went on


def test_invalid_arguments_become_error_result_naming_field_and_reason():
    model = op.ScriptedModel([call("add", a="one", b=2, c=3), "ok"])
    run = op.Runtime(model=model).run("go", tools=[make_add()])
    [result] = results(run)
    assert result.is_error
    assert "a: Input should be a valid number" in result.text
    assert "c: unexpected argument" in result.text


def test_missing_argument_is_named():
    model = op.ScriptedModel([call("add", a=1), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[make_add()]))
    assert "b: missing required argument" in result.text


def test_arguments_that_are_not_json_become_an_error_result():
    class BrokenJsonModel(op.ScriptedModel):
        async def stream(self, request, out):
            self.requests.append(request)
            if len(self.requests) == 1:
                start = out.start_tool_call("add", "call_x")
                yield start
                yield out.tool_call_delta(start.content_index, '{"a": 1, "b":')
                yield out.end_tool_call(start.content_index)
                out.finish()
            else:
                yield out.text_delta("ok")
                out.finish()

    run = op.Runtime(model=BrokenJsonModel([])).run("go", tools=[make_add()])
    [result] = results(run)
    assert result.is_error and "not valid JSON" in result.text


def test_tool_exception_becomes_error_result_with_type_and_message_traceback_kept_for_view():
    @op.function
    def divide(a: float, b: float) -> float:
        """Divide."""
        return a / b

    model = op.ScriptedModel([call("divide", a=1, b=0), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[divide]))
    assert result.is_error
    assert "ZeroDivisionError: float division by zero" in result.text
    assert "Traceback" not in result.text
    assert "Traceback" in result.details["traceback"]


def test_tool_past_its_timeout_becomes_error_result_and_loop_goes_on():
    release = threading.Event()

    @op.function(timeout=0.2)
    def slow() -> str:
        """Hang."""
        release.wait(30)
        return "late"

    model = op.ScriptedModel([call("slow"), "moved on"])
    started = time.monotonic()
    try:
        run = op.Runtime(model=model).run("go", tools=[slow])
    finally:
        release.set()
    assert time.monotonic() - started < 10  # generous: without the timeout the body holds the run 30 s
    [result] = results(run)
    assert result.is_error and result.text == (
        "Error: slow timed out after 0.2 s and was stopped (a sync tool may still be finishing in the background)"
    )
    assert result.details["timeout"] == 0.2
    assert run.text == "moved on"


def test_async_tool_past_its_timeout_is_cancelled():
    import asyncio

    cancelled = []

    @op.function(timeout=0.1)
    async def slow_async() -> str:
        """Hang."""
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "late"

    model = op.ScriptedModel([call("slow_async"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[slow_async]))
    assert "timed out" in result.text
    assert cancelled == [True]


def test_success_result_is_rendered_to_text():
    @op.function
    def info() -> dict:
        """Info."""
        return {"x": 1}

    model = op.ScriptedModel([call("info"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[info]))
    assert not result.is_error and result.status == "done"
    assert '"x": 1' in result.text


def test_every_tool_call_gets_exactly_one_result():
    add = make_add()
    model = op.ScriptedModel(
        [
            [call("add", a=1, b=2), call("nope"), call("add", a="x", b=1)],
            [call("add", a=2, b=2)],
            "done",
        ]
    )
    run = op.Runtime(model=model).run("go", tools=[add])
    call_ids = [c.id for m in run.messages if isinstance(m, op.AssistantMessage) for c in m.tool_calls]
    result_ids = [r.tool_call_id for r in results(run)]
    assert sorted(call_ids) == sorted(result_ids)
    assert len(set(result_ids)) == len(result_ids) == 4


def test_same_failing_call_a_third_time_is_refused():
    attempts = []

    @op.function
    def flaky(x: int) -> int:
        """Always fails."""
        attempts.append(x)
        raise RuntimeError("nope")

    model = op.ScriptedModel([call("flaky", x=1), call("flaky", x=1), call("flaky", x=1), call("flaky", x=2), "ok"])
    run = op.Runtime(model=model).run("go", tools=[flaky])
    texts = [r.text for r in results(run)]
    assert attempts == [1, 1, 2]
    assert "refused" in texts[2] and "failed 2 times" in texts[2]
    assert "RuntimeError" in texts[3]


def test_tool_print_output_does_not_break_the_run(capsys):
    @op.function
    def chatty() -> str:
        """Prints a lot."""
        for i in range(1000):
            print("line", i)
        return "done"

    model = op.ScriptedModel([call("chatty"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[chatty]))
    assert result.text == "done"
    assert "line 999" in result.details["output"][0]["text"]  # caught for the call's card
    assert "line 999" not in capsys.readouterr().out


def test_a_tool_with_capture_output_off_prints_where_it_always_did(capsys):
    @op.function(capture_output=False)
    def chatty() -> None:
        """Prints."""
        print("to the cell")

    model = op.ScriptedModel([call("chatty"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[chatty]))
    assert "to the cell" in capsys.readouterr().out
    assert result.text == "" and "output" not in result.details


def test_huge_result_is_truncated_with_a_marker():
    @op.function(max_result_chars=1000)
    def huge() -> str:
        """10 MB."""
        return "a" * 5_000_000 + "b" * 5_000_000

    model = op.ScriptedModel([call("huge"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[huge]))
    assert len(result.text) < 1200
    assert result.text.startswith("a") and result.text.endswith("b")
    assert "characters cut of 10,000,000" in result.text
    assert result.details["truncated_chars"] == 10_000_000 - 1000


def test_default_result_limit_protects_the_context():
    @op.function
    def huge() -> str:
        """10 MB."""
        return "x" * 10_000_000

    model = op.ScriptedModel([call("huge"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[huge]))
    assert len(result.text) < 60_000 and "characters cut" in result.text


ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def test_a_tool_may_return_content_blocks_such_as_an_image():
    @op.function
    def snapshot() -> list:
        """A picture and a caption."""
        return [op.ImageContent(data=ONE_PIXEL_PNG, mime_type="image/png"), op.TextContent(text="a cat")]

    model = op.ScriptedModel([call("snapshot"), "ok"])
    [result] = results(op.Runtime(model=model).run("go", tools=[snapshot]))
    assert [type(b).__name__ for b in result.content] == ["ImageContent", "TextContent"]
    assert result.content[0].mime_type == "image/png" and result.text == "a cat"


# -- what mutmut found unpinned in engine/loop.py (docs/testing.md, "Mutation tool") -----------


def test_the_run_s_start_tells_the_views_its_model_menu_budgets_and_context_window():
    """The live view's header, cost meter and context meter read these."""
    model = op.ScriptedModel(["hi"], name="scripted-x")
    run = op.Runtime(model=model).run("go", tools=[make_add()], max_cost=0.5, max_tokens=9_000, context_window=64_000)
    [start] = [e for e in run.events if e.type == "agent_start"]
    assert (start.model, start.tools, start.max_cost, start.max_tokens, start.context_window) == (
        "scripted-x",
        ["add"],
        0.5,
        9_000,
        64_000,
    )


def test_each_round_s_end_carries_its_results():
    model = op.ScriptedModel([[call("add", a=1, b=2), call("add", a=3, b=4)], "done"])
    run = op.Runtime(model=model).run("go", tools=[make_add()])
    ends = [e for e in run.events if e.type == "turn_end"]
    assert [[r.text for r in e.tool_results] for e in ends] == [["3.0", "7.0"], []]


def test_a_failed_reply_s_error_fields_reach_the_run():
    error = op.ReplyError(kind="rate_limit", summary="slow down", status=429, retryable=True)
    model = op.ScriptedModel([op.AssistantMessage(content=[], stop_reason="error", error_message="429", error=error)])
    run = op.Runtime(model=model).run("go")
    assert run.stop_reason == "error"
    assert (run.error.kind, run.error.status, str(run.error)) == ("rate_limit", 429, "slow down")


def test_a_stop_during_the_third_call_leaves_every_call_exactly_one_result():
    abort = threading.Event()

    @op.function
    def step(n: int) -> int:
        """A step; the third stops the run."""
        if n == 3:
            abort.set()
        return n

    calls = [call("step", n=n) for n in (1, 2, 3, 4)]
    run = op.Runtime(model=op.ScriptedModel([calls, "never"])).run("go", tools=[step], abort=abort)
    assert run.stop_reason == "aborted"
    assert [r.tool_call_id for r in results(run)] == [c.id for c in run.messages[1].tool_calls]
    assert [r.status for r in results(run)][:2] == ["done", "done"] and results(run)[3].status == "cancelled"


def test_a_result_records_how_long_its_call_took_in_seconds():
    @op.function
    def nap() -> str:
        """Nap."""
        time.sleep(0.05)
        return "rested"

    run = op.Runtime(model=op.ScriptedModel([call("nap"), "ok"])).run("go", tools=[nap])
    [result] = results(run)
    took = result.details["duration"]
    assert 0.05 <= took < 5 and took == round(took, 6)
    [end] = [e for e in run.events if e.type == "tool_execution_end"]
    assert 0.05 <= end.duration < 5


def test_an_unknown_tool_s_result_lists_every_valid_name_or_says_there_are_none():
    @op.function
    def sub(a: float, b: float) -> float:
        """Subtract."""
        return a - b

    model = op.ScriptedModel([call("mul", a=1, b=2), "ok"])
    run = op.Runtime(model=model).run("go", tools=[make_add(), sub])
    assert results(run)[0].text == "Error: unknown tool 'mul'. Valid tools: add, sub."
    alone = op.Runtime(model=op.ScriptedModel([call("mul"), "ok"])).run("go", tools=[])
    assert results(alone)[0].text == "Error: unknown tool 'mul'. Valid tools: (none: this run has no tools)."


def test_a_call_past_the_tool_call_budget_is_refused_with_the_whole_reason():
    model = op.ScriptedModel([[call("add", a=1, b=2), call("add", a=3, b=4)], "ok"])
    run = op.Runtime(model=model).run("go", tools=[make_add()], max_tool_calls=1)
    assert results(run)[1].text == (
        "Error: refused: this run has made 1 tool calls, its budget (max_tool_calls=1, nested runs' calls "
        "included). Answer with what you have so far."
    )
