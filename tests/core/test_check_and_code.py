"""``op.check`` (grading a run) and ``run.to_code()`` (its picks as Python)."""

from __future__ import annotations

import datetime

import pytest
from pydantic import BaseModel

import openprogram_jupyter as op
from openprogram_jupyter.tools.results import result_content

from .conftest import call


@pytest.fixture
def lesson():
    @op.function
    def celsius_to_fahrenheit(celsius: float) -> float:
        """Convert Celsius to Fahrenheit."""
        return celsius * 9 / 5 + 32

    @op.function
    def is_freezing(fahrenheit: float) -> bool:
        """Whether water freezes."""
        return fahrenheit <= 32

    model = op.ScriptedModel(
        [
            call("celsius_to_fahrenheit", celsius=-5),
            call("is_freezing", fahrenheit=23.0),
            "-5 °C is 23 °F: the pond is Frozen.",
        ]
    )
    return op.Runtime(model=model).run("Is it frozen?", tools=[celsius_to_fahrenheit, is_freezing])


def test_checks_that_hold_chain_and_say_what_they_checked(lesson):
    checker = (
        op.check(lesson)
        .called("celsius_to_fahrenheit", celsius=-5)
        .called("is_freezing", times=1, fahrenheit=op.ANY)
        .called("is_freezing", ok=True)
        .called_before("celsius_to_fahrenheit", "is_freezing")
        .not_called("delete")
        .answer_contains("frozen")
        .stopped("stop")
    )
    assert len(checker.passed) == 7
    assert repr(checker).startswith("✓ 7 check(s) passed")


def test_called_in_order_takes_names_and_arguments_and_ok(lesson):
    checker = op.check(lesson).called_in_order(("celsius_to_fahrenheit", {"celsius": -5}), "is_freezing", ok=True)
    assert checker.passed == ["picked, in order: celsius_to_fahrenheit(celsius=-5); is_freezing()"]
    assert op.check(lesson.runtime.run("Nothing.", tools=[])).called_in_order().passed  # no picks: none expected


def test_called_in_order_with_ok_needs_each_pick_to_have_run(lesson):
    @op.function
    def is_freezing(fahrenheit: float) -> bool:
        """Whether water freezes."""
        raise ValueError("thermometer broken")

    failed = lesson.rerun(live=True, runtime=op.Runtime(model=op.ScriptedModel(["Unknown."])))
    op.check(failed).called_in_order("celsius_to_fahrenheit", "is_freezing")
    with pytest.raises(AssertionError, match="expected pick 2 to be is_freezing\\(\\) that ran and returned"):
        op.check(failed).called_in_order("celsius_to_fahrenheit", "is_freezing", ok=True)


@pytest.mark.parametrize(
    ("make_check", "expected"),
    [
        (
            lambda c: c.called("celsius_to_fahrenheit", celsius=10),
            "expected a call to celsius_to_fahrenheit(celsius=10)",
        ),
        (lambda c: c.called("is_freezing", times=2), "expected 2 call(s) to is_freezing; the run made 1"),
        (lambda c: c.not_called("is_freezing"), "expected no call to is_freezing; the run made 1 (pick 2 first)"),
        (lambda c: c.called_before("is_freezing", "celsius_to_fahrenheit"), "celsius_to_fahrenheit came first"),
        (lambda c: c.called_before("delete", "is_freezing"), "the run never called delete"),
        (lambda c: c.answer_contains("Frozen", case_sensitive=False).answer_contains("boiling"), "contain 'boiling'"),
        (lambda c: c.stopped("max_iterations"), "expected the run to end with 'max_iterations'"),
        (
            lambda c: c.called_in_order("is_freezing", "celsius_to_fahrenheit"),
            "expected pick 1 to be is_freezing(), in the order is_freezing(); celsius_to_fahrenheit()",
        ),
        (
            lambda c: c.called_in_order("celsius_to_fahrenheit"),
            "expected exactly 1 pick(s), in the order celsius_to_fahrenheit(); the run made 2",
        ),
        (
            lambda c: c.called_in_order("celsius_to_fahrenheit", "is_freezing", "is_freezing"),
            "expected exactly 3 pick(s)",
        ),
        (
            lambda c: c.called_in_order(("celsius_to_fahrenheit", {"celsius": 5}), "is_freezing"),
            "expected pick 1 to be celsius_to_fahrenheit(celsius=5)",
        ),
    ],
)
def test_a_failing_check_names_what_was_expected_and_lists_what_the_run_did(lesson, make_check, expected):
    with pytest.raises(AssertionError) as raised:
        make_check(op.check(lesson))
    message = str(raised.value)
    assert expected in message
    # The actual calls, in order, with their arguments and results, and the answer.
    assert '1. round 1: celsius_to_fahrenheit(celsius=-5) → done: "23.0"' in message
    assert '2. round 2: is_freezing(fahrenheit=23.0) → done: "true"' in message
    assert 'Its answer: "-5 °C is 23 °F: the pond is Frozen."' in message


