"""The course's rules: what a teacher sets for every run of a kernel, which a notebook can
tighten and never loosen.

A JupyterHub admin sets them as ``AgentMagics`` traits in an IPython configuration file
(docs/teaching.md, "Setting up a course"); ``%load_ext`` installs them here, in one record
per process (:func:`installed`), and the engine reads that record for every run — a cell, a
plain ``runtime.exec``, a nested run, a fork, a rerun, ``op.evaluate``. A rule installed
again is merged with the one in force by :meth:`CourseRules.tightened`, so a later
``%config``, ``%reload_ext`` or ``op.Runtime(...)`` can only make a rule stricter.

The rules bind the package's doors, not Python itself: code that reaches into private
modules can change anything in its own kernel. What a student must never hold — a key
with no spending limit — belongs on a gateway (docs/teaching.md, "Keys students never see").
"""

from __future__ import annotations

import dataclasses
import fnmatch
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar, cast

from .approval_policy import Policy, policy
from .errors import SetupError

__all__ = [
    "MODES",
    "CourseContext",
    "CoursePolicy",
    "CourseRefusal",
    "CourseRules",
    "Mode",
    "SessionSpend",
    "context_summary_text",
    "install",
    "installed",
    "session_spend",
]

Item = TypeVar("Item")
Number = TypeVar("Number", int, float)

Mode = Literal["normal", "replay-only", "off"]
MODES: tuple[Mode, ...] = ("normal", "replay-only", "off")
"""The modes, from the loosest to the strictest."""


class CourseRefusal(SetupError):
    """A run, a model or a cell the course's rules do not allow; its message is one line
    naming the rule and where it was set."""


class CoursePolicy(Policy):
    """The course's approval policy: first among every run's approvers, it cannot take a
    notebook's "Always" rules, and it does not count as an approver for step mode."""


@dataclass(frozen=True)
class CourseContext:
    """One course context file: its name as shown (``COURSE.md``), where it was found, its
    text, and its size in tokens (estimated)."""

    name: str
    path: str
    text: str
    tokens: int


@dataclass(frozen=True)
class CourseRules:
    """The rules in force.

    ``allowed_models``: lists of model globs, each of which a model must match (none: any
    model); ``max_cost_per_session`` / ``max_tokens_per_session``: what all the runs of this
    process may spend together; ``tools_deny``: tool-name globs no run may offer or call;
    ``policies``: approval policies every call must get past, before the run's own;
    ``mode``: ``normal``, ``replay-only`` (only ``replay:`` cassettes and the offline model)
    or ``off``; ``context``: the course context files every run's system prompt carries;
    ``sources``: for each rule set, where it came from (a config file, ``%config``).
    """

    allowed_models: tuple[tuple[str, ...], ...] = ()
    max_cost_per_session: float | None = None
    max_tokens_per_session: int | None = None
    tools_deny: tuple[str, ...] = ()
    policies: tuple[CoursePolicy, ...] = ()
    mode: Mode = "normal"
    context: tuple[CourseContext, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)

    def is_set(self) -> bool:
        """Whether any rule is set."""
        return dataclasses.replace(self, sources={}) != CourseRules()

    def tightened(self, other: CourseRules) -> CourseRules:
        """These rules with ``other``'s laid over them so that each rule can only get
        stricter: model lists and policies add up (each must be passed), deny globs and
        context files are joined, the caps are the lower, the mode the stricter. A rule's
        source is ``other``'s when ``other`` changed it."""
        merged = CourseRules(
            _joined(self.allowed_models, other.allowed_models),
            _lower(self.max_cost_per_session, other.max_cost_per_session),
            _lower(self.max_tokens_per_session, other.max_tokens_per_session),
            _joined(self.tools_deny, other.tools_deny),
            _joined(self.policies, other.policies),
            max(self.mode, other.mode, key=MODES.index),
            _joined(self.context, other.context),
        )
        sources = dict(self.sources)
        for rule in RULE_NAMES:
            if rule in other.sources and _value(merged, rule) != _value(self, rule):
                sources[rule] = other.sources[rule]
        return dataclasses.replace(merged, sources=sources)

    def model_refusal(self, name: str, *, sends_nothing: bool, replayed: bool) -> str | None:
        """Why the model ``name`` may not run under these rules, in one line naming the rule;
        ``None`` when it may. ``replayed``: a ``replay:`` cassette or the offline model;
        ``sends_nothing``: a model that reaches no provider (those, or a scripted model),
        which ``allowed_models`` does not restrict."""
        if self.mode == "off":
            return self.off_text()
        if self.mode == "replay-only" and not replayed:
            return (
                f"the course allows only replay: cassettes and the offline model (mode = 'replay-only', "
                f"{self.source('mode')}); {name} cannot run"
            )
        if sends_nothing:
            return None
        for globs in self.allowed_models:
            if not any(fnmatch.fnmatchcase(name, glob) for glob in globs):
                return (
                    f"the course allows only the models {', '.join(globs)} (allowed_models, "
                    f"{self.source('allowed_models')}); {name} is not one of them"
                )
        return None

    def off_text(self) -> str:
        """The line a run or a cell gives when the course turned the agent off."""
        return f"the course turned the agent off (mode = 'off', {self.source('mode')})"

    def denies_tool(self, name: str) -> bool:
        """Whether ``tools_deny`` has a glob matching the tool ``name``."""
        return any(fnmatch.fnmatchcase(name, glob) for glob in self.tools_deny)

    def approvers(self) -> tuple[CoursePolicy, ...]:
        """What every call must get past first: a policy denying the ``tools_deny`` globs,
        then the course's own policies."""
        deny = (CoursePolicy(policy(deny=list(self.tools_deny)).rules),) if self.tools_deny else ()
        return (*deny, *self.policies)

    def system_with_context(self, system: str | None) -> str | None:
        """``system`` with the course context files' text before it (each under a line
        naming its file); ``system`` as it is when there is no context or it carries it
        already (a nested run inherits its caller's system prompt)."""
        if not self.context:
            return system
        block = "\n\n".join(f"Course context ({item.name}):\n{item.text.strip()}" for item in self.context)
        if system is not None and system.startswith(block):
            return system
        return block if not system else f"{block}\n\n{system}"

    def context_carried_by(self, system: str | None) -> tuple[CourseContext, ...]:
        """The course context files ``system`` carries: all of them when it starts with
        their block (as :meth:`system_with_context` writes it), else none."""
        if not self.context or system is None:
            return ()
        return self.context if system.startswith(self.system_with_context(None) or "") else ()

    def context_summary(self) -> str | None:
        """The line a run shows for the context it carries: ``course context (COURSE.md,
        1.2k tokens)``; ``None`` without one."""
        if not self.context:
            return None
        return context_summary_text([item.name for item in self.context], sum(item.tokens for item in self.context))

    def source(self, rule: str) -> str:
        """Where ``rule`` was set, as a phrase (``set in /etc/ipython/ipython_config.py``)."""
        return self.sources.get(rule, "set by the course")


