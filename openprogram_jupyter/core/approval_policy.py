"""Approval policies: rules that allow, ask about or deny a call by its tool's name (and
optionally its arguments), so the user is asked only about what matters.

``op.policy(allow=["read_*"], ask=["write_*"], deny=["drop_*"], default="ask")`` is an
approver (``Runtime(approve=...)``, ``run(..., approve=...)``). A run given one consults
it about **every** call, not only the ``requires_approval`` ones, step mode or not:

- the rules are checked in one list, and the **first** rule that matches decides; the
  keyword form builds that list as every ``deny`` pattern, then every ``ask``, then every
  ``allow``, each in the order given (so ``deny`` wins where patterns overlap);
  ``op.policy(rules=[("allow", "read_*"), ("deny", "*")])`` checks the rules in exactly
  the order given;
- before them come the **session rules** (:class:`SessionRules`: a notebook's "Always
  allow" / "Always deny" clicks), newest first;
- a call no rule matches gets ``default``: ``"allow"``, ``"ask"`` or ``"deny"``; with
  ``default=None`` (the default) it goes as it would without a policy — it asks if its
  tool ``requires_approval`` or the run is in step mode, else it runs;
- ``"ask"`` asks ``ask_with`` (another approver). In a notebook, a policy without one asks
  with the live view's buttons; elsewhere it refuses the call, saying there is no one to ask.

A pattern is a glob on the tool's name (``fnmatch``: ``*``, ``?``, ``[abc]``; case
sensitive), optionally followed by globs on argument values in parentheses:
``read_file(path=/tmp/*)`` matches a ``read_file`` call whose ``path`` argument, as the
model sent it, matches ``/tmp/*``; ``copy(src=/tmp/*, dst=/tmp/*)`` needs both. A string
value is matched as it is, any other value as its JSON text (``5``, ``true``); an argument
the call does not have does not match. A glob is text matching, not a sandbox:
``/tmp/*`` also matches ``/tmp/../etc/passwd``.
"""

from __future__ import annotations

import fnmatch
import json
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, cast

from ._json import JsonObject
from .errors import SetupError

__all__ = ["ACTIONS", "Decision", "Policy", "Rule", "SessionRules", "policy"]

Action = Literal["allow", "ask", "deny"]
ACTIONS: tuple[Action, ...] = ("allow", "ask", "deny")


class CallToApprove(Protocol):
    """What a policy reads of the call it is asked about (an ``ApprovalRequest``)."""

    @property
    def tool_name(self) -> str: ...

    @property
    def arguments(self) -> JsonObject: ...


