"""A tool asks the user (``ctx.ask``): the question in its call's card, answered there.

Answers travel as approvals do: the card's box and buttons call the live run's ``answer``
on the comm thread, the tool's thread waits on an event; Stop, step mode and timeouts keep
working while a question waits, and the answers are recorded so a rerun gives them back.
"""

from __future__ import annotations

import asyncio

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._cell import answer_in_terminal
from openprogram_jupyter.jupyter._live import LiveRun

from .test_view_step_mode import card_widgets, click, wait_for

ANSWER_BOX = "your answer (Enter sends it)"


def _start(tools, script, *, step: bool = False, live: LiveRun | None = None):
    live = live or LiveRun(widgets=True, clicks=True, step=step)
    hooks = {"approve": live.approve} if step else {}
    handle = op.Runtime(model=op.ScriptedModel(script)).start(
        "go", tools=tools, step=step, ask=live.ask, on_event=live.on_event, abort=live.abort, **hooks
    )
    return live, handle


def send(live: LiveRun) -> None:
    """Click Send under the waiting question."""
    waiting = live.waiting_questions.waiting
    wait_for(live, lambda: waiting() and card_widgets(live, "Button", description="Send"), "Send")[0].click()


def _html(live: LiveRun) -> str:
    return "".join(w.value for w in card_widgets(live, "HTML"))


def _box(live: LiveRun):
    return wait_for(live, lambda: card_widgets(live, "Text", placeholder=ANSWER_BOX), "the answer box")[0]


def make_rename():
    @op.function
    def rename(path: str, ctx: op.ToolContext) -> str:
        """Rename a file, asking for the new name."""
        name = ctx.ask(f"New name for {path}?")
        return f"renamed {path} to {name}"

    return rename


def test_a_typed_answer_reaches_the_tool_and_is_recorded(recorder):
    rename = make_rename()
    live, handle = _start([rename], [op.ToolCall(name="rename", arguments={"path": "a.txt"}), "done"])
    box = _box(live)
    assert "rename asks:</b> New name for a.txt?" in _html(live)
    box.value = "b.txt"
    send(live)
    run = handle.wait(10)
    assert run.tool_results[0].text == "renamed a.txt to b.txt"
    assert run.tool_results[0].details["answers"] == [{"question": "New name for a.txt?", "answer": "b.txt"}]
    assert live.waiting_questions.waiting() == {}  # nothing waits any more


def test_choices_are_buttons_and_a_click_answers_with_its_choice(recorder):
    @op.function
    def drop(table: str, ctx: op.ToolContext) -> str:
        """Drop a table after asking."""
        return f"{table}: {ctx.ask('Really drop it?', choices=['keep', 'drop'])}"

    live, handle = _start([drop], [op.ToolCall(name="drop", arguments={"table": "users"}), "done"])
    wait_for(live, lambda: card_widgets(live, "Button", description="drop"), "the choice buttons")
    assert card_widgets(live, "Button", description="keep") and not card_widgets(live, "Text", placeholder=ANSWER_BOX)
    card_widgets(live, "Button", description="drop")[0].click()
    run = handle.wait(10)
    assert run.tool_results[0].text == "users: drop"


def test_an_empty_answer_is_refused_in_the_card_and_the_question_keeps_waiting(recorder):
    live, handle = _start([make_rename()], [op.ToolCall(name="rename", arguments={"path": "a"}), "done"])
    _box(live)
    send(live)
    wait_for(live, lambda: "The answer is empty" in _html(live), "the empty-answer message")
    assert len(live.waiting_questions.waiting()) == 1
    _box(live).value = "z"
    send(live)
    assert handle.wait(10).tool_results[0].text == "renamed a to z"


def test_stop_while_a_question_waits_ends_the_run_and_the_call(recorder):
    live, handle = _start([make_rename()], [op.ToolCall(name="rename", arguments={"path": "a"}), "never"])
    _box(live)
    live.view.on_stop_click()
    run = handle.wait(10)
    assert run.stop_reason == "aborted"
    assert run.tool_results[0].status == "cancelled"


def test_a_timeout_ends_the_wait_with_an_error_the_tool_can_catch(recorder):
    @op.function
    def polite(ctx: op.ToolContext) -> str:
        """Ask, briefly."""
        try:
            return ctx.ask("Anyone there?", timeout=0.2)
        except op.AskError as error:
            return f"no answer: {error}"

    _live, handle = _start([polite], [op.ToolCall(name="polite", arguments={}), "done"])
    run = handle.wait(10)
    assert run.tool_results[0].text == "no answer: no answer to 'Anyone there?' within 0.2 s"
    assert run.tool_results[0].details["answers"][0]["unanswered"].startswith("no answer")


def test_step_mode_then_a_question_then_the_answer(recorder):
    live, handle = _start([make_rename()], [op.ToolCall(name="rename", arguments={"path": "a"}), "done"], step=True)
    click(live, "Run")
    _box(live).value = "c"
    send(live)
    run = handle.wait(10)
    assert run.tool_results[0].text == "renamed a to c"
    assert run.tool_results[0].details["approval"] == "approved"


