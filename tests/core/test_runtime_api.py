"""The pinned public API (README, docs/semantics.md), and every entry point driving the one loop."""

from __future__ import annotations

import _thread
import asyncio
import sys
import threading
import time

import pytest

import openprogram_jupyter as op

from .conftest import call, results

PINNED_NAMES = [
    "function",
    "agentic_function",
    "Runtime",
    "Run",
    "RunHandle",
    "ToolCall",
    "ScriptedModel",
    "UserMessage",
    "AssistantMessage",
    "ToolResultMessage",
    "TextContent",
    "ThinkingContent",
    "Usage",
    "DecisionError",
    "decision",
    "load_ipython_extension",
]


@pytest.mark.parametrize("name", PINNED_NAMES)
def test_pinned_public_name_is_importable(name):
    value = getattr(op, name)
    if name == "decision":
        assert value.__name__ == "openprogram_jupyter.lab.decision" and callable(value.make)
    else:  # each is the class or function of that name, not a stand-in
        assert callable(value) and value.__name__ == name


def test_decorated_function_stays_an_ordinary_callable_with_name_and_spec():
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First number.
            b: Second number.
        """
        return a + b

    assert add(1, 2) == 3
    assert add.name == "add"
    assert add.spec == {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "First number."},
                "b": {"type": "number", "description": "Second number."},
            },
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    }


def test_bound_method_is_a_tool_without_self():
    class Counter:
        def __init__(self):
            self.total = 0

        def bump(self, by: int) -> int:
            """Bump the counter."""
            self.total += by
            return self.total

    counter = Counter()
    bump = op.function(counter.bump)
    assert list(bump.spec["parameters"]["properties"]) == ["by"]
    model = op.ScriptedModel([call("bump", by=2), "ok"])
    op.Runtime(model=model).run("go", tools=[bump])
    assert counter.total == 2


def test_roles_are_user_assistant_and_tool_result():
    @op.function
    def noop() -> str:
        """Nothing."""
        return "x"

    run = op.Runtime(model=op.ScriptedModel([call("noop"), "ok"])).run("go", tools=[noop])
    assert [m.role for m in run.messages] == ["user", "assistant", "toolResult", "assistant"]


def test_scripted_model_records_what_each_round_sent():
    @op.function
    def noop() -> str:
        """Nothing."""
        return "x"

    model = op.ScriptedModel([call("noop"), "ok"])
    op.Runtime(model=model).run("go", tools=[noop], tool_choice="required", parallel_tool_calls=False)
    first = model.requests[0]
    assert [m.role for m in first.messages] == ["user"]
    assert [t["name"] for t in first.tools] == ["noop"]
    assert first.tool_choice == "required" and first.parallel_tool_calls is False
    assert [m.role for m in model.requests[1].messages] == ["user", "assistant", "toolResult"]


def test_scripted_model_rejects_items_it_cannot_play():
    run = op.Runtime(model=op.ScriptedModel([42])).run("go")
    assert run.stop_reason == "error" and "expected a str, a ToolCall" in str(run.error)


async def test_arun_and_aexec_run_on_the_callers_event_loop():
    model = op.ScriptedModel(["one", "two"])
    rt = op.Runtime(model=model)
    run = await rt.arun("a")
    assert run.text == "one"
    assert await rt.aexec("b") == "two"


async def test_sync_exec_works_inside_a_running_event_loop():
    # As in a Jupyter cell: the caller's thread already runs an event loop.
    assert asyncio.get_running_loop().is_running()
    assert op.Runtime(model=op.ScriptedModel(["fine"])).exec("go") == "fine"


async def test_cancelling_the_awaiting_task_finalizes_the_run_and_reraises():
    started = asyncio.Event()

    @op.function
    async def slow() -> str:
        """Sleeps."""
        started.set()
        await asyncio.sleep(10)
        return "late"

    rt = op.Runtime(model=op.ScriptedModel([call("slow"), "never"]))
    task = asyncio.ensure_future(rt.arun("go", tools=[slow]))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    run = rt.last_run
    assert run.stop_reason == "aborted"
    assert [r.status for r in results(run)] == ["cancelled"]


def test_keyboard_interrupt_during_sync_run_aborts_keeps_the_run_and_reraises(sigint_raises):
    started, cancelled = threading.Event(), threading.Event()

    @op.function
    def slow(ctx: op.ToolContext) -> str:
        """Waits until cancelled."""
        started.set()
        if ctx.cancelled.wait(10):
            cancelled.set()
        return "stopped"

    def interrupt_when_started():
        started.wait(5)
        time.sleep(0.05)
        # A KeyboardInterrupt that lands while the main thread runs a finalizer (a garbage
        # collection in the wait) is swallowed by Python; like a user, press again.
        for _ in range(3):
            _thread.interrupt_main()
            if cancelled.wait(1):
                return

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    rt = op.Runtime(model=op.ScriptedModel([call("slow"), "never"]))
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        rt.run("go", tools=[slow])
    assert time.monotonic() - begun < 4
    assert rt.last_run.stop_reason == "aborted"
    assert [r.status for r in results(rt.last_run)] == ["cancelled"]


def test_a_tools_print_reaches_the_callers_stdout_with_capture_off(capsys):
    @op.function(capture_output=False)  # on (the default), it goes to the call's card instead
    def shout() -> str:
        """Prints."""
        print("from the tool")
        return "ok"

    op.Runtime(model=op.ScriptedModel([call("shout"), "ok"])).run("go", tools=[shout])
    assert "from the tool" in capsys.readouterr().out


def test_bad_arguments_to_run_raise_before_anything_starts():
    with pytest.raises(ValueError, match="unknown toolset 'nope'"):
        op.Runtime(model=op.ScriptedModel(["x"])).run("go", toolset="nope")
    with pytest.raises(TypeError, match="content must be"):
        op.Runtime(model=op.ScriptedModel(["x"])).run(42)


def test_unknown_model_strings_are_clear_errors():
    with pytest.raises(ValueError, match="unknown provider 'nope'"):
        _ = op.Runtime(model="nope:x").model
    with pytest.raises(ValueError, match="is not 'provider:model'"):
        _ = op.Runtime(model="gpt-4").model


def test_default_model_is_offline_without_keys(monkeypatch):
    for variable in ("OPENPROGRAM_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    assert op.Runtime().model.name == "offline"
    monkeypatch.setenv("OPENPROGRAM_MODEL", "offline")
    assert op.Runtime().model.name == "offline"


def test_importing_the_package_imports_no_provider_sdk():
    import subprocess

    code = (
        "import sys, openprogram_jupyter; "
        "print([m for m in ('openai', 'anthropic', 'boto3', 'httpx', 'ipywidgets') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_offline_model_calls_each_named_tool_once_with_schema_valid_arguments():
    seen = []

    @op.function
    def greet(name: str, times: int = 1) -> str:
        """Greet."""
        seen.append((name, times))
        return f"hi {name}"

    rt = op.Runtime(model="offline")
    text = rt.exec("go", tools=[greet])
    assert seen == [("example", 1)]
    assert "offline" in text and "greet: result: hi example" in text


def test_offline_model_makes_one_call_per_round_when_parallel_calls_are_off():
    @op.function
    def first() -> str:
        """First."""
        return "1"

    @op.function
    def second() -> str:
        """Second."""
        return "2"

    rt = op.Runtime(model="offline")
    run = rt.run("go", tools=[first, second], parallel_tool_calls=False)
    replies = [m for m in run.messages if isinstance(m, op.AssistantMessage)]
    assert [[c.name for c in m.tool_calls] for m in replies] == [["first"], ["second"], []]
    rt = op.Runtime(model="offline")
    run = rt.run("go", tools=[first, second])
    assert [len(m.tool_calls) for m in run.messages if isinstance(m, op.AssistantMessage)] == [2, 0]


def test_offline_model_calls_nothing_when_tool_choice_is_none():
    ran = []

    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        ran.append((a, b))
        return a + b

    run = op.Runtime(model="offline").run("What is 2 + 3?", tools=[add], tool_choice="none")
    assert ran == [] and run.tool_results == []
    assert (run.rounds, run.stop_reason) == (1, "stop")
    assert run.text.startswith("This is the offline model")


def test_offline_model_with_the_default_menu_calls_nothing_and_lists_tools():
    ran = []

    @op.function
    def launch(target: str) -> str:
        """Has side effects."""
        ran.append(target)
        return "launched"

    text = op.Runtime(model="offline").exec("go")
    assert ran == []
    assert 'launch({"target": "example"})' in text


def test_run_usage_is_a_running_total_of_every_reply_and_never_rescans_the_events():
    """The loop reads run.usage every round (budgets); summing every event each time made a
    round's cost grow with the run (bench/long_run.py: 14.6× slower by round 2,000)."""
    replies = [
        op.AssistantMessage(
            content=[op.ToolCall(name="add", arguments={"a": 1, "b": i})],
            stop_reason="toolUse",
            usage=op.Usage(input=10 + i, output=2, cost=0.001),
        )
        for i in range(3)
    ]
    replies.append(op.AssistantMessage(content=[op.TextContent(text="done")], usage=op.Usage(input=20, output=5)))

    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    run = op.Runtime(model=op.ScriptedModel(replies)).run("go", tools=[add])
    expected = op.Usage.total([m.usage for m in run.messages if isinstance(m, op.AssistantMessage)])
    assert run.usage == expected and run.usage.input == 10 + 11 + 12 + 20

    class Unreadable(list):
        def __iter__(self):
            raise AssertionError("run.usage rescanned the events")

    run.events = Unreadable(run.events)
    assert run.usage == expected
    run.usage.input = 0  # a copy: changing it changes nothing in the run
    assert run.usage == expected
