"""Approval policies (``op.policy``): which rule decides a call, in a run and on their own."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import Rule, SessionRules

READ_ASK_DENY = dict(allow=["read_*", "search"], ask=["write_*"], deny=["drop_*"])


def decided(policy, name, arguments=None):
    decision = policy.decide(name, arguments or {})
    return (
        None
        if decision is None
        else (decision.action, decision.rule.pattern if decision.rule else None, decision.source)
    )


@pytest.mark.parametrize(
    ("name", "default", "expected"),
    [
        ("read_file", "ask", ("allow", "read_*", "policy")),
        ("search", "ask", ("allow", "search", "policy")),
        ("search_web", "ask", ("ask", None, "default")),  # "search" is a whole name, not a prefix
        ("write_file", "allow", ("ask", "write_*", "policy")),
        ("drop_table", "allow", ("deny", "drop_*", "policy")),
        ("list_files", "ask", ("ask", None, "default")),
        ("list_files", "deny", ("deny", None, "default")),
        ("list_files", "allow", ("allow", None, "default")),
        ("list_files", None, None),  # no rule, no default: as without a policy
        ("Read_file", "deny", ("deny", None, "default")),  # globs are case sensitive
    ],
)
def test_the_policy_matrix(name, default, expected):
    assert decided(op.policy(**READ_ASK_DENY, default=default), name) == expected


def test_deny_is_checked_before_ask_and_allow_whatever_the_keyword_order():
    policy = op.policy(allow=["*"], ask=["drop_*", "write_*"], deny=["drop_*"])
    assert decided(policy, "drop_table") == ("deny", "drop_*", "policy")
    assert decided(policy, "write_file") == ("ask", "write_*", "policy")
    assert decided(policy, "read_file") == ("allow", "*", "policy")
    assert [str(rule) for rule in policy.rules] == ["deny drop_*", "ask drop_*", "ask write_*", "allow *"]


def test_rules_are_checked_in_the_order_given_and_the_first_match_wins():
    policy = op.policy(rules=[("allow", "drop_temp"), ("deny", "drop_*"), ("allow", "*")])
    assert decided(policy, "drop_temp") == ("allow", "drop_temp", "policy")
    assert decided(policy, "drop_users") == ("deny", "drop_*", "policy")
    assert decided(policy, "anything") == ("allow", "*", "policy")


@pytest.mark.parametrize(
    ("arguments", "action"),
    [
        ({"path": "/tmp/notes.txt"}, "allow"),
        ({"path": "/etc/passwd"}, "ask"),
        ({}, "ask"),  # an argument the call does not have does not match
        ({"path": 5}, "ask"),
    ],
)
def test_argument_globs_match_the_value_the_model_sent(arguments, action):
    policy = op.policy(allow=["read_file(path=/tmp/*)"], default="ask")
    assert decided(policy, "read_file", arguments)[0] == action


def test_argument_globs_all_must_match_and_other_values_are_read_as_json():
    policy = op.policy(allow=["copy(src=/tmp/*, dst=/tmp/*)", "page(n=[1-3], exact=true)", "say(text=a,b*)"])
    assert decided(policy, "copy", {"src": "/tmp/a", "dst": "/tmp/b"})[0] == "allow"
    assert decided(policy, "copy", {"src": "/tmp/a", "dst": "/home/b"}) is None
    assert decided(policy, "page", {"n": 2, "exact": True})[0] == "allow"
    assert decided(policy, "page", {"n": 2, "exact": False}) is None
    assert decided(policy, "say", {"text": "a,bc"})[0] == "allow"  # a comma not followed by NAME= is the value's


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        (dict(allow="read_*"), TypeError, "allow= takes a list of patterns, e.g. allow=['read_*']"),
        (dict(deny=[5]), TypeError, "a deny pattern must be a str"),
        (dict(allow=["read_file(path)"]), ValueError, "bad allow pattern 'read_file(path)': 'path' is not NAME=GLOB"),
        (dict(ask=["write_file()"]), ValueError, "bad ask pattern 'write_file()': the parentheses are empty"),
        (dict(allow=[""]), ValueError, "bad allow pattern ''"),
        (dict(allow=["read file"]), ValueError, "bad allow pattern 'read file'"),
        (dict(allow=["f(a=1, a=2)"]), ValueError, "the argument 'a' is named twice"),
        (dict(default="maybe"), ValueError, "default is 'allow', 'ask', 'deny' or None, not 'maybe'"),
        (dict(rules=[("permit", "x")]), ValueError, "a rule's action is 'allow', 'ask' or 'deny', not 'permit'"),
        (dict(rules=["allow read_*"]), TypeError, "an (action, pattern) pair"),
        (dict(rules=[("allow", "x")], deny=["y"]), TypeError, "not both"),
        (dict(ask_with="buttons"), TypeError, "ask_with must be an approver"),
    ],
)
def test_bad_input_is_refused_naming_the_problem(kwargs, error, words):
    with pytest.raises(error) as raised:
        op.policy(**kwargs)
    assert words in str(raised.value)


def test_session_rules_come_first_without_changing_the_policy_the_user_wrote():
    policy = op.policy(ask=["write_*"], default="deny")
    session = SessionRules()
    session.add(Rule.for_tool("allow", "write_file"))
    in_session = policy.in_session(session, ask_with=lambda request: True)
    assert decided(in_session, "write_file") == ("allow", "write_file", "session")
    assert decided(in_session, "write_files") == ("ask", "write_*", "policy")  # exact name, not a prefix
    assert policy.session is None and policy.ask_with is None and decided(policy, "write_file")[0] == "ask"
    assert [str(rule) for rule in policy.rules] == ["ask write_*"]


def test_a_newer_session_rule_for_a_tool_replaces_the_older_and_rules_are_removed_by_number():
    session = SessionRules()
    session.add(Rule.for_tool("allow", "a"))
    session.add(Rule.for_tool("allow", "b"))
    session.add(Rule.for_tool("deny", "a"))
    assert [str(rule) for rule in session.rules()] == ["deny a", "allow b"]
    assert str(session.remove(2)) == "allow b"
    with pytest.raises(IndexError, match="there is no session rule 2: they are numbered 1 to 1"):
        session.remove(2)
    session.clear()
    assert session.rules() == ()


# -- in a run ------------------------------------------------------------------------------


@pytest.fixture
def tools():
    ran: list[str] = []

    def make(name, requires_approval=False):
        @op.function(name=name, requires_approval=requires_approval, register_globally=False)
        def tool(path: str = "") -> str:
            """A tool."""
            ran.append(name)
            return f"{name} ran"

        return tool

    return ran, [make("read_file"), make("write_file"), make("drop_table"), make("launch", requires_approval=True)]


def run_with(approve, tools, names, **options):
    calls = [op.ToolCall(name=name, arguments={"path": "/tmp/x"}) for name in names]
    model = op.ScriptedModel([calls, "done"])
    return op.Runtime(model=model, approve=approve).run("go", tools=tools, **options)


def test_a_run_asks_only_what_the_policy_says_and_records_the_rule(tools):
    ran, menu = tools
    asked = []
    policy = op.policy(**READ_ASK_DENY, ask_with=lambda request: asked.append(request.tool_name) or True)
    run = run_with(policy, menu, ["read_file", "write_file", "drop_table", "launch"])
    assert asked == ["write_file", "launch"]  # launch: no rule, no default, and it requires approval
    assert ran == ["read_file", "write_file", "launch"]
    rows = [
        (r.status, r.details["approval"], r.details.get("approval_by"), r.details.get("approval_rule"))
        for r in run.tool_results
    ]
    assert rows == [
        ("done", "approved", "policy", {"action": "allow", "pattern": "read_*", "from": "policy"}),
        ("done", "approved", "user", {"action": "ask", "pattern": "write_*", "from": "policy"}),
        ("denied", "denied", "policy", {"action": "deny", "pattern": "drop_*", "from": "policy"}),
        ("done", "approved", None, None),
    ]
    assert run.tool_results[2].text == "denied by rule 'deny drop_*' of the approval policy: drop_table did not run"


def test_the_default_decides_every_call_no_rule_matches(tools):
    ran, menu = tools
    run = run_with(op.policy(allow=["read_*"], default="deny"), menu, ["read_file", "write_file", "launch"])
    assert ran == ["read_file"]
    assert [r.details["approval_rule"] for r in run.tool_results[1:]] == [
        {"action": "deny", "pattern": None, "from": "default"}
    ] * 2


def test_step_mode_with_a_policy_asks_only_where_no_rule_allows(tools):
    ran, menu = tools
    asked = []
    policy = op.policy(allow=["read_*"], deny=["drop_*"], ask_with=lambda r: asked.append(r.tool_name) or True)
    run_with(policy, menu, ["read_file", "write_file", "drop_table"], step=True)
    assert asked == ["write_file"] and ran == ["read_file", "write_file"]


def test_ask_with_no_one_to_ask_refuses_and_says_why(tools):
    ran, menu = tools
    run = run_with(op.policy(ask=["write_*"]), menu, ["write_file"])
    result = run.tool_results[0]
    assert ran == [] and result.status == "denied"
    assert "the approval policy says to ask about write_file, and it has no one to ask" in result.text
    assert result.details["approval_by"] == "nobody"


def test_the_user_s_answer_to_an_ask_rule_is_recorded_with_it(tools):
    ran, menu = tools
    answers = iter([False, op.skip("later"), op.edit(path="/tmp/y")])
    run = run_with(op.policy(ask=["*"], ask_with=lambda request: next(answers)), menu, ["read_file"] * 3)
    assert [(r.status, r.details["approval"], r.details["approval_by"]) for r in run.tool_results] == [
        ("denied", "denied", "user"),
        ("skipped", "skipped", "user"),
        ("done", "edited", "user"),
    ]
    assert ran == ["read_file"]


def test_a_policy_is_a_plain_approver_too():
    policy = op.policy(allow=["read_*"], deny=["drop_*"], ask_with=lambda request: "asked")

    class Request:
        def __init__(self, name):
            self.tool_name, self.arguments = name, {}

    assert [policy(Request(n)) for n in ("read_file", "drop_table", "other")] == [True, False, "asked"]
    assert op.policy(ask=["*"])(Request("x")) is False
