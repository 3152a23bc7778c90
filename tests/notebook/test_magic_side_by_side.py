"""``%%agent -m A,B`` in one process (no kernel): both models run the cell, ``-o`` holds a
dict from model to Run, the saved transcript has a part per model; bad combinations are refused."""

from __future__ import annotations

import threading

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._side_by_side import side_by_side_bundle


@pytest.fixture
def two_models(shell):
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    shell.user_ns["a"] = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 1, "b": 2}), "Three."], name="a")
    shell.user_ns["b"] = op.ScriptedModel(["Three, without a tool."], name="b")
    yield shell
    for name in ("a", "b", "r"):
        shell.user_ns.pop(name, None)


def test_the_cell_runs_on_each_model_and_o_holds_a_dict_of_runs(two_models, capsys):
    assert two_models.run_cell("%%agent -m a,b -o r\nAdd 1 and 2.").success
    runs = two_models.user_ns["r"]
    assert list(runs) == ["a", "b"]
    assert (runs["a"].text, runs["b"].text) == ("Three.", "Three, without a tool.")
    assert [m.text for m in two_models.user_ns["b"].requests[0].messages] == ["Add 1 and 2."]
    assert two_models.user_ns["runtime"].last_run in runs.values()
    out = capsys.readouterr().out
    assert out.index("== a ==") < out.index("Three.") < out.index("== b ==") < out.index("Three, without a tool.")


def test_the_runs_go_on_at_the_same_time(two_models):
    both_running = threading.Barrier(2, timeout=10)

    @op.function
    def meet() -> str:
        """Wait until the other model's run is in its tool too."""
        both_running.wait()
        return "met"

    for name in ("a", "b"):
        two_models.user_ns[name] = op.ScriptedModel([op.ToolCall(name="meet", arguments={}), "Done."], name=name)
    assert two_models.run_cell("%%agent -m a,b -o r --tools meet\nMeet.").success
    runs = two_models.user_ns["r"]
    assert [runs[n].tool_results[0].content[0].text for n in ("a", "b")] == ["met", "met"]


@pytest.mark.parametrize(
    ("flags", "match"),
    [
        ("-m a,a", "name each model once"),
        ("-m a,", "name each model once"),
        ("-m a,b -s chat", "-s runs one model"),
        ("-m a,b --background", "--background runs one model"),
        ("-m a,nothing", "'nothing' names neither"),
    ],
)
def test_bad_model_lists_are_refused_before_anything_runs(two_models, flags, match):
    from openprogram_jupyter.jupyter import _LOADED

    with pytest.raises(UsageError, match=match):
        _LOADED[id(two_models)].plans(flags, "Add 1 and 2.")
    assert not two_models.user_ns["a"].requests


def test_the_saved_html_is_a_table_with_a_column_per_model_and_escaped_names():
    bundles = [
        {"text/html": "<p>one</p>", "text/markdown": "one", "text/plain": "one"},
        {"text/html": "<p>two</p>", "text/markdown": "two", "text/plain": "two"},
    ]
    bundle = side_by_side_bundle(["<m1>", "m2"], bundles)
    assert bundle["text/html"].count("<td") == 2 and bundle["text/html"].count("<th ") == 2
    assert "&lt;m1&gt;" in bundle["text/html"] and "<m1>" not in bundle["text/html"]
    assert bundle["text/markdown"].startswith("### `<m1>`")
    assert bundle["text/plain"] == "== <m1> ==\none\n\n== m2 ==\ntwo"
