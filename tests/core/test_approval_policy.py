"""Approval policies (``op.policy``): which rule decides a call, in a run and on their own."""

from __future__ import annotations

from types import SimpleNamespace

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


# -- what mutmut found unpinned in core/approval_policy.py (docs/testing.md, "Mutation tool") --


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"allow": [3]},
            TypeError,
            "op.policy: a allow pattern must be a str such as 'read_*', not int (3)",
        ),
        (
            {"deny": ["read file"]},
            ValueError,
            "op.policy: bad deny pattern 'read file': expected a tool-name glob, optionally with argument "
            "globs in parentheses, e.g. 'read_*' or 'read_file(path=/tmp/*)'",
        ),
        (
            {"ask": ["read_file( )"]},
            ValueError,
            "op.policy: bad ask pattern 'read_file( )': the parentheses are empty; write NAME=GLOB inside "
            "them, e.g. 'read_file(path=/tmp/*)'",
        ),
        (
            {"ask": ["read_file(path)"]},
            ValueError,
            "op.policy: bad ask pattern 'read_file(path)': 'path' is not NAME=GLOB (an argument's name, =, "
            "and a glob on its value)",
        ),
        (
            {"rules": [("allow", "a")], "deny": ["b"]},
            TypeError,
            "op.policy: give rules=[(action, pattern), ...] or allow=/ask=/deny=, not both "
            "(the order of the checks would be unclear)",
        ),
        (
            {"ask_with": "yes"},
            TypeError,
            "op.policy: ask_with must be an approver (a function of the request), not str",
        ),
        ({"allow": 3}, TypeError, "op.policy: allow= takes a list of patterns, not int"),
        (
            {"rules": [("allow", "a", "b")]},
            TypeError,
            "op.policy: each of rules= is an (action, pattern) pair such as ('allow', 'read_*'), "
            "not ('allow', 'a', 'b')",
        ),
        (
            {"rules": ["ab"]},
            TypeError,
            "op.policy: each of rules= is an (action, pattern) pair such as ('allow', 'read_*'), not 'ab'",
        ),
    ],
)
def test_a_bad_policy_is_refused_with_a_message_saying_what_to_write(kwargs, error, message):
    with pytest.raises(error) as raised:
        op.policy(**kwargs)
    assert str(raised.value) == message


def test_only_one_of_the_three_lists_with_rules_is_already_refused():
    for key in ("allow", "ask", "deny"):
        with pytest.raises(TypeError, match="not both"):
            op.policy(rules=[("allow", "a")], **{key: ["b"]})


def test_an_argument_that_is_not_text_is_matched_as_json_with_sorted_keys_and_unicode():
    rules = op.policy(allow=['tag(labels={"a": 1, "b": "é"})', "size(n=4*)"], default="deny")
    assert rules.decide("tag", {"labels": {"b": "é", "a": 1}}).action == "allow"
    assert rules.decide("size", {"n": 42}).action == "allow"
    assert rules.decide("size", {"n": 5}).action == "deny"


def test_a_policy_used_as_an_approver_reads_the_arguments_and_asks_with_the_request():
    asked = []
    rules = op.policy(
        rules=[("allow", "read(path=/tmp/*)"), ("ask", "read")], ask_with=lambda request: asked.append(request) or "yes"
    )
    request = SimpleNamespace(tool_name="read", arguments={"path": "/tmp/a"})
    assert rules(request) is True and asked == []
    elsewhere = SimpleNamespace(tool_name="read", arguments={"path": "/etc/passwd"})
    assert rules(elsewhere) == "yes" and asked == [elsewhere]


def test_which_rule_decided_says_session_rule_or_rule():
    session = SessionRules()
    session.add(Rule.for_tool("deny", "rm"))
    rules = op.policy(allow=["ls"]).in_session(session, None)
    assert rules.decide("rm", {}).describe() == "session rule 'deny rm'"
    assert rules.decide("ls", {}).describe() == "rule 'allow ls'"
    assert (rules.decide("rm", {}).source, rules.decide("ls", {}).source) == ("session", "policy")


def test_a_session_rule_for_a_tool_is_its_exact_name_not_a_glob():
    rule = Rule.for_tool("allow", "read_*")
    assert rule.matches("read_*", {"x": 1}) and not rule.matches("read_file", None)
    assert rule.arguments == () and rule.exact


def test_removing_a_session_rule_that_is_not_there_names_the_range():
    session = SessionRules()
    with pytest.raises(IndexError) as none:
        session.remove(1)
    assert str(none.value) == "there is no session rule 1: there are none"
    session.add(Rule.for_tool("allow", "a"))
    session.add(Rule.for_tool("deny", "b"))
    with pytest.raises(IndexError) as past:
        session.remove(0)
    assert str(past.value) == "there is no session rule 0: they are numbered 1 to 2"
    assert str(session.remove(2)) == "allow a" and str(session.remove(1)) == "deny b"  # the newest is first


def test_a_policy_in_a_session_asks_with_the_view_only_when_it_has_no_approver_of_its_own():
    view, own = (lambda r: True), (lambda r: False)
    borrowed = op.policy(ask=["x"]).in_session(None, view)
    assert borrowed.ask_with is view and borrowed.without_view().ask_with is None
    kept = op.policy(ask=["x"], ask_with=own).in_session(None, view)
    assert kept.ask_with is own and kept.without_view() is kept
    alone = op.policy(ask=["x"]).in_session(None, None)
    assert alone.ask_with is None and alone.without_view() is alone
    again = borrowed.in_session(SessionRules(), None)  # a copy of a borrowed one still gives it back
    assert again.ask_with is view and again.without_view().ask_with is None
