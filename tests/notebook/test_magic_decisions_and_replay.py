"""``%%agent --choices``, ``--record`` and ``%agent schema``, in one process (no kernel)."""

from __future__ import annotations

import json

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op


@pytest.fixture(autouse=True)
def _fresh_registry(clean_registry):
    yield


def pick(call: str, **args) -> str:
    return json.dumps({"call": call, "args": args})


def test_choices_stores_the_resolved_decision_in_o(shell):
    shell.user_ns["options"] = {"approve": "yes, ship it", "reject": ("Say why", {"why": str})}
    shell.user_ns["m"] = op.ScriptedModel([pick("reject", why="tests fail")])
    result = shell.run_cell("%%agent -m m --choices options -o r\nShip the release?")
    assert result.success, result.error_in_exec
    assert shell.user_ns["r"] == {"decision": "reject", "why": "tests fail"}
    assert shell.user_ns["runtime"].last_run.decision.option == "reject"


def test_choices_naming_no_variable_is_a_clear_error(shell):
    with pytest.raises(UsageError, match="--choices nothing_here: no variable"):
        shell.run_cell("%%agent --choices nothing_here\nDecide.", store_history=False).raise_error()


def test_a_decision_that_never_parses_fails_the_cell_and_keeps_the_run(shell):
    shell.user_ns["options"] = ["a", "b"]
    shell.user_ns["m"] = op.ScriptedModel(["no idea", "still no idea"])
    result = shell.run_cell("%%agent -m m --choices options -o r\nPick one.")
    assert isinstance(result.error_in_exec, op.DecisionError)
    run = shell.user_ns["r"]  # no decision to store, so -o keeps the Run itself
    assert run is shell.user_ns["runtime"].last_run and run.decision is None
    assert [m.role for m in run.messages].count("assistant") == 2  # the re-ask is in the transcript


def test_a_picked_function_option_that_raises_fails_the_cell_and_keeps_the_run(shell):
    # The run ended well; the option's own failure comes after it. It must not read as
    # "could not start", and the Run stays in -o, the session and runtime.last_run.
    def book(city: str) -> str:
        raise ValueError(f"no trains to {city}")

    shell.user_ns["options"] = {"book": book, "stay": "stay home"}
    shell.user_ns["m"] = op.ScriptedModel([pick("book", city="Oslo")])
    result = shell.run_cell("%%agent -m m --choices options -s trip -o r\nBook or stay?")
    assert type(result.error_in_exec) is ValueError
    assert str(result.error_in_exec) == "no trains to Oslo"
    run = shell.user_ns["r"]
    assert isinstance(run, op.Run) and run.stop_reason == "stop" and run.decision is None
    assert run is shell.user_ns["runtime"].last_run
    magics = shell.magics_manager.registry["AgentMagics"]
    assert magics.sessions.get("trip").runs == [run]


def test_choices_cannot_run_in_the_background(shell):
    with pytest.raises(UsageError, match="cannot run in the --background"):
        shell.run_cell("%%agent --choices x --background\nDecide.").raise_error()


def test_record_writes_a_cassette_that_replays_the_same_transcript(shell, tmp_path):
    cassette = tmp_path / "run.json"

    @op.function
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    shell.user_ns["m"] = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 1, "b": 2}), "It is 3."])
    result = shell.run_cell(f"%%agent -m m --tools add --record {cassette} -o r\nWhat is 1+2?")
    assert result.success, result.error_in_exec
    assert json.loads(cassette.read_text())  # a readable JSON cassette
    result = shell.run_cell(f"%%agent -m replay:{cassette} --tools add -o run\nWhat is 1+2?")
    assert result.success, result.error_in_exec
    recorded, replayed = shell.user_ns["r"], shell.user_ns["run"]
    assert replayed.text == recorded.text == "It is 3."
    assert [m.text for m in replayed.tool_results] == [m.text for m in recorded.tool_results] == ["3.0"]


def test_agent_schema_shows_each_providers_declaration(shell, capsys):
    @op.function
    def lookup(city: str) -> str:
        """Look up a city."""
        return city

    shell.run_line_magic("agent", "schema lookup")
    out = capsys.readouterr().out
    for shape in ("input_schema", "parametersJsonSchema", "toolSpec", '"type": "function"'):
        assert shape in out


def test_agent_schema_of_an_unknown_tool_is_a_clear_error(shell):
    with pytest.raises(UsageError, match="no registered tool is named 'ghost'"):
        shell.run_line_magic("agent", "schema ghost")
