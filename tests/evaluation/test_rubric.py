"""op.check(run).at_most(n, name=None), and a list of checks read as one rubric in the table."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .scenario import careful, plain_add, prompts


def twice() -> op.ScriptedModel:
    """Calls add twice, then answers."""
    return op.ScriptedModel(
        [
            op.ToolCall(name="add", arguments={"a": 1, "b": 2}),
            op.ToolCall(name="add", arguments={"a": 3, "b": 4}),
            "Done.",
        ],
        name="twice",
    )


def test_at_most_counts_every_call_or_one_tools_calls():
    run = op.Runtime(model=twice()).run("Add.", tools=[plain_add])
    assert repr(op.check(run).at_most(2).at_most(2, name="add").at_most(0, name="delete")) == (
        "✓ 3 check(s) passed: ≤ 2 calls; ≤ 2 calls to add; ≤ 0 calls to delete"
    )
    with pytest.raises(AssertionError, match=r"expected at most 1 call\(s\); the run made 2"):
        op.check(run).at_most(1)
    with pytest.raises(AssertionError, match=r"expected at most 1 call\(s\) to add; the run made 2"):
        op.check(run).at_most(1, name="add")
    with pytest.raises(ValueError, match="the limit must be an int of 0 or more"):
        op.check(run).at_most(-1)


def test_a_list_of_checks_reads_as_one_rubric_in_the_row_and_the_table():
    ev = op.evaluate(
        prompts(1),
        models=[careful(), twice()],
        tools=[plain_add],
        expect=[
            lambda run: op.check(run).called("add"),
            lambda run: op.check(run).not_called("delete").at_most(1),
        ],
        progress=False,
    )
    passed, failed = ev.rows
    assert passed.checked == ["called add", "did not call delete", "≤ 1 calls"]
    assert "called add; did not call delete; ≤ 1 calls" in ev._repr_html_()
    assert failed.verdict == "fail" and failed.why.startswith("op.check: expected at most 1 call(s); the run made 2.")
