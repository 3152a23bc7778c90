"""The examples in docs/tools.md run as written and show what really happens."""

import re
from pathlib import Path

import pytest

import openprogram_jupyter as op

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


@pytest.fixture
def namespace(monkeypatch) -> dict:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 8
    namespace: dict = {"runtimes": []}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
        if "rt" in namespace and namespace["rt"] not in namespace["runtimes"]:
            namespace["runtimes"].append(namespace["rt"])  # each example builds its own `rt`
    return namespace


def sent_tools(runtime, request: int) -> list[str]:
    return [spec["name"] for spec in runtime.model.requests[request].tools]


def test_function_example_is_an_ordinary_callable_with_the_spec_shown(namespace):
    add = namespace["add"]
    assert add(1, 2) == 3 and add.name == "add"
    assert add.spec == {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "First number."},
                "b": {"type": "number", "description": "Second number.", "default": 0.0},
            },
            "required": ["a"],
            "additionalProperties": False,
        },
    }


def test_schema_error_example_shows_the_real_message(namespace):
    assert namespace["star_args_error"] == (
        "collect: parameter *items cannot be described to a model; list the parameters explicitly"
    )


def test_argument_error_example_shows_the_real_problems(namespace):
    assert namespace["problems"] == [
        ("x", 'Input should be a valid integer (got "3")'),
        ("z", "unexpected argument (not in the schema)"),
    ]


def test_options_example_is_not_registered(namespace):
    assert "add_numbers" not in op.default_registry
    assert namespace["add_numbers"].options.cache


def test_gating_examples_send_the_menus_described(namespace):
    runtime = namespace["runtimes"][0]
    assert sent_tools(runtime, 0) == ["add", "place", "read_file", "delete_file", "tool_search"]
    assert sent_tools(runtime, 1) == ["read_file"]
    assert sent_tools(runtime, 2) == ["read_file"]
    assert sent_tools(runtime, 3) == ["normalize"]


def test_explain_example_shows_the_real_reports(namespace):
    by_name = namespace["by_name"]
    assert by_name["normalize"] == ("2", "expose=False")
    assert by_name["delete_file"] == ("3", "unsafe_in: hidden when tools_source='web'")
    assert by_name["translate"] == ("6", "defer=True: listed in the tool_search catalog, schema loaded on demand")


def test_tool_context_example_runs_directly(namespace):
    assert namespace["crunch"](3) == "done"
    assert list(namespace["crunch"].spec["parameters"]["properties"]) == ["n"]


def test_dict_tool_example_runs(namespace):
    run = namespace["runtimes"][1].last_run
    results = [m for m in run.messages if isinstance(m, op.ToolResultMessage)]
    assert [r.content[0].text for r in results] == ["Sunny in Oslo"]
    assert run.text == "Sunny."


def test_agentic_function_example_hides_runtime(namespace):
    assert list(namespace["research"].spec["parameters"]["properties"]) == ["topic"]