def test_an_async_tool_awaits_aask(recorder):
    @op.function
    async def pick(ctx: op.ToolContext) -> str:
        """Pick one."""
        await asyncio.sleep(0)
        return await ctx.aask("Which?", choices=["left", "right"])

    live, handle = _start([pick], [op.ToolCall(name="pick", arguments={}), "done"])
    wait_for(live, lambda: card_widgets(live, "Button", description="right"), "the choices")[0].click()
    assert handle.wait(10).tool_results[0].text == "right"


def test_ask_on_the_event_loop_thread_says_to_await_aask():
    @op.function
    async def wrong(ctx: op.ToolContext) -> str:
        """Asks the wrong way."""
        return ctx.ask("x?")

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="wrong", arguments={}), "done"])).run(
        "go", tools=[wrong], ask=lambda question, cancelled: "y"
    )
    assert "await ctx.aask(...)" in run.tool_results[0].text


def test_with_no_one_to_ask_the_tool_gets_a_clear_error_it_can_catch():
    @op.function
    def careful(ctx: op.ToolContext) -> str:
        """Asks; goes on without an answer."""
        try:
            return ctx.ask("Proceed?")
        except op.AskError as error:
            return f"went on: {error}"

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="careful", arguments={}), "done"])).run(
        "go", tools=[careful]
    )
    text = run.tool_results[0].text
    assert text.startswith("went on: careful asked 'Proceed?', and no one can answer in this run")
    assert "op.AskError" in text


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ("123, None, None", "the question must be a str, not int"),
        ("'  ', None, None", "the question is empty"),
        ("'q', 'yes', None", "choices must be a list of strings, not str"),
        ("'q', [], None", "choices is empty"),
        ("'q', ['a', 'a'], None", "the choices repeat one another"),
        ("'q', None, -1", "timeout must be a positive number of seconds"),
    ],
)
def test_bad_questions_are_refused_naming_the_problem(arguments, problem):
    namespace: dict = {}
    exec(  # one tool per bad call, written out so the call is the tool's own
        "import openprogram_jupyter as op\n"
        "@op.function\n"
        "def bad(ctx: op.ToolContext) -> str:\n"
        "    '''Asks badly.'''\n"
        f"    return ctx.ask({arguments})\n",
        namespace,
    )
    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="bad", arguments={}), "done"])).run(
        "go", tools=[namespace["bad"]], ask=lambda question, cancelled: "y"
    )
    assert problem in run.tool_results[0].text


def test_a_rerun_gives_the_recorded_answers_back_without_asking():
    asked = []

    def asker(question, cancelled):
        asked.append(question.text)
        return "b.txt"

    rename = make_rename()
    script = [op.ToolCall(name="rename", arguments={"path": "a.txt"}), "done"]
    run = op.Runtime(model=op.ScriptedModel(script)).run("go", tools=[rename], ask=asker)
    again = run.rerun(tools=[rename])  # no ask=: a question asked again would raise AskError
    assert asked == ["New name for a.txt?"]
    assert again.divergence is None
    assert again.tool_results[0].text == "renamed a.txt to b.txt"
    assert again.tool_results[0].details["answers"] == [
        {"question": "New name for a.txt?", "answer": "b.txt", "recorded": True}
    ]


def test_a_nested_run_asks_the_same_person():
    asked = []

    @op.function
    def inner(ctx: op.ToolContext) -> str:
        """Inner."""
        return ctx.ask("inner question?")

    @op.function
    def outer(ctx: op.ToolContext) -> str:
        """Starts a run inside."""
        nested = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="inner", arguments={}), "ok"])).run(
            "inside", tools=[inner]
        )
        return nested.tool_results[0].text

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="outer", arguments={}), "done"])).run(
        "go", tools=[outer], ask=lambda question, cancelled: asked.append(question.text) or "yes"
    )
    assert run.tool_results[0].text == "yes" and asked == ["inner question?"]


def test_in_a_terminal_the_question_is_input_and_a_choice_may_be_its_number(monkeypatch):
    from openprogram_jupyter.core._asking import Question

    typed = iter(["", "maybe", "2"])
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or next(typed))
    assert answer_in_terminal(Question("c1", "drop", "Sure?\x1b[2J", ("no", "yes"))) == "yes"
    assert len(prompts) == 3
    assert "\x1b" not in prompts[0] and "1. no" in prompts[0] and "2. yes" in prompts[0]


def test_the_timeout_is_measured_on_the_questions_clock():
    import threading

    from openprogram_jupyter.core._asking import Question
    from openprogram_jupyter.jupyter._questions import WaitingQuestions

    now = [100.0]
    waiting = WaitingQuestions(threading.Event(), clock=lambda: now[0])
    seen = []

    def advance():  # the clock moves only once the question is on screen: 29.9 s waits on, 30 s ends it
        while not waiting.waiting():
            threading.Event().wait(0.01)
        now[0] = 129.9
        threading.Event().wait(0.2)
        seen.append(bool(waiting.waiting()))
        now[0] = 130.0

    mover = threading.Thread(target=advance)
    mover.start()
    with pytest.raises(op.AskError, match=r"no answer to 'Go\?' within 30 s"):
        waiting.wait(Question("c1", "t", "Go?", timeout=30), threading.Event())
    mover.join()
    assert seen == [True] and waiting.waiting() == {}
