"""docs/semantics.md §7 and §2: agentic functions open nested runs of the same loop."""

from __future__ import annotations

import threading

import openprogram_jupyter as op

from .conftest import call, results


def test_agentic_function_gets_runtime_injected_and_hidden_from_schema():
    @op.agentic_function
    def research(topic: str, runtime=None) -> str:
        """Research a topic and report."""
        return runtime.exec(f"Research {topic}", toolset="none")

    assert list(research.spec["parameters"]["properties"]) == ["topic"]
    assert research.spec["description"] == "Research a topic and report."
    inner = op.ScriptedModel(["inner report"])
    assert research("owls", runtime=op.Runtime(model=inner)) == "inner report"
    assert inner.requests[0].messages[0].text == "Research owls"


def test_picking_an_agentic_function_opens_a_nested_run_tagged_with_depth_and_parent():
    @op.agentic_function
    def research(topic: str, runtime=None) -> str:
        """Research a topic."""
        return runtime.exec(f"Research {topic}", toolset="none")

    model = op.ScriptedModel([call("research", topic="owls"), "nested report", "outer summary"])
    run = op.Runtime(model=model).run("go", tools=[research])
    assert run.text == "outer summary"
    [result] = results(run)
    assert result.text == "nested report"
    nested = [e for e in run.events if e.depth == 1]
    assert nested and {e.parent_tool_call_id for e in nested} == {"call_1_1"}
    assert nested[0].type == "agent_start" and nested[-1].type == "agent_end"
    assert len({e.run_id for e in nested}) == 1 and nested[0].run_id != run.run_id
    # the nested events arrive between the call's start and end
    types = [(e.depth, e.type) for e in run.events]
    start = types.index((0, "tool_execution_start"))
    end = types.index((0, "tool_execution_end"))
    assert start < types.index((1, "agent_start")) < types.index((1, "agent_end")) < end


def test_nested_exec_inherits_the_outer_tools_list():
    @op.function
    def lookup(key: str) -> str:
        """Look up."""
        return key

    @op.function
    def unrelated() -> str:
        """Registered but not chosen for the run."""
        return ""

    @op.agentic_function
    def delegate(task: str, runtime=None) -> str:
        """Delegate."""
        return runtime.exec(task)

    model = op.ScriptedModel([call("delegate", task="t"), "inner", "outer"])
    op.Runtime(model=model).run("go", tools=[delegate, lookup])
    inner_request = model.requests[1]
    assert [spec["name"] for spec in inner_request.tools] == ["delegate", "lookup"]


def test_nesting_past_the_depth_cap_is_an_error_result_not_a_crash():
    @op.agentic_function
    def recurse(runtime=None) -> str:
        """Calls itself."""
        return runtime.exec("again")

    # Every round picks recurse again; the cap (2) ends the chain with an error result.
    model = op.ScriptedModel([call("recurse")] * 3 + ["bottom", "mid", "top"])
    run = op.Runtime(model=model, max_depth=2).run("go", tools=[recurse])
    assert run.stop_reason == "stop"
    errors = [e.result for e in run.events if e.type == "tool_execution_end" and e.result.is_error]
    assert len(errors) == 1
    assert "RecursionError" in errors[0].text and "capped at depth 2" in errors[0].text


def test_stopping_the_outer_run_stops_the_nested_run():
    abort = threading.Event()

    @op.function
    def trigger_stop() -> str:
        """Set the outer abort while the nested run works."""
        abort.set()
        return "set"

    @op.agentic_function
    def worker(runtime=None) -> str:
        """Runs a nested loop."""
        return runtime.exec("work", tools=[trigger_stop, slow_inner])

    @op.function
    def slow_inner(ctx: op.ToolContext) -> str:
        """Waits for cancellation."""
        ctx.cancelled.wait(5)
        return "inner stopped"

    model = op.ScriptedModel([call("worker"), [call("trigger_stop"), call("slow_inner")], "never", "never"])
    run = op.Runtime(model=model).run("go", tools=[worker], abort=abort)
    assert run.stop_reason == "aborted"
    nested_end = [e for e in run.events if e.type == "agent_end" and e.depth == 1]
    assert nested_end and nested_end[0].stop_reason == "aborted"


def test_agentic_function_called_from_python_uses_the_default_runtime(monkeypatch):
    from openprogram_jupyter.engine import runtime as runtime_module

    model = op.ScriptedModel(["from default"])
    monkeypatch.setattr(runtime_module, "_default_runtime", op.Runtime(model=model))

    @op.agentic_function
    def ask(question: str, runtime=None) -> str:
        """Ask."""
        return runtime.exec(question, toolset="none")

    assert ask("why?") == "from default"