def test_ok_counts_only_picks_that_ran_and_a_denied_pick_still_counts_as_called():
    @op.function(requires_approval=True)
    def delete(path: str) -> str:
        """Delete."""
        return "deleted"

    run = op.Runtime(model=op.ScriptedModel([call("delete", path="a"), "no"])).run("go", tools=[delete])
    op.check(run).called("delete", path="a")
    with pytest.raises(AssertionError, match="that ran and returned; the run made none"):
        op.check(run).called("delete", ok=True)


def test_an_argument_named_times_is_matched_through_arguments():
    @op.function
    def repeat(word: str, times: int) -> str:
        """Repeat."""
        return word * times

    run = op.Runtime(model=op.ScriptedModel([call("repeat", word="a", times=3), "aaa"])).run("go", tools=[repeat])
    op.check(run).called("repeat", arguments={"times": 3})
    with pytest.raises(AssertionError):
        op.check(run).called("repeat", arguments={"times": 4})


def test_an_edited_pick_matches_both_the_models_and_the_users_arguments(lesson):
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    model = op.ScriptedModel([call("add", a=1, b=2), "3"])
    run = op.Runtime(model=model).run("go", tools=[add], step=True, approve=lambda r: op.edit(a=5, b=5))
    op.check(run).called("add", a=1).called("add", a=5)
    with pytest.raises(AssertionError, match=r"add\(a=1, b=2\) \[the user edited it to \(a=5, b=5\)\]"):
        op.check(run).called("add", a=9)


def test_a_handle_is_waited_for_and_anything_else_is_refused(lesson):
    model = op.ScriptedModel([call("celsius_to_fahrenheit", celsius=0), "32"], delay=0.05)
    handle = op.Runtime(model=model).start("go", tools=[op.default_registry.get("celsius_to_fahrenheit")])
    op.check(handle).called("celsius_to_fahrenheit", celsius=0).stopped("stop")
    with pytest.raises(TypeError, match="needs a Run or a RunHandle"):
        op.check("run")
    with pytest.raises(ValueError, match="one of stop, max_iterations, max_cost, max_tokens, error, aborted"):
        op.check(lesson).stopped("finished")


def test_to_code_reproduces_every_result_without_a_model(lesson):
    source = lesson.to_code()
    assert "celsius_to_fahrenheit_1 = celsius_to_fahrenheit(celsius=-5)" in source
    assert "is_freezing_1 = is_freezing(fahrenheit=23.0)" in source
    namespace = {tool.name: tool for tool in op.default_registry}
    exec(compile(source, "<to_code>", "exec"), namespace)
    results = lesson.tool_results
    values = [namespace["celsius_to_fahrenheit_1"], namespace["is_freezing_1"]]
    assert [result_content(v)[0][0].text for v in values] == [r.text for r in results]


def test_to_code_comments_picks_that_did_not_run_and_uses_what_the_user_ran():
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @op.function
    def boom() -> str:
        """Fails."""
        raise ValueError("no luck")

    model = op.ScriptedModel([[call("add", a=1, b=2), call("boom"), call("add", a=3, b=3)], "done"])
    answers = iter([op.edit(a=10, b=20), True, op.skip("enough adding")])
    run = op.Runtime(model=model).run("go", tools=[add, boom], step=True, approve=lambda r: next(answers))
    lines = run.to_code().splitlines()
    assert "add_1 = add(a=10, b=20)" in lines
    assert "# round 1: the model asked for add(a=1, b=2); the user edited the arguments" in lines
    assert "# round 1: boom() failed: Error: boom raised ValueError: no luck" in lines
    assert "# round 1: add(a=3, b=3) was skipped: skipped by the user: enough adding. The call did not run." in lines
    namespace = {"add": add, "boom": boom}
    exec("\n".join(lines), namespace)
    assert namespace["add_1"] == 30 and "add_2" not in namespace


class Window(BaseModel):
    start: datetime.date
    days: int


def test_to_code_passes_converted_arguments_through_the_tools_own_check():
    @op.function
    def book(window: Window) -> str:
        """Book."""
        return f"{window.start.isoformat()} for {window.days} days"

    model = op.ScriptedModel([call("book", window={"start": "2026-12-24", "days": 3}), "booked"])
    run = op.Runtime(model=model).run("go", tools=[book])
    source = run.to_code()
    assert "book_1 = book(**book.validate({'window': {'start': '2026-12-24', 'days': 3}}))" in source
    namespace = {"book": book}
    exec(source, namespace)
    assert namespace["book_1"] == run.tool_results[0].text == "2026-12-24 for 3 days"


def test_to_code_of_a_run_without_calls_says_so():
    run = op.Runtime(model=op.ScriptedModel(["hello"])).run("hi", tools=[])
    assert run.to_code().endswith("# The run made no tool calls.\n")


HOSTILE_TEXTS = [
    "x\nimport os\nos.system('echo pwned')  #",
    "x\rprint('pwned')",
    "x\r\nprint('pwned')",
    "x\x0cprint('pwned')",
    "x\x0bprint('pwned')",
    "x\x1cprint('pwned')",
    "x\x85print('pwned')",
    "x\u2028print('pwned')",
    "x\u2029print('pwned')",
]


