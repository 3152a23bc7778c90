"""Every transcript format names the rule that decided each call (``op.policy``), and a
rule's pattern is text in every one of them, never markup."""

from __future__ import annotations

import re

import pytest
from inert_html import assert_inert

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import Rule, SessionRules
from openprogram_jupyter.render import render_bundle


@pytest.fixture
def menu():
    def make(name):
        @op.function(name=name, register_globally=False)
        def tool(path: str = "") -> str:
            """A tool."""
            return "ok"

        return tool

    return [make(name) for name in ("read_file", "write_file", "drop_table", "list_files", "tidy")]


def run_of(policy, menu, names):
    model = op.ScriptedModel([[op.ToolCall(name=name, arguments={"path": "/tmp/x"}) for name in names], "done"])
    return op.Runtime(model=model, approve=policy).run("go", tools=menu)


def labels(run) -> dict[str, list[str]]:
    """What each format says between each call's status and its duration (nothing: no entry)."""
    bundle = render_bundle(run)

    def between(line: str) -> str:
        return " · ".join(line.split(" · ")[1:-1])

    plain = [between(line) for line in bundle["text/plain"].splitlines() if line.lstrip().startswith("▸")]
    markdown = [between(line) for line in bundle["text/markdown"].splitlines() if line.lstrip().startswith("- `")]
    html = re.findall(r'<span style="color:#[0-9a-f]+"> · (.*?)</span>', bundle["text/html"])
    return {"plain": [text for text in plain if text], "markdown": [text for text in markdown if text], "html": html}


def test_each_format_names_the_rule_and_who_decided(menu):
    session = SessionRules()
    session.add(Rule.for_tool("deny", "tidy"))
    answers = iter([True, False])
    policy = op.policy(
        allow=["read_*"],
        ask=["write_*", "list_*"],
        deny=["drop_*"],
        default="allow",
        ask_with=lambda request: next(answers),
    ).in_session(session, None)
    policy_run = run_of(policy, menu, ["read_file", "write_file", "list_files", "drop_table", "tidy"])
    default_run = run_of(op.policy(default="deny"), menu, ["read_file"])
    nobody_run = run_of(op.policy(ask=["*"]), menu, ["read_file"])
    shown = {
        name: labels(policy_run)[name] + labels(default_run)[name] + labels(nobody_run)[name]
        for name in ("plain", "markdown", "html")
    }
    assert shown["plain"] == [
        "allowed by rule read_*",
        "asked (rule write_*): approved by the user",
        "asked (rule list_*): denied by the user",
        "denied by rule drop_*",
        "denied by session rule tidy",
        "denied by the policy's default",
        "asked (rule *): denied, no one to ask",
    ]
    assert shown["markdown"] == [
        "allowed by rule `read_*`",
        "asked (rule `write_*`): approved by the user",
        "asked (rule `list_*`): denied by the user",
        "denied by rule `drop_*`",
        "denied by session rule `tidy`",
        "denied by the policy's default",
        "asked (rule `*`): denied, no one to ask",
    ]
    assert shown["html"] == [
        "allowed by rule <code>read_*</code>",
        "asked (rule <code>write_*</code>): approved by the user",
        "asked (rule <code>list_*</code>): denied by the user",
        "denied by rule <code>drop_*</code>",
        "denied by session rule <code>tidy</code>",
        "denied by the policy&#x27;s default",
        "asked (rule <code>*</code>): denied, no one to ask",
    ]


def test_a_call_no_rule_decided_reads_as_before(menu):
    run = run_of(op.policy(allow=["read_*"]), menu, ["write_file"])  # no rule, no default: runs, asks no one
    assert labels(run) == {"plain": [], "markdown": [], "html": []}


def test_a_pattern_with_markup_is_text_in_every_format(menu):
    model = op.ScriptedModel(
        [op.ToolCall(name="read_file", arguments={"path": "<img src=x onerror=alert(1)>"}), "done"]
    )
    run = op.Runtime(model=model, approve=op.policy(deny=["read_file(path=<img*)"])).run("go", tools=menu)
    assert run.tool_results[0].status == "denied"
    bundle = render_bundle(run)
    assert "denied by rule <code>read_file(path=&lt;img*)</code>" in bundle["text/html"]
    assert_inert(bundle["text/html"])
    assert "denied by rule `read_file(path=<img*)`" in bundle["text/markdown"]
    assert "denied by rule read_file(path=<img*)" in bundle["text/plain"]
    run.tool_results[0].details["approval_rule"]["pattern"] = "<b>x</b>`y`"  # as a hand-edited file could say
    bundle = render_bundle(run)
    assert "<b>x</b>" not in bundle["text/html"] and "<code>&lt;b&gt;x&lt;/b&gt;`y`</code>" in bundle["text/html"]
    assert "denied by rule `` <b>x</b>`y` ``" in bundle["text/markdown"]


def test_a_rule_record_this_package_did_not_write_is_ignored(menu):
    run = run_of(op.policy(deny=["read_*"]), menu, ["read_file"])
    run.tool_results[0].details["approval_rule"] = {"action": "explode", "pattern": "x", "from": "policy"}
    assert labels(run)["plain"] == ["denied by the user"]  # what details["approval"] says
