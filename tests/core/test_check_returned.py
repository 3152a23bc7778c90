"""``op.check(run).returned(name, value_or_predicate)``: what a tool returned, for graders
(issue 52 item 5): the tool's own value or the text the model read, a predicate, failures
that list what the calls returned, and a predicate that raises."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .conftest import call


def _run(script) -> op.Run:
    @op.function
    def to_f(celsius: float) -> float:
        """Celsius to Fahrenheit."""
        if celsius < -273.15:
            raise ValueError("below absolute zero")
        return celsius * 9 / 5 + 32

    return op.Runtime(model=op.ScriptedModel(script)).run("go", tools=[to_f])


def _failure(check) -> str:
    with pytest.raises(AssertionError) as failed:
        check()
    return str(failed.value).splitlines()[0]


def test_the_value_the_tool_returned_or_the_text_the_model_read_matches():
    run = _run([call("to_f", celsius=-5), call("to_f", celsius=100), "done"])
    checked = op.check(run).returned("to_f", 23.0).returned("to_f", "212.0").returned("to_f", 212)
    assert checked.passed == ["to_f returned 23.0", "to_f returned '212.0'", "to_f returned 212"]


def test_a_predicate_is_called_with_each_value_until_one_holds():
    run = _run([call("to_f", celsius=-5), call("to_f", celsius=100), "done"])
    seen = []

    def boiling(value):
        seen.append(value)
        return value >= 212

    assert op.check(run).returned("to_f", boiling).passed == ["to_f returned a value for which boiling is true"]
    assert seen == [23.0, 212.0]


def test_a_value_no_call_returned_fails_listing_what_they_returned():
    run = _run([call("to_f", celsius=-5), call("to_f", celsius=100), "done"])
    assert _failure(lambda: op.check(run).returned("to_f", 0.0)) == (
        "op.check: expected a call to to_f that returned 0.0; its calls returned 23.0, 212.0."
    )
    assert _failure(lambda: op.check(run).returned("to_f", lambda v: v < 0)) == (
        "op.check: expected a call to to_f that returned a value for which <lambda> is true; "
        "its calls returned 23.0, 212.0."
    )


def test_a_call_that_failed_returned_nothing():
    run = _run([call("to_f", celsius=-300), "done"])
    assert run.tool_results[0].status == "error"
    assert _failure(lambda: op.check(run).returned("to_f", 23.0)) == (
        "op.check: expected a call to to_f that returned 23.0; no call to to_f ran and returned."
    )


def test_a_predicate_that_raises_fails_the_check_naming_the_error():
    run = _run([call("to_f", celsius=-5), "done"])
    assert _failure(lambda: op.check(run).returned("to_f", str.isdigit)) == (
        "op.check: expected a call to to_f that returned a value for which isdigit is true; "
        "isdigit raised TypeError on pick 1's value 23.0."
    )


def test_a_run_that_no_longer_holds_the_value_compares_the_text_the_model_read():
    run = _run([call("to_f", celsius=-5), "done"])
    run.tool_results[0].keep_returned(None)  # as a run restored from a saved notebook has it
    op.check(run).returned("to_f", "23.0").returned("to_f", lambda text: text == "23.0")
    assert _failure(lambda: op.check(run).returned("to_f", 23.0)) == (
        "op.check: expected a call to to_f that returned 23.0; its calls returned '23.0'."
    )
