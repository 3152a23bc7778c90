"""The course's rules hold for every run in the process, whichever door it came in by, and
only ever tighten (docs/teaching.md, "Setting up a course")."""

from __future__ import annotations

import pytest
from fakeserver import FakeServer, Turn

import openprogram_jupyter as op
from openprogram_jupyter.core import _course
from openprogram_jupyter.core._course import CourseRefusal, CourseRules, course_policy
from openprogram_jupyter.jupyter._course_settings import find_context_files
from openprogram_jupyter.models.base import Usage


@pytest.fixture(autouse=True)
def no_course():
    _course._forget_for_tests()
    yield
    _course._forget_for_tests()


@op.function
def shell_run(command: str) -> str:
    """Run a shell command."""
    return f"ran {command}"


@op.function
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _calling(name: str, **arguments: object) -> op.ScriptedModel:
    return op.ScriptedModel([op.ToolCall(name=name, arguments=arguments), "done"])


def test_off_refuses_every_run_in_one_line_naming_the_rule():
    _course.install(CourseRules(mode="off", sources={"mode": "set in /etc/ipython/ipython_config.py"}))
    with pytest.raises(CourseRefusal) as refused:
        op.Runtime(model="offline").run("hi", tools=[])
    assert str(refused.value) == (
        "the course turned the agent off (mode = 'off', set in /etc/ipython/ipython_config.py)"
    )


def test_replay_only_refuses_a_scripted_model_and_keeps_offline():
    _course.install(CourseRules(mode="replay-only"))
    with pytest.raises(CourseRefusal, match="only replay: cassettes and the offline model"):
        op.Runtime(model=_calling("add", a=1, b=2)).run("add", tools=[add])
    assert op.Runtime(model="offline").run("hi", tools=[]).stop_reason == "stop"


def test_allowed_models_refuses_a_model_string_where_it_is_resolved():
    _course.install(CourseRules(allowed_models=(("openai:gpt-4.1-mini",),), sources={"allowed_models": "set in x"}))
    with pytest.raises(CourseRefusal) as refused:
        op.Runtime(model="anthropic:claude-sonnet-4-5", api_key="k").model  # noqa: B018
    assert str(refused.value) == (
        "the course allows only the models openai:gpt-4.1-mini (allowed_models, set in x); "
        "anthropic:claude-sonnet-4-5 is not one of them"
    )


def test_allowed_models_from_a_second_list_must_match_both():
    rules = CourseRules(allowed_models=(("openai:*",),)).tightened(CourseRules(allowed_models=(("*:gpt-4.1*",),)))
    assert rules.model_refusal("openai:gpt-4.1-mini", sends_nothing=False, replayed=False) is None
    assert rules.model_refusal("openai:gpt-5", sends_nothing=False, replayed=False) is not None


def test_tools_deny_globs_leave_tools_off_the_menu_even_when_named():
    _course.install(CourseRules(tools_deny=("shell_*",)))
    run = op.Runtime(model=_calling("shell_run", command="ls")).run("go", tools=[shell_run, add])
    assert run.tools == ["add"]
    assert run.messages[2].status == "error"  # unknown tool: it never ran


def test_tools_deny_holds_for_a_run_with_its_own_permissive_policy():
    _course.install(CourseRules(tools_deny=("shell_*",)))
    runtime = op.Runtime(model=_calling("shell_run", command="ls"), approve=op.policy(allow=["*"]))
    run = runtime.run("go", tools=[shell_run])
    assert run.tools == []


def test_require_approval_comes_before_a_students_allow_all_policy():
    _course.install(CourseRules(policies=(course_policy({"deny": ["add"]}),)))
    runtime = op.Runtime(model=_calling("add", a=1, b=2), approve=op.policy(allow=["*"]))
    run = runtime.run("add", tools=[add])
    result = run.messages[2]
    assert result.status == "denied"
    assert "approval policy" in result.text


def test_require_approval_holds_in_a_fork_given_its_own_approver():
    _course.install(CourseRules(policies=(course_policy({"deny": ["add"]}),)))
    model = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 1, "b": 2}), "done"] * 2)
    run = op.Runtime(model=model).run("add", tools=[add])
    forked = run.fork(1, approve=lambda request: True)
    assert [m.status for m in forked.messages if m.role == "toolResult"] == ["denied"]