def context_summary_text(names: Sequence[str], tokens: int) -> str:
    """``course context (COURSE.md, 1.2k tokens)``: the files' names, comma-separated, and
    their tokens — ``1.2k`` from 1,000 up (one decimal), else the number."""
    size = f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
    return f"course context ({', '.join(names)}, {size} tokens)"


RULE_NAMES = (
    "allowed_models",
    "max_cost_per_session",
    "max_tokens_per_session",
    "tools_deny",
    "require_approval",
    "mode",
    "context_files",
)
"""The rules by their ``AgentMagics`` trait names."""

_FIELD_OF = {"require_approval": "policies", "context_files": "context"}


def _value(rules: CourseRules, rule: str) -> object:
    return getattr(rules, _FIELD_OF.get(rule, rule))


def _joined(first: tuple[Item, ...], second: tuple[Item, ...]) -> tuple[Item, ...]:
    return tuple([*first, *(item for item in second if item not in first)])


def _lower(first: Number | None, second: Number | None) -> Number | None:
    if first is None or second is None:
        return second if first is None else first
    return min(first, second)


def course_policy(rules: Mapping[str, object]) -> CoursePolicy:
    """The course policy a ``require_approval`` setting describes: a dict with any of
    ``allow``, ``ask``, ``deny`` (lists of patterns, as for ``op.policy``) and ``default``.
    Another key, or a bad pattern, is a ``SetupError`` naming it."""
    unknown = sorted(set(rules) - {"allow", "ask", "deny", "default"})
    if unknown:
        raise SetupError(
            f"AgentMagics.require_approval: unknown key(s) {', '.join(map(repr, unknown))}; "
            "give a dict of 'allow', 'ask', 'deny' (lists of tool patterns) and 'default'"
        )
    allow, ask, deny = (cast(Sequence[str], rules.get(key, ())) for key in ("allow", "ask", "deny"))
    built = policy(allow, ask, deny, default=cast("str | None", rules.get("default")))
    return CoursePolicy(built.rules, built.default)


class SessionSpend:
    """What every run of this process has spent together: cost in dollars (``None`` once a
    run's cost was unknown — its price is not in the package's table) and tokens. Thread-safe:
    sync runs finish on worker threads."""

    def __init__(self) -> None:
        self.cost: float | None = 0.0
        self.tokens = 0
        self._lock = threading.Lock()

    def add(self, cost: float | None, tokens: int) -> None:
        """Count one top-level run's spending (nested runs are in their caller's)."""
        with self._lock:
            self.cost = None if cost is None or self.cost is None else self.cost + cost
            self.tokens += tokens


_state_lock = threading.Lock()
_installed = CourseRules()
_spend = SessionSpend()


def installed() -> CourseRules:
    """The course rules in force in this process (none set: ``CourseRules()``)."""
    return _installed


def install(rules: CourseRules) -> CourseRules:
    """Merge ``rules`` into the rules in force — only ever tighter
    (:meth:`CourseRules.tightened`) — and return the result."""
    global _installed
    with _state_lock:
        _installed = _installed.tightened(rules)
        return _installed


def session_spend() -> SessionSpend:
    """What the runs of this process have spent so far."""
    return _spend


def _forget_for_tests() -> None:
    """No course and nothing spent: for the package's own in-process tests only (a kernel's
    course is installed once, by ``%load_ext``)."""
    global _installed, _spend
    with _state_lock:
        _installed, _spend = CourseRules(), SessionSpend()
