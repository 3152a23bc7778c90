"""What ``op.check`` shows a grader: the summary of a run under a failed check (how it
ended, each pick, the answer cut to 100 characters), the list of checks that passed, each
failure's words, the checks' edges (a limit of 0, a tool checked against itself, a string
compared with a returned number's text), what it refuses to check, and pytest showing the
user's line rather than the package's (issue 45)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.lab import check as check_module

from .conftest import call


def _run(script, **options) -> op.Run:
    @op.function
    def read(path: str) -> str:
        """Read."""
        return f"contents of {path}"

    @op.function
    def to_f(c: float) -> float:
        """Celsius to Fahrenheit."""
        return c * 9 / 5 + 32

    return op.Runtime(model=op.ScriptedModel(script)).run("go", tools=[read, to_f], **options)


def _failure(check) -> str:
    with pytest.raises(AssertionError) as failed:
        check()
    return str(failed.value)


def test_the_summary_lists_each_pick_and_cuts_the_answer_to_a_hundred_characters():
    run = _run([call("read", path="ééé"), call("to_f", c=-5), "Done " + "é" * 120])
    assert op.check(run).summary() == (
        "The run ended with 'stop' after 3 round(s) and made 2 call(s):\n"
        '  1. round 1: read(path="ééé") → done: "contents of ééé"\n'
        '  2. round 2: to_f(c=-5) → done: "23.0"\n'
        'Its answer: "Done ' + "é" * 94 + '…"'
    )


def test_an_answer_of_exactly_a_hundred_characters_is_shown_whole():
    assert op.check(_run(["a" * 100])).summary().endswith(f'Its answer: "{"a" * 100}"')
    assert op.check(_run(["a" * 101])).summary().endswith(f'Its answer: "{"a" * 99}…"')


def test_the_summary_of_a_run_without_picks_or_answer_says_so():
    empty = op.check(_run([""])).summary()
    assert empty == "The run ended with 'stop' after 1 round(s) and made 0 call(s).\nIt gave no answer text."
    cut = op.check(_run([call("read", path="a"), call("read", path="b")], max_iterations=1)).summary()
    assert cut == (
        "The run ended with 'max_iterations' after 1 round(s) and made 1 call(s):\n"
        '  1. round 1: read(path="a") → done: "contents of a"\n'
        "It gave no answer text."
    )


def test_the_summary_names_a_run_that_has_not_ended_and_a_run_s_error():
    live = SimpleNamespace(messages=[], stop_reason=None, error=None, rounds=0, text="")
    assert (
        op.check(live).summary()
        == "The run has not ended after 0 round(s) and made 0 call(s).\nIt gave no answer text."
    )
    failed = SimpleNamespace(messages=[], stop_reason="error", error="the server hung up", rounds=1, text="")
    assert op.check(failed).summary().splitlines()[0] == (
        "The run ended with 'error' (the server hung up) after 1 round(s) and made 0 call(s)."
    )


def test_the_checks_that_passed_are_listed_in_words():
    run = _run([call("read", path="a"), call("to_f", c=-5), "done"])
    checker = op.check(run)
    assert repr(checker) == f"<op.check: no checks yet on run {run.run_id}>"
    checker.called("read", times=1).called("to_f").called("read", times=0, path="x")
    checker.not_called("read", path="b").not_called("zz").at_most(2).at_most(1, "read")
    checker.called_in_order("read", "to_f").returned("to_f", 23.0)
    assert repr(checker) == (
        "✓ 9 check(s) passed: called read exactly 1 time(s); called to_f; "
        'called read(path="x") exactly no time(s); did not call read(path="b"); did not call zz; '
        "≤ 2 calls; ≤ 1 calls to read; picked, in order: read(); to_f(); to_f returned 23.0"
    )
    assert checker._repr_html_() == (
        '<div class="mathjax_ignore tex2jax_ignore"><div style="color:#1a7f37">'
        "✓ 9 check(s) passed: called read exactly 1 time(s); called to_f; "
        "called read(path=&quot;x&quot;) exactly no time(s); did not call read(path=&quot;b&quot;); "
        "did not call zz; ≤ 2 calls; ≤ 1 calls to read; picked, in order: read(); to_f(); to_f returned 23.0"
        "</div></div><!--/math-inert-->"
    )


def test_arguments_are_shown_as_json_with_any_and_values_json_cannot_write_by_repr():
    run = _run([call("read", path="Zürich"), "done"])
    checker = op.check(run).called("read", path=op.ANY).not_called("read", path={1, 2})
    assert repr(checker) == '✓ 2 check(s) passed: called read(path=op.ANY); did not call read(path="{1, 2}")'
    assert _failure(lambda: op.check(run).not_called("read", path="Zürich")).splitlines()[0] == (
        'op.check: expected no call to read(path="Zürich"); the run made 1 (pick 1 first).'
    )


def test_a_limit_of_zero_holds_for_a_run_without_calls_and_counts_only_the_named_tool():
    op.check(_run(["done"])).at_most(0)
    run = _run([call("read", path="a"), call("to_f", c=1), call("read", path="b"), "done"])
    op.check(run).at_most(1, "to_f")
    assert _failure(lambda: op.check(run).at_most(1, "read")).splitlines()[0] == (
        "op.check: expected at most 1 call(s) to read; the run made 2."
    )


def test_order_checks_name_what_is_missing_and_a_tool_comes_not_after_itself():
    run = _run([call("read", path="a"), "done"])
    op.check(run).called_before("read", "read")
    assert _failure(lambda: op.check(run).called_before("to_f", "write")).splitlines()[0] == (
        "op.check: expected to_f to be called before write; the run never called to_f or write."
    )
    assert _failure(lambda: op.check(run).called_in_order()).splitlines()[0] == (
        "op.check: expected exactly 0 pick(s), in the order no picks; the run made 1."
    )


def test_a_string_matches_a_returned_value_s_text_and_nothing_else():
    run = _run([call("to_f", c=-5), "done"])
    op.check(run).returned("to_f", "23.0").returned("to_f", 23.0)
    assert _failure(lambda: op.check(run).returned("to_f", "24.0")).splitlines()[0] == (
        "op.check: expected a call to to_f that returned '24.0'; its calls returned 23.0."
    )


def test_a_predicate_without_a_name_is_named_by_its_type_and_a_long_value_is_cut():
    class AboveZero:
        def __call__(self, value: object) -> bool:
            return False

    run = _run([call("read", path="x" * 200), "done"])
    long_value = repr("contents of " + "x" * 200)
    assert _failure(lambda: op.check(run).returned("read", AboveZero())).splitlines()[0] == (
        "op.check: expected a call to read that returned a value for which AboveZero is true; "
        f"its calls returned {long_value[:99]}…."
    )
    exact = "y" * 86  # repr with its quotes and "contents of ": exactly 100 characters
    run = _run([call("read", path=exact), "done"])
    assert (
        _failure(lambda: op.check(run).returned("read", "z"))
        .splitlines()[0]
        .endswith(f"its calls returned {'contents of ' + exact!r}.")
    )


def test_an_answer_that_is_missing_contains_nothing():
    run = _run([call("read", path="a"), call("read", path="b")], max_iterations=1)
    assert _failure(lambda: op.check(run).answer_contains("X", case_sensitive=True)).splitlines()[0] == (
        "op.check: expected the answer to contain 'X'."
    )


@pytest.mark.parametrize(
    "given",
    [SimpleNamespace(messages=[]), SimpleNamespace(stop_reason="stop"), SimpleNamespace(wait=lambda: None)],
    ids=["messages only", "stop_reason only", "wait without abort"],
)
def test_anything_but_a_run_or_a_handle_is_refused_by_its_type(given):
    with pytest.raises(op.SetupError) as refused:
        op.check(given)
    assert str(refused.value) == (
        "op.check needs a Run or a RunHandle (e.g. the variable given to -o), not SimpleNamespace"
    )


FAILING_CHECKS = {
    "called": lambda c: c.called("to_f"),
    "called times": lambda c: c.called("read", times=2),
    "not_called": lambda c: c.not_called("read"),
    "at_most": lambda c: c.at_most(0),
    "called_before": lambda c: c.called_before("to_f", "read"),
    "called_in_order": lambda c: c.called_in_order("to_f"),
    "returned": lambda c: c.returned("read", "nothing"),
    "answer_contains": lambda c: c.answer_contains("absent"),
    "stopped": lambda c: c.stopped("aborted"),
}


@pytest.mark.parametrize("failing", FAILING_CHECKS.values(), ids=FAILING_CHECKS.keys())
def test_pytest_shows_the_user_s_line_not_the_checker_s_frames(failing):
    run = _run([call("read", path="a"), "done"])
    with pytest.raises(AssertionError) as failed:
        failing(op.check(run))
    shown = failed.traceback.filter(failed)  # what pytest prints: frames marked hidden left out
    assert shown, "the user's own frame is shown"
    assert all(str(entry.path) != check_module.__file__ for entry in shown)


def test_a_run_without_an_id_is_named_by_a_question_mark_until_a_check_passes():
    unnamed = SimpleNamespace(messages=[], stop_reason="stop", error=None, rounds=1, text="ok")
    checker = op.check(unnamed)
    assert repr(checker) == "<op.check: no checks yet on run ?>"
    assert repr(checker.stopped("stop")) == "✓ 1 check(s) passed: ended with 'stop'"
