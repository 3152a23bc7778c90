"""``run.to_code()`` for the picks an ordinary run rarely makes: tools whose names are no
variable, agentic functions, tools that are not functions, a pick with no result, an
argument the tool's check changes, a pick whose arguments cannot be written
(what mutmut found unpinned in engine/_run_code.py; docs/testing.md, "Mutation tool")."""

from __future__ import annotations

import datetime
from typing import Annotated

from pydantic import StringConstraints

import openprogram_jupyter as op
from openprogram_jupyter.tools.base import ExternalTool

from .conftest import call

HEADER = [
    "# The picks of the run (model scripted), in order, as direct calls.",
    "# Run this cell to call the tools again, without any model.",
]


def _external(name: str) -> ExternalTool:
    """A tool that is not a function (a ``{"spec", "execute"}`` one), in the registry."""
    spec = {"name": name, "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}
    tool = ExternalTool(spec, lambda code: f"checked {code}", source={})
    op.default_registry.register(tool)
    return tool


def test_tools_whose_names_are_no_variable_are_called_through_the_registry_after_importing_op():
    @op.function(name="get-weather")
    def weather(city: str) -> str:
        """Weather."""
        return f"sunny in {city}"

    @op.function(name="class")
    def klass(level: int) -> str:
        """A keyword's name."""
        return f"level {level}"

    model = op.ScriptedModel([[call("get-weather", city="Paris"), call("class", level=2)], "done"])
    run = op.Runtime(model=model).run("go", tools=[weather, klass])
    source = run.to_code()
    assert source == "\n".join(
        [
            *HEADER,
            "import openprogram_jupyter as op",
            "get_weather_1 = op.default_registry.get('get-weather')(city='Paris')",
            "result_class_1 = op.default_registry.get('class')(level=2)",
            "",
        ]
    )
    namespace: dict = {}
    exec(compile(source, "<to_code>", "exec"), namespace)
    assert (namespace["get_weather_1"], namespace["result_class_1"]) == ("sunny in Paris", "level 2")


def test_a_tool_with_such_a_name_that_did_not_run_imports_nothing():
    @op.function(name="get-weather")
    def weather(city: str) -> str:
        """Weather."""
        return city

    model = op.ScriptedModel([call("get-weather", city="Paris"), "done"])
    run = op.Runtime(model=model).run("go", tools=[weather], step=True, approve=lambda request: False)
    assert run.to_code() == "\n".join(
        [
            *HEADER,
            "# round 1: get-weather(city='Paris') was denied: denied: "
            "the user did not approve this call to get-weather",
            "",
        ]
    )


def test_an_agentic_function_s_call_says_it_runs_a_model_again_and_another_tool_s_does_not():
    @op.agentic_function
    def summarize(text: str, runtime=None) -> str:
        """Summarize."""
        return text[:3]

    check = _external("check")
    model = op.ScriptedModel([[call("summarize", text="hello"), call("check", code="7")], "done"])
    run = op.Runtime(model=model).run("go", tools=[summarize, check])
    lines = run.to_code().splitlines()
    assert lines[2:4] == [
        "# summarize is an agentic function: this call runs a model again",
        "summarize_1 = summarize(text='hello')",
    ]
    assert [line for line in lines if "agentic" in line] == [lines[2]]  # none for the tool that is no function


def test_a_pick_whose_result_is_missing_says_it_has_none():
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    run = op.Runtime(model=op.ScriptedModel([call("add", a=1, b=2), "done"])).run("go", tools=[add])
    run.messages = [m for m in run.messages if not isinstance(m, op.ToolResultMessage)]
    assert run.to_code().splitlines()[2:] == ["# round 1: add(a=1, b=2) has no result"]


def test_an_argument_the_tool_s_check_changes_is_passed_through_the_check():
    """The function receives what it received in the run: a string the check strips and
    lowers is not written as the model sent it (an int for a float is written as sent)."""

    @op.function
    def forecast(city: Annotated[str, StringConstraints(strip_whitespace=True, to_lower=True)], days: float) -> str:
        """Forecast."""
        return f"{city!r} for {days} days"

    picks = [call("forecast", city="  PARIS ", days=2.5), call("forecast", city="rome", days=3)]
    model = op.ScriptedModel([picks, "ok"])
    run = op.Runtime(model=model).run("go", tools=[forecast])
    lines = run.to_code().splitlines()
    assert lines[2:] == [
        "forecast_1 = forecast(**forecast.validate({'city': '  PARIS ', 'days': 2.5}))",
        "forecast_2 = forecast(city='rome', days=3)",
    ]
    namespace = {"forecast": forecast}
    exec("\n".join(lines), namespace)
    assert namespace["forecast_1"] == run.tool_results[0].text == "'paris' for 2.5 days"


def test_a_pick_whose_arguments_cannot_be_written_takes_no_number_from_the_next_call():
    @op.function
    def echo(text: str) -> str:
        """Echo."""
        return str(text)

    answers = iter([op.edit(text=datetime.date(2020, 1, 2)), True])
    model = op.ScriptedModel([call("echo", text="x"), call("echo", text="y"), "done"])
    run = op.Runtime(model=model).run("go", tools=[echo], step=True, approve=lambda request: next(answers))
    lines = run.to_code().splitlines()
    assert lines[-1] == "echo_1 = echo(text='y')"
    assert lines[-2].startswith("# round 1: echo(text='x') ran, but its arguments cannot be written: a date is not")


def test_a_failed_pick_whose_result_is_blank_says_only_that_it_failed():
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    run = op.Runtime(model=op.ScriptedModel([call("add", a=1, b=2), "done"])).run("go", tools=[add])
    run.messages = [
        m.model_copy(update={"content": [op.TextContent(text=" \n")], "status": "error", "is_error": True})
        if isinstance(m, op.ToolResultMessage)
        else m
        for m in run.messages
    ]
    assert run.to_code().splitlines()[2:] == ["# round 1: add(a=1, b=2) failed"]


def test_an_error_s_first_line_of_exactly_160_characters_is_kept_whole():
    @op.function
    def boom(text: str) -> str:
        """Fails."""
        raise ValueError(text)

    error = "Error: boom raised ValueError: " + "x" * 129
    assert len(error) == 160
    run = op.Runtime(model=op.ScriptedModel([call("boom", text="x" * 129), "done"])).run("go", tools=[boom])
    assert run.to_code().splitlines()[2:] == [f"# round 1: boom(text={'x' * 129!r}) failed: {error}"]
