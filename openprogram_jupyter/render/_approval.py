"""How a transcript names a call's approval: who decided, and by which rule.

Every format (HTML, Markdown, plain text) shows the same words, from :func:`approval_words`;
each wraps the rule's pattern its own way (``<code>`` escaped, a code span, as is), since a
pattern such as ``read_*`` is text, never markup.

- a rule allowed or denied the call: ``allowed by rule read_*``, ``denied by session rule
  drop_table``, ``allowed by the policy's default``;
- a rule said to ask: ``asked (rule write_*): approved by the user`` (or denied, edited,
  skipped); ``asked (rule write_*): denied, no one to ask`` when there was no one;
- no rule (a ``requires_approval`` tool or step mode without a policy): ``approved by the
  user`` and the like, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _format as fmt
from .tree import CallNode

__all__ = ["ApprovalWords", "approval_words"]

_DONE = {"allow": "allowed", "deny": "denied"}
_SOURCES = ("session", "policy", "default")


@dataclass(frozen=True)
class ApprovalWords:
    """A call's approval label in three pieces: ``before`` the rule's ``pattern`` (``None``:
    no pattern to show) and ``after`` it."""

    before: str
    pattern: str | None = None
    after: str = ""

    @property
    def text(self) -> str:
        """The label as plain text."""
        return self.before + (self.pattern or "") + self.after


def approval_words(call: CallNode) -> ApprovalWords | None:
    """The words for ``call``'s approval (module docstring); ``None`` for a call that asked
    no one and no rule decided. A rule record that is not one this package writes (a hand-
    edited file) is ignored: the label then says what ``call.approval`` says."""
    details = call.result.details if call.result is not None else {}
    rule = details.get("approval_rule")
    plain = fmt.approval_label(call)
    if not (
        isinstance(rule, dict)
        and rule.get("action") in ("allow", "ask", "deny")
        and rule.get("from") in _SOURCES
        and isinstance(rule.get("pattern"), (str, type(None)))
    ):
        return ApprovalWords(plain) if plain else None
    pattern = rule["pattern"] if rule["from"] != "default" else None
    which = "session rule " if rule["from"] == "session" else "rule "
    if rule["action"] != "ask":
        if pattern is None:
            return ApprovalWords(f"{_DONE[rule['action']]} by the policy's default")
        return ApprovalWords(f"{_DONE[rule['action']]} by {which}", pattern)
    if details.get("approval_by") == "nobody":
        answer = "denied, no one to ask"
    else:
        answer = plain or "no answer"
    if pattern is None:
        return ApprovalWords(f"asked (the policy's default): {answer}")
    return ApprovalWords(f"asked ({which}", pattern, f"): {answer}")
