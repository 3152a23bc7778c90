"""``%agent rerun VAR`` and ``%agent test VAR PATH`` in one process (no kernel)."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from written_tests import pytest_on

import openprogram_jupyter as op


def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


def add_a_half_more(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b + 0.5


def define_add(shift: float = 0.0):
    """Register ``add`` (a top-level function: ``%agent test`` writes its source into the test)."""
    return op.function(add) if shift == 0 else op.function(add_a_half_more, name="add")


@pytest.fixture
def recorded_shell(shell):
    define_add()
    shell.user_ns["m"] = op.ScriptedModel(
        [
            op.ToolCall(name="add", arguments={"a": 1, "b": 2}),
            op.ToolCall(name="add", arguments={"a": 3, "b": 3}),
            "Six.",
        ]
    )
    assert shell.run_cell("%%agent -m m -o r\nAdd 1, 2 and 3.").success
    yield shell
    define_add()
    for name in ("r", "m", "live", "r_rerun", "other"):
        shell.user_ns.pop(name, None)


def test_agent_rerun_follows_the_recording_and_stores_the_rerun(recorded_shell, capsys):
    recorded_shell.run_line_magic("agent", "rerun r")
    rerun = recorded_shell.user_ns["r_rerun"]
    assert rerun.divergence is None and rerun.text == "Six." and len(recorded_shell.user_ns["m"].requests) == 3
    assert recorded_shell.user_ns["runtime"].last_run is rerun
    assert "Rerun of r" in capsys.readouterr().out


def test_agent_rerun_stops_at_the_divergence_or_goes_on_live(recorded_shell, capsys):
    define_add(shift=0.5)
    recorded_shell.run_line_magic("agent", "rerun r -o other")
    other = recorded_shell.user_ns["other"]
    assert other.stop_reason == "diverged" and other.divergence.round == 1
    assert "differs from the recording" in capsys.readouterr().out
    recorded_shell.user_ns["live"] = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 3.5, "b": 3}), "Seven."])
    recorded_shell.run_line_magic("agent", "rerun r --live -m live")
    live = recorded_shell.user_ns["r_rerun"]
    assert live.stop_reason == "stop" and live.text == "Seven." and len(recorded_shell.user_ns["live"].requests) == 2


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("rerun", "name the variable holding the Run"),
        ("rerun r extra", "name the variable holding the Run"),
        ("rerun nothing", "no variable 'nothing'"),
        ("rerun m", "holds a ScriptedModel, not a Run"),
        ("rerun r --what", "unknown option"),
        ("rerun r -o 1x", "-o needs a variable name"),
        ("test r", "name the variable holding the Run and the test file"),
        ("test r out.txt", "does not end in .py"),
        ("test r t.py --tools-from", "--tools-from needs a module name"),
        ("test m t.py", "holds a ScriptedModel, not a Run"),
    ],
)
def test_bad_input_is_explained(recorded_shell, line, match):
    with pytest.raises(UsageError, match=match):
        recorded_shell.run_line_magic("agent", line)


def test_agent_test_writes_a_test_that_passes(recorded_shell, tmp_path, capsys):
    path = tmp_path / "test_add.py"
    recorded_shell.run_line_magic("agent", f"test r {path}")
    assert f"Wrote {path} and test_add.cassette.json beside it" in capsys.readouterr().out
    code, output = pytest_on(path)
    assert code == 0, output


def test_rerun_and_fork_notes_name_the_run_by_its_notebook_variable(recorded_shell, capsys):
    """Issue 43, item 10: the notes of a rerun or a fork name the recorded run by the
    notebook variable holding it (``r``), not by its id — from ``%agent`` and from Python."""
    recorded = recorded_shell.user_ns["r"]
    recorded_shell.run_line_magic("agent", "rerun r")
    out = capsys.readouterr().out
    assert "Rerun of r:" in out and "rerun of r:" in out and recorded.run_id not in out
    assert recorded_shell.run_cell("again = r.rerun()\nforked = r.fork(2)").success
    for name, words in (("again", "rerun of r:"), ("forked", "replayed from r:")):
        text = str(recorded_shell.user_ns.pop(name))
        assert words in text and recorded.run_id not in text, text
