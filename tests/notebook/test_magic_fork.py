"""``%agent fork VAR ROUND`` in one process (no kernel): the fork runs, is stored, and says what it replayed."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op


@pytest.fixture
def forked_shell(shell):
    ran = []

    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        ran.append((a, b))
        return a + b

    shell.user_ns["m"] = op.ScriptedModel(
        [
            op.ToolCall(name="add", arguments={"a": 1, "b": 2}),
            op.ToolCall(name="add", arguments={"a": 3, "b": 3}),
            "Six.",
        ]
    )
    assert shell.run_cell("%%agent -m m -o r\nAdd 1, 2 and 3.").success
    ran.clear()
    shell.user_ns["ran"] = ran
    yield shell
    for name in ("ran", "live", "r_fork", "other"):
        shell.user_ns.pop(name, None)


def test_agent_fork_replays_the_first_rounds_and_stores_the_fork(forked_shell, capsys):
    shell = forked_shell
    shell.user_ns["live"] = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 3, "b": 30}), "Thirty-three."])
    shell.run_line_magic("agent", "fork r 2 -m live")
    fork = shell.user_ns["r_fork"]
    assert fork.text == "Thirty-three." and shell.user_ns["runtime"].last_run is fork
    assert len(shell.user_ns["live"].requests) == 2 and shell.user_ns["ran"] == [(3.0, 30.0)]
    out = capsys.readouterr().out
    assert "Fork of r" in out and "round 1 replayed" in out and "replayed from" in out


def test_agent_fork_stores_where_told(forked_shell):
    forked_shell.user_ns["live"] = op.ScriptedModel(["Six."])
    forked_shell.run_line_magic("agent", "fork r 3 -m live -o other")
    assert forked_shell.user_ns["other"].text == "Six."


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("fork", "name the variable"),
        ("fork r", "name the variable"),
        ("fork r two", "name the variable"),
        ("fork nothing 1", "no variable 'nothing'"),
        ("fork m 1", "holds a ScriptedModel, not a Run"),
        ("fork r 9", "between 1 and 3"),
        ("fork r 1 --what", "unknown option"),
        ("fork r 1 -o 1x", "variable name"),
    ],
)
def test_agent_fork_explains_bad_input(forked_shell, line, match):
    with pytest.raises(UsageError, match=match):
        forked_shell.run_line_magic("agent", line)
