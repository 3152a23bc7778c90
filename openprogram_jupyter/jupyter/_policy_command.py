"""``%agent policy [remove N | clear]``: the approval rules of this kernel session.

``%agent policy`` lists the session rules — the ones "Always allow" / "Always deny" on a
waiting call's card added, numbered in the order they are checked (before any policy's
own rules) — and then, for reference, the rules of the notebook's ``runtime.approve`` when
it is an ``op.policy``. ``%agent policy remove N`` removes session rule ``N``;
``%agent policy clear`` removes them all. A policy's own rules are never changed here:
they are the object the user wrote.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ..core.approval_policy import Policy, Rule
from ..render._safe import display_bundle
from ..render._table import html_table

if TYPE_CHECKING:
    from ._magics import AgentMagics

__all__ = ["SUBCOMMANDS", "policy_command"]

SUBCOMMANDS = ("remove", "clear")
USAGE = "%agent policy [remove N | clear]"


def policy_command(magics: AgentMagics, rest: str) -> None:
    """Run ``%agent policy REST`` (module docstring); ``UsageError`` for anything else, or a
    rule number that is not one of the session's."""
    words = rest.split()
    rules = magics.approval_rules
    if words and words[0] == "clear" and len(words) == 1:
        count = len(rules.rules())
        rules.clear()
        _say(f"Removed {count} session rule{'s' if count != 1 else ''}.")
    elif words and words[0] == "remove" and len(words) == 2:
        if not words[1].isdigit():
            raise UsageError(f"{USAGE}: N is a rule's number as %agent policy lists it, not {words[1]!r}")
        try:
            removed = rules.remove(int(words[1]))
        except IndexError as error:
            raise UsageError(f"%agent policy remove: {error}") from None
        _say(f"Removed session rule {words[1]}: {removed}. Later calls to {removed.pattern} go by the policy again.")
    elif words:
        raise UsageError(f"{USAGE}: got {rest!r}")
    display_bundle(_listing(rules.rules(), getattr(magics.runtimes.namespace_runtime, "approve", None)))


def _say(text: str) -> None:
    display_bundle({"text/plain": text, "text/html": f"<p>{escape(text)}</p>"})


def _listing(session: tuple[Rule, ...], own: object) -> dict[str, str]:
    """The session rules, numbered, and the notebook runtime's policy after them."""
    if session:
        head = "Session rules, checked first (%agent policy remove N removes one, %agent policy clear all):"
        lines = [head, *(f"  {number}. {rule}" for number, rule in enumerate(session, 1))]
        html = f"<p>{escape(head)}</p>" + html_table(
            ["#", "rule", "pattern"],
            [
                [str(number), escape(rule.action), f"<code>{escape(rule.pattern)}</code>"]
                for number, rule in enumerate(session, 1)
            ],
            numbers=(0,),
        )
    else:
        head = 'No session rules: "Always allow" or "Always deny" on a waiting call\'s card adds one for its tool.'
        lines, html = [head], f"<p>{escape(head)}</p>"
    if isinstance(own, Policy):
        then = [*(f"  {rule}" for rule in own.rules), f"  default: {own.default or 'as without a policy'}"]
        lines += ["Then the rules of runtime.approve (first match wins):", *then]
        html += (
            "<p>Then the rules of <code>runtime.approve</code> (first match wins):</p><pre>"
            + escape("\n".join(line.strip() for line in then))
            + "</pre>"
        )
    return {"text/plain": "\n".join(lines), "text/html": html}