_PATTERN = re.compile(r"\s*([^\s()=,]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
_ARGUMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*", re.DOTALL)
_NEXT_ARGUMENT = re.compile(r",\s*(?=[A-Za-z_][A-Za-z0-9_]*\s*=)")  # a comma before NAME=


@dataclass(frozen=True)
class Rule:
    """One rule: ``action`` (``"allow"``, ``"ask"`` or ``"deny"``) for the calls ``pattern``
    matches. Build one with :meth:`parse` (checks the pattern) or :meth:`for_tool`."""

    action: Action
    pattern: str
    tool: str = field(repr=False, default="")
    arguments: tuple[tuple[str, str], ...] = field(repr=False, default=())
    exact: bool = field(repr=False, default=False)

    @classmethod
    def parse(cls, action: str, pattern: object) -> Rule:
        """The rule ``action pattern``; ``ValueError`` / ``TypeError`` naming what is wrong."""
        if action not in ACTIONS:
            raise SetupError(f"op.policy: a rule's action is 'allow', 'ask' or 'deny', not {action!r}")
        if not isinstance(pattern, str):
            raise SetupError(
                f"op.policy: a {action} pattern must be a str such as 'read_*', "
                f"not {type(pattern).__name__} ({pattern!r})"
            )
        match = _PATTERN.fullmatch(pattern)
        if match is None:
            raise SetupError(
                f"op.policy: bad {action} pattern {pattern!r}: expected a tool-name glob, "
                "optionally with argument globs in parentheses, e.g. 'read_*' or "
                "'read_file(path=/tmp/*)'"
            )
        tool, inside = match.group(1), match.group(2)
        arguments = _argument_globs(action, pattern, inside) if inside is not None else ()
        return cls(action, pattern.strip(), tool, arguments)

    @classmethod
    def for_tool(cls, action: Action, tool_name: str) -> Rule:
        """A rule for the tool named exactly ``tool_name`` (no glob: ``*`` in it is a ``*``)."""
        return cls(action, tool_name, tool_name, (), exact=True)

    def matches(self, tool_name: str, arguments: JsonObject | None) -> bool:
        """Whether this rule is about a call of ``tool_name`` with ``arguments``."""
        if self.exact:
            return tool_name == self.tool
        if not fnmatch.fnmatchcase(tool_name, self.tool):
            return False
        for name, glob in self.arguments:
            if arguments is None or name not in arguments:
                return False
            if not fnmatch.fnmatchcase(_value_text(arguments[name]), glob):
                return False
        return True

    def __str__(self) -> str:
        return f"{self.action} {self.pattern}"


def _argument_globs(action: str, pattern: str, inside: str) -> tuple[tuple[str, str], ...]:
    if not inside.strip():
        raise SetupError(
            f"op.policy: bad {action} pattern {pattern!r}: the parentheses are empty; "
            "write NAME=GLOB inside them, e.g. 'read_file(path=/tmp/*)'"
        )
    globs: dict[str, str] = {}
    for piece in _NEXT_ARGUMENT.split(inside):
        argument = _ARGUMENT.fullmatch(piece)
        if argument is None:
            raise SetupError(
                f"op.policy: bad {action} pattern {pattern!r}: {piece.strip()!r} is not "
                "NAME=GLOB (an argument's name, =, and a glob on its value)"
            )
        name, glob = argument.groups()
        if name in globs:
            raise SetupError(f"op.policy: bad {action} pattern {pattern!r}: the argument {name!r} is named twice")
        globs[name] = glob
    return tuple(globs.items())


def _value_text(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


@dataclass(frozen=True)
class Decision:
    """What a policy decided about one call: ``action``, the ``rule`` that matched (``None``
    for the default) and where that rule came from (``"session"``, ``"policy"``, ``"default"``)."""

    action: Action
    rule: Rule | None
    source: Literal["session", "policy", "default"]

    def record(self) -> JsonObject:
        """What a result's ``details["approval_rule"]`` holds: ``{"action", "pattern", "from"}``
        (``pattern`` ``None`` for the default)."""
        return {"action": self.action, "pattern": self.rule.pattern if self.rule else None, "from": self.source}

    def describe(self) -> str:
        """``rule 'deny drop_*'``, ``session rule 'allow read_file'`` or ``the policy's default``."""
        if self.rule is None:
            return "the policy's default"
        return f"{'session rule' if self.source == 'session' else 'rule'} '{self.rule}'"


class SessionRules:
    """The rules a notebook session added ("Always allow" / "Always deny" on a card), checked
    before any policy's own. Thread-safe: clicks add rules from the kernel's comm thread."""

    def __init__(self) -> None:
        self._rules: list[Rule] = []
        self._lock = threading.Lock()

    def add(self, rule: Rule) -> None:
        """Put ``rule`` first; an earlier rule with the same pattern is dropped (the newer wins)."""
        with self._lock:
            self._rules = [rule, *(old for old in self._rules if old.pattern != rule.pattern)]

    def remove(self, number: int) -> Rule:
        """Remove and return rule ``number`` (1 is the first); ``IndexError`` naming the range."""
        with self._lock:
            if not 1 <= number <= len(self._rules):
                count = len(self._rules)
                raise IndexError(
                    f"there is no session rule {number}: "
                    + (f"they are numbered 1 to {count}" if count else "there are none")
                )
            return self._rules.pop(number - 1)

    def clear(self) -> None:
        with self._lock:
            self._rules = []

    def rules(self) -> tuple[Rule, ...]:
        """The rules now, in the order they are checked."""
        with self._lock:
            return tuple(self._rules)


@dataclass(frozen=True)
class Policy:
    """An approver made of rules (see the module's docstring; build one with :func:`policy`).

    Immutable: a notebook's session rules are given to a copy (:meth:`in_session`), never
    added to the policy the user wrote."""

    rules: tuple[Rule, ...] = ()
    default: Action | None = None
    ask_with: Callable[[Any], Any] | None = None
    session: SessionRules | None = field(default=None, repr=False, compare=False)
    asks_with_view: bool = field(default=False, repr=False, compare=False)

    def decide(self, tool_name: str, arguments: JsonObject | None) -> Decision | None:
        """The first matching rule's decision (session rules first), else the default's;
        ``None`` when nothing matched and there is no default (the call goes as without a policy)."""
        for source, rules in (("session", self.session.rules() if self.session else ()), ("policy", self.rules)):
            for rule in rules:
                if rule.matches(tool_name, arguments):
                    return Decision(rule.action, rule, cast(Literal["session", "policy"], source))
        return Decision(self.default, None, "default") if self.default is not None else None

    def in_session(self, session: SessionRules | None, ask_with: Callable[[Any], Any] | None) -> Policy:
        """A copy that checks ``session``'s rules first and, if this policy has no ``ask_with``,
        asks with ``ask_with`` (a live view's buttons: :meth:`without_view` takes it off)."""
        borrowed = self.asks_with_view or (self.ask_with is None and ask_with is not None)
        return replace(self, session=session, ask_with=self.ask_with or ask_with, asks_with_view=borrowed)

    def without_view(self) -> Policy:
        """This policy without the ``ask_with`` :meth:`in_session` gave it (the same policy
        when it asks with its own, or with no one): what a fork or rerun of a run keeps once
        the run's view has ended. Its rules and session rules stay."""
        return replace(self, ask_with=None, asks_with_view=False) if self.asks_with_view else self

    def __call__(self, request: CallToApprove) -> Any:
        """Used as a plain approver: ``True`` for allow, ``False`` for deny, else the answer
        of ``ask_with`` (``False`` without one). A run reads the policy itself instead, to
        record which rule decided (:mod:`openprogram_jupyter.engine.tool_execution`)."""
        decision = self.decide(request.tool_name, request.arguments)
        if decision is not None and decision.action != "ask":
            return decision.action == "allow"
        return self.ask_with(request) if self.ask_with is not None else False


def policy(
    allow: Sequence[str] = (),
    ask: Sequence[str] = (),
    deny: Sequence[str] = (),
    *,
    rules: Iterable[tuple[str, str]] | None = None,
    default: str | None = None,
    ask_with: Callable[[Any], Any] | None = None,
) -> Policy:
    """An approver that allows, asks about or denies each call by rule (module docstring).

    ``allow`` / ``ask`` / ``deny``: lists of patterns, checked deny, then ask, then allow.
    ``rules``: ``(action, pattern)`` pairs checked in the order given, instead of those.
    ``default``: ``"allow"``, ``"ask"``, ``"deny"`` or ``None`` (as without a policy).
    ``ask_with``: the approver asked when a rule says ``"ask"``. A bad pattern or action is a
    ``ValueError`` naming it; a str where a list belongs is a ``TypeError``.
    """
    if rules is not None and (allow or ask or deny):
        raise SetupError(
            "op.policy: give rules=[(action, pattern), ...] or allow=/ask=/deny=, not both "
            "(the order of the checks would be unclear)"
        )
    if default is not None and default not in ACTIONS:
        raise SetupError(f"op.policy: default is 'allow', 'ask', 'deny' or None, not {default!r}")
    if ask_with is not None and not callable(ask_with):
        raise SetupError(
            f"op.policy: ask_with must be an approver (a function of the request), not {type(ask_with).__name__}"
        )
    if rules is None:
        pairs = [
            (action, pattern)
            for action, patterns in (("deny", deny), ("ask", ask), ("allow", allow))
            for pattern in _patterns(action, patterns)
        ]
    else:
        pairs = [_pair(item) for item in rules]
    return Policy(tuple(Rule.parse(action, pattern) for action, pattern in pairs), default, ask_with)


def _patterns(action: str, patterns: object) -> list[object]:
    if isinstance(patterns, str):
        raise SetupError(f"op.policy: {action}= takes a list of patterns, e.g. {action}=[{patterns!r}], not a str")
    if not isinstance(patterns, Iterable):
        raise SetupError(f"op.policy: {action}= takes a list of patterns, not {type(patterns).__name__}")
    return list(patterns)


def _pair(item: object) -> tuple[str, str]:
    if not (isinstance(item, (tuple, list)) and len(item) == 2):
        raise SetupError(
            f"op.policy: each of rules= is an (action, pattern) pair such as ('allow', 'read_*'), not {item!r}"
        )
    return item[0], item[1]
