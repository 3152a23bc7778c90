"""``%agent policy``: the session's approval rules listed, removed one by one or all, the
notebook runtime's policy shown after them, bad input refused, Tab completing the words."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.core.approval_policy import Rule
from openprogram_jupyter.jupyter import _LOADED

# IPython's own tests still call the completer this way (as test_completion.py does).
pytestmark = pytest.mark.filterwarnings("ignore:`Completer.complete` is pending deprecation")


@pytest.fixture
def rules(shell):
    rules = _LOADED[id(shell)].approval_rules
    rules.clear()
    yield rules
    rules.clear()  # the shell outlives the test: so would its rules


def shown(shell, line: str, monkeypatch) -> list[dict[str, str]]:
    bundles: list[dict[str, str]] = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, **kwargs: bundles.append(bundle))
    shell.run_line_magic("agent", line)
    return bundles


def test_the_rules_are_listed_in_the_order_they_are_checked_and_removed_by_number(shell, rules, monkeypatch):
    rules.add(Rule.for_tool("allow", "read_file"))
    rules.add(Rule.for_tool("deny", "<b>drop</b>"))
    (listing,) = shown(shell, "policy", monkeypatch)
    assert listing["text/plain"].splitlines()[1:] == ["  1. deny <b>drop</b>", "  2. allow read_file"]
    assert "<b>drop</b>" not in listing["text/html"] and "&lt;b&gt;drop&lt;/b&gt;" in listing["text/html"]
    said, listing = shown(shell, "policy remove 2", monkeypatch)
    assert said["text/plain"].startswith("Removed session rule 2: allow read_file.")
    assert [str(rule) for rule in rules.rules()] == ["deny <b>drop</b>"]
    said, listing = shown(shell, "policy clear", monkeypatch)
    assert said["text/plain"] == "Removed 1 session rule." and rules.rules() == ()
    assert listing["text/plain"].startswith("No session rules")


def test_the_notebook_runtime_s_policy_is_shown_after_them_unchanged(shell, rules, monkeypatch):
    runtime = _LOADED[id(shell)].runtimes.namespace_runtime
    before = runtime.approve
    runtime.approve = op.policy(allow=["read_*"], deny=["drop_*"], default="ask")
    try:
        (listing,) = shown(shell, "policy clear", monkeypatch)[1:]
    finally:
        runtime.approve = before
    assert listing["text/plain"].splitlines()[1:] == [
        "Then the rules of runtime.approve (first match wins):",
        "  deny drop_*",
        "  allow read_*",
        "  default: ask",
    ]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("policy remove", "%agent policy [remove N | clear]: got 'remove'"),
        ("policy remove two", "N is a rule's number as %agent policy lists it, not 'two'"),
        ("policy remove 3", "there is no session rule 3: there are none"),
        ("policy drop 1", "got 'drop 1'"),
    ],
)
def test_bad_input_is_refused_naming_it(shell, rules, line, words):
    with pytest.raises(UsageError) as raised:
        shell.run_line_magic("agent", line)
    assert words in str(raised.value)


def test_tab_completes_the_words_after_policy(shell):
    assert shell.Completer.complete(line_buffer="%agent policy ", cursor_pos=14)[1] == ["clear", "remove"]