def test_to_code_of_hostile_names_and_errors_calls_only_the_runs_own_tools():
    """Untrusted text (the model's tool names and model name, a tool's error message)
    ends up in comments and literals only: the source's code is calls of the run's tools."""
    import ast
    import io
    import tokenize

    @op.function
    def parse_date(text: str) -> str:
        """Parse a date."""
        raise ValueError(f"bad date: {text}")

    @op.function
    def echo(text: str) -> str:
        """Echo."""
        return text

    picks = []
    for hostile in HOSTILE_TEXTS:
        picks += [call(hostile), call("parse_date", text=hostile), call("echo", **{hostile: hostile})]
    picks.append(call("echo", text="fine"))
    run = op.Runtime(model=op.ScriptedModel([picks, "done"])).run("go", tools=[parse_date, echo])
    run.model = "scripted\nprint('pwned')"
    source = run.to_code()

    names_in_code = {
        token.string for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == tokenize.NAME
    }
    assert names_in_code == {"echo", "echo_1", "text"}  # the one pick that ran: echo(text="fine")
    tree = ast.parse(source)
    assert [type(node) for node in tree.body] == [ast.Assign]
    assert tree.body[0].value.func.id == "echo"
    lines = source.splitlines()
    assert len(lines) == len(source.split("\n")) - 1  # no line terminator but "\n" anywhere
    comments = [line for line in lines if line.startswith("#")]
    assert len(comments) == len(lines) - 1
    assert (
        "# round 1: parse_date(text=\"x\\rprint('pwned')\") failed: Error: parse_date raised ValueError: "
        "bad date: x\n" in source
    )  # an error's first line, cut where any line terminator starts
    assert "(model scripted\\nprint('pwned'))" in source
    namespace = {"echo": echo, "parse_date": parse_date}
    exec(compile(source, "<to_code>", "exec"), namespace)
    assert namespace["echo_1"] == "fine"


def test_to_code_masks_a_known_key_in_arguments_and_errors(monkeypatch):
    key = "sk-test-" + "k3y" * 8
    monkeypatch.setenv("OPENAI_API_KEY", key)

    @op.function
    def login(token: str) -> str:
        """Log in."""
        raise PermissionError(f"token {token} refused")

    run = op.Runtime(model=op.ScriptedModel([call("login", token=key), "no"])).run("go", tools=[login])
    source = run.to_code()
    assert key not in source and "***" in source


def test_a_failing_check_masks_a_known_key_and_shows_in_ipython_as_its_message_alone(monkeypatch):
    key = "sk-proj-" + "Zq9" * 10
    monkeypatch.setenv("OPENAI_API_KEY", key)

    @op.function
    def login(token: str) -> str:
        """Log in."""
        return f"logged in with {token}"

    run = op.Runtime(model=op.ScriptedModel([call("login", token=key), f"Used {key}."])).run("go", tools=[login])
    with pytest.raises(AssertionError) as failed:
        op.check(run).not_called("login")
    message = str(failed.value)
    assert key not in message and "***" in message and "expected no call to login" in message
    assert failed.value._render_traceback_() == [f"AssertionError: {message}"]
    with pytest.raises(AssertionError) as failed:  # the expectation itself quotes the key
        op.check(run).called("login", times=2, token=key)
    assert key not in str(failed.value) and "expected 2 call(s) to login(token=" in str(failed.value)
    passed = op.check(run).called("login", token=key)
    assert key not in repr(passed) and key not in passed._repr_html_()


def test_to_code_writes_the_whole_source_numbering_only_the_calls_that_ran():
    """What mutmut found unpinned in engine/_run_code.py: the header, a refused call's comment
    with its round, an error cut to 160 characters, and numbers that skip refused calls."""

    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @op.function
    def boom(text: str) -> str:
        """Fails."""
        raise ValueError(text)

    rounds = [[call("add", a=1, b=2), call("add", a=3, b=4), call("boom", text="x" * 200)], call("add", a=5, b=6)]
    model = op.ScriptedModel([*rounds, call("add", a=7, b=8), "done"])
    answers = iter([True, False, True, True, False])
    run = op.Runtime(model=model).run("go", tools=[add, boom], step=True, approve=lambda r: next(answers))
    error = ("Error: boom raised ValueError: " + "x" * 200)[:159] + "…"
    assert run.to_code() == "\n".join(
        [
            "# The picks of the run (model scripted), in order, as direct calls.",
            "# Run this cell to call the tools again, without any model.",
            "add_1 = add(a=1, b=2)",
            "# round 1: add(a=3, b=4) was denied: denied: the user did not approve this call to add",
            f"# round 1: boom(text={'x' * 200!r}) failed: {error}",
            "add_2 = add(a=5, b=6)",
            "# round 3: add(a=7, b=8) was denied: denied: the user did not approve this call to add",
            "",
        ]
    )
