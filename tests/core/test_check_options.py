"""``op.check``'s options where a grader relies on them: matching the answer with or
without case (Unicode case folding, not lowercasing), picks that did not run still count as
calls for ``not_called`` / ``at_most`` and not for ``ok=True``, order by each tool's first
call, and the refusals of a bad limit or stop reason (issue 45 item 3)."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .conftest import call


def _run(script, **options) -> op.Run:
    @op.function
    def read(path: str) -> str:
        """Read."""
        return f"contents of {path}"

    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete."""
        return "deleted"

    return op.Runtime(model=op.ScriptedModel(script)).run("go", tools=[read, delete], **options)


def _failure(check) -> str:
    with pytest.raises(AssertionError) as failed:
        check()
    return str(failed.value).splitlines()[0]


def test_the_answer_is_matched_in_any_case_by_unicode_folding_unless_case_sensitive():
    run = _run(["Die Straße ist Frei."])
    op.check(run).answer_contains("STRASSE").answer_contains("frei")
    assert _failure(lambda: op.check(run).answer_contains("frei", case_sensitive=True)) == (
        "op.check: expected the answer to contain 'frei'."
    )
    assert _failure(lambda: op.check(run).answer_contains("Gasse")) == (
        "op.check: expected the answer to contain 'Gasse' (any case)."
    )


def test_a_denied_pick_is_a_call_for_not_called_and_at_most_but_not_for_ok():
    run = _run([call("read", path="a"), call("delete", path="a"), "done"])  # delete: no approver, denied
    assert run.tool_results[1].status == "denied"
    assert _failure(lambda: op.check(run).not_called("delete")) == (
        "op.check: expected no call to delete; the run made 1 (pick 2 first)."
    )
    op.check(run).not_called("delete", path="b").at_most(2).at_most(1, "delete")
    assert _failure(lambda: op.check(run).at_most(1)) == "op.check: expected at most 1 call(s); the run made 2."
    assert _failure(lambda: op.check(run).called_in_order("read", "delete", ok=True)) == (
        "op.check: expected pick 2 to be delete() that ran and returned, in the order read(); delete()."
    )


def test_order_is_by_each_tool_s_first_call():
    run = _run([call("read", path="a"), call("delete", path="a"), call("read", path="b"), "done"])
    op.check(run).called_before("read", "delete")
    assert _failure(lambda: op.check(run).called_before("delete", "read")) == (
        "op.check: expected delete to be called before read; read came first (pick 1, delete at pick 2)."
    )


@pytest.mark.parametrize("limit", [-1, 1.5, True, "2"])
def test_a_limit_that_is_not_a_count_is_refused_by_name(limit):
    with pytest.raises(op.SetupError) as refused:
        op.check(_run(["done"])).at_most(limit)
    assert str(refused.value) == f"op.check(...).at_most({limit!r}): the limit must be an int of 0 or more"


def test_a_stop_reason_no_run_ends_with_is_refused_listing_those_it_can():
    with pytest.raises(op.SetupError) as refused:
        op.check(_run(["done"])).stopped("finished")
    assert str(refused.value).startswith("op.check(...).stopped('finished'): a run ends with one of stop, ")