def test_course_ask_without_anyone_to_ask_is_denied_and_step_mode_still_needs_an_approver():
    _course.install(CourseRules(policies=(course_policy({"ask": ["add"]}),)))
    run = op.Runtime(model=_calling("add", a=1, b=2)).run("add", tools=[add])
    assert run.messages[2].status == "denied"
    with pytest.raises(op.SetupError, match="step=True needs an approver"):
        op.Runtime(model=_calling("add", a=1, b=2)).run("add", tools=[add], step=True)


def test_session_caps_bound_each_run_and_refuse_once_spent():
    _course.install(CourseRules(max_tokens_per_session=30))
    usage = Usage(input=10, output=10)
    model = op.ScriptedModel([op.AssistantMessage(content=[op.TextContent(text="one")], usage=usage)] * 3)
    runtime = op.Runtime(model=model)
    first = runtime.run("one", tools=[], max_tokens=1_000_000)
    assert first.spec.settings["max_tokens"] == 30
    runtime.run("two", tools=[])
    with pytest.raises(CourseRefusal, match="token budget for this session is spent"):
        runtime.run("three", tools=[])


def test_a_later_install_only_tightens():
    _course.install(CourseRules(max_cost_per_session=1.0, mode="replay-only", tools_deny=("shell_*",)))
    rules = _course.install(CourseRules(max_cost_per_session=50.0, mode="normal", tools_deny=()))
    assert (rules.max_cost_per_session, rules.mode, rules.tools_deny) == (1.0, "replay-only", ("shell_*",))
    rules = _course.install(CourseRules(max_cost_per_session=0.5, tools_deny=("rm",)))
    assert (rules.max_cost_per_session, rules.tools_deny) == (0.5, ("shell_*", "rm"))


def test_a_bad_require_approval_names_the_key():
    with pytest.raises(op.SetupError, match=r"unknown key.*'alow'"):
        course_policy({"alow": ["add"]})


def test_the_view_header_says_what_the_session_has_left():
    from openprogram_jupyter.jupyter._header import _course_left

    assert _course_left(Usage(input=5, output=5), finished=False) is None
    _course.install(CourseRules(max_tokens_per_session=50, max_cost_per_session=1.0))
    _course.session_spend().add(0.25, 20)
    assert _course_left(Usage(input=5, output=5, cost=0.05), finished=False) == (
        "course: $0.7000 / 20 tokens left this session"
    )
    assert _course_left(Usage(input=5, output=5, cost=0.05), finished=True) == (
        "course: $0.7500 / 30 tokens left this session"
    )


def test_course_context_goes_first_in_the_system_prompt_on_the_wire(tmp_path):
    course = tmp_path / "course"
    (course / "week3").mkdir(parents=True)
    (course / "COURSE.md").write_text("Answer in French. Never give the full solution.\n" * 100)
    found, missing = find_context_files(["COURSE.md", "RUBRIC.md"], course / "week3")
    assert [item.path for item in found] == [str(course / "COURSE.md")] and missing == ["RUBRIC.md"]
    _course.install(CourseRules(context=found))
    assert _course.installed().context_summary() == "course context (COURSE.md, 1.2k tokens)"
    with FakeServer() as server:
        server.script(Turn(text="Bonjour."))
        runtime = op.Runtime(model="openai:gpt-4.1-mini", api_key="sk-test-not-real", base_url=server.openai_base_url)
        runtime.run("Hi", tools=[], system="Be brief.")
        system = server.requests[0].body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("Course context (COURSE.md):\nAnswer in French.")
    assert system["content"].endswith("Never give the full solution.\n\nBe brief.")


def test_budget_words_under_an_ordinary_error_type_end_the_run_as_an_ordinary_refusal():
    """Only the error's type or code says a budget is spent (tests/providers/test_gateway_budget.py)."""
    with FakeServer() as server:
        server.script(Turn.http_error(400, "Budget has been exceeded! Current cost: 0.51, Max budget: 0.5"))
        runtime = op.Runtime(model="openai:gpt-4.1-mini", api_key="sk-student-1", base_url=server.openai_base_url)
        run = runtime.run("Hi", tools=[])
    assert run.stop_reason == "error"
    assert str(run.error) == (
        "openai:gpt-4.1-mini failed, HTTP 400, invalid_request_error: "
        "Budget has been exceeded! Current cost: 0.51, Max budget: 0.5"
    )
