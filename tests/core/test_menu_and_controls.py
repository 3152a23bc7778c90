"""docs/semantics.md §2 (the menu) and §3 (controls), as the model sees them in each request."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

import openprogram_jupyter as op

from .conftest import call, results


def register_tools():
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @op.function
    def mul(a: float, b: float) -> float:
        """Multiply two numbers."""
        return a * b

    @op.function(expose=False)
    def secret() -> str:
        """Never on the menu."""
        return "s"

    return add, mul, secret


def sent_tool_names(model: op.ScriptedModel, round_index: int = 0) -> list[str]:
    return [spec["name"] for spec in model.requests[round_index].tools]


def test_tools_are_on_by_default_full_registered_exposed_menu():
    register_tools()
    model = op.ScriptedModel(["ok"])
    op.Runtime(model=model).exec("hi")
    assert sent_tool_names(model) == ["add", "mul"]


def test_toolset_none_makes_a_pure_reasoning_call():
    register_tools()
    model = op.ScriptedModel(["ok"])
    op.Runtime(model=model).exec("hi", toolset="none")
    assert model.requests[0].tools == []


def test_tools_empty_list_differs_from_tools_none():
    register_tools()
    model = op.ScriptedModel(["ok", "ok"])
    rt = op.Runtime(model=model)
    rt.exec("hi", tools=[])
    rt.exec("hi", tools=None)
    assert sent_tool_names(model, 0) == []
    assert sent_tool_names(model, 1) == ["add", "mul"]


def test_menu_entries_may_be_functions_dicts_and_spec_execute_objects():
    add, _, _ = register_tools()
    seen = {}

    def shout(text: str) -> str:
        seen["dict"] = text
        return text.upper()

    class Whisper:
        spec: ClassVar[dict[str, Any]] = {
            "name": "whisper",
            "description": "Lower-case.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        }

        async def execute(self, text: str) -> str:
            seen["object"] = text
            return text.lower()

    shout_entry = {
        "spec": {
            "name": "shout",
            "description": "Upper-case.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        },
        "execute": shout,
    }
    model = op.ScriptedModel(
        [[call("add", a=1, b=1), call("shout", text="hi"), call("whisper", text="HO"), call("shout", text=3)], "ok"]
    )
    run = op.Runtime(model=model).run("go", tools=[add, shout_entry, Whisper()])
    texts = [r.text for r in results(run)]
    assert texts[:3] == ["2.0", "HI", "ho"]
    assert "expected string" in texts[3]
    assert seen == {"dict": "hi", "object": "HO"}


def test_a_menu_entry_that_is_not_a_tool_is_a_clear_error():
    with pytest.raises(TypeError, match="needs 'spec' and 'execute'"):
        op.Runtime(model=op.ScriptedModel(["ok"])).run("go", tools=[{"name": "x"}])


def test_tools_allow_and_deny_narrow_the_menu_per_call():
    register_tools()
    model = op.ScriptedModel(["ok", "ok"])
    rt = op.Runtime(model=model)
    rt.exec("hi", tools_allow=["mul"])
    rt.exec("hi", tools_deny=["mul"])
    assert sent_tool_names(model, 0) == ["mul"]
    assert sent_tool_names(model, 1) == ["add"]


def test_session_deny_list_applies_to_every_call():
    add, mul, _ = register_tools()
    model = op.ScriptedModel(["ok", "ok"])
    rt = op.Runtime(model=model, tools_deny=["add"])
    rt.exec("hi")
    rt.exec("hi", tools=[add, mul])  # explicit tools do not bypass layer 5
    assert sent_tool_names(model, 0) == ["mul"]
    assert sent_tool_names(model, 1) == ["mul"]


def test_explicit_tools_bypass_expose_but_not_deny():
    _, _, secret = register_tools()
    model = op.ScriptedModel(["ok", "ok"])
    rt = op.Runtime(model=model)
    rt.exec("hi", tools=[secret])
    rt.exec("hi", tools=[secret], tools_deny=["secret"])
    assert sent_tool_names(model, 0) == ["secret"]
    assert sent_tool_names(model, 1) == []


def test_tools_source_hides_tools_unsafe_there():
    @op.function(unsafe_in=["web"])
    def delete_file(path: str) -> str:
        """Delete a file."""
        return path

    register_tools()
    model = op.ScriptedModel(["ok", "ok"])
    rt = op.Runtime(model=model)
    rt.exec("hi", tools_source="web")
    rt.exec("hi", tools_source="notebook")
    assert "delete_file" not in sent_tool_names(model, 0)
    assert "delete_file" in sent_tool_names(model, 1)


def test_tool_choice_required_applies_to_the_first_round_only():
    add, _, _ = register_tools()
    model = op.ScriptedModel([call("add", a=1, b=1), call("add", a=1, b=1), "ok"])
    op.Runtime(model=model).exec("hi", tools=[add], tool_choice="required")
    assert [r.tool_choice for r in model.requests] == ["required", "auto", "auto"]


def test_forced_function_applies_to_the_first_round_only():
    add, mul, _ = register_tools()
    model = op.ScriptedModel([call("mul", a=1, b=1), "ok"])
    op.Runtime(model=model).exec("hi", tools=[add, mul], tool_choice={"type": "function", "name": "mul"})
    assert model.requests[0].tool_choice == {"type": "function", "name": "mul"}
    assert model.requests[1].tool_choice == "auto"


def test_forcing_a_tool_not_on_the_menu_is_a_clear_error():
    add, _, _ = register_tools()
    with pytest.raises(ValueError, match="forces 'mul', which is not on this run's menu"):
        op.Runtime(model=op.ScriptedModel(["ok"])).exec("hi", tools=[add], tool_choice="mul")


def test_invalid_tool_choice_is_a_clear_error():
    with pytest.raises(ValueError, match="tool_choice=42 is not valid"):
        op.Runtime(model=op.ScriptedModel(["ok"])).exec("hi", tool_choice=42)


def test_tool_choice_none_applies_to_every_round():
    add, _, _ = register_tools()
    model = op.ScriptedModel([call("add", a=1, b=1), "ok"])
    op.Runtime(model=model).exec("hi", tools=[add], tool_choice="none")
    assert [r.tool_choice for r in model.requests] == ["none", "none"]


def test_parallel_tool_calls_is_forwarded_every_round():
    add, _, _ = register_tools()
    model = op.ScriptedModel([call("add", a=1, b=1), "ok"])
    op.Runtime(model=model).exec("hi", tools=[add], parallel_tool_calls=False)
    assert [r.parallel_tool_calls for r in model.requests] == [False, False]


def test_max_iterations_caps_rounds_and_says_so():
    add, _, _ = register_tools()
    script = [[op.TextContent(text=f"step {i}"), call("add", a=i, b=1)] for i in range(5)]
    model = op.ScriptedModel([op.AssistantMessage(content=blocks) for blocks in script])
    rt = op.Runtime(model=model)
    text = rt.exec("hi", tools=[add], max_iterations=3, finish_at_limit=False)
    run = rt.last_run
    assert run.stop_reason == "max_iterations"
    assert run.rounds == 3 and model.rounds_played == 3
    assert text == "step 2"
    assert len(results(run)) == 3  # the capped round's calls still got results


def test_max_iterations_below_one_still_allows_one_round():
    add, _, _ = register_tools()
    model = op.ScriptedModel([call("add", a=1, b=1), "ok"])
    rt = op.Runtime(model=model)
    rt.exec("hi", tools=[add], max_iterations=0, finish_at_limit=False)
    assert rt.last_run.rounds == 1 and rt.last_run.stop_reason == "max_iterations"


def test_max_iterations_none_means_no_cap():
    add, _, _ = register_tools()
    model = op.ScriptedModel([call("add", a=i, b=1) for i in range(30)] + ["done"])
    rt = op.Runtime(model=model)
    assert rt.exec("hi", tools=[add], max_iterations=None) == "done"
    assert rt.last_run.rounds == 31 and rt.last_run.stop_reason == "stop"


def test_runtime_exec_defaults_to_twenty_rounds():
    add, _, _ = register_tools()
    model = op.ScriptedModel([call("add", a=i, b=1) for i in range(19)] + ["what I have"])
    rt = op.Runtime(model=model)
    assert rt.exec("hi", tools=[add]) == "what I have"
    assert rt.last_run.rounds == 20 == len(model.requests) and rt.last_run.stop_reason == "max_iterations"
    assert model.requests[-1].tool_choice == "none"
    assert [r.tool_choice for r in model.requests].count("none") == 1  # 20 rounds, then the answer


def test_system_prompt_is_sent_and_can_be_overridden_per_call():
    model = op.ScriptedModel(["ok", "ok"])
    rt = op.Runtime(model=model, system="Be brief.")
    rt.exec("hi")
    rt.exec("hi", system="Be verbose.")
    assert [r.system for r in model.requests] == ["Be brief.", "Be verbose."]


def test_empty_prompt_is_a_clear_error():
    with pytest.raises(ValueError, match="prompt is empty"):
        op.Runtime(model=op.ScriptedModel(["ok"])).exec("   ")


def test_messages_continue_an_earlier_conversation():
    model = op.ScriptedModel(["first answer", "second answer"])
    rt = op.Runtime(model=model)
    first = rt.run("first question")
    rt.run("second question", messages=first.messages)
    sent = [getattr(m, "text", None) for m in model.requests[1].messages]
    assert sent == ["first question", "first answer", "second question"]
