"""The run context: what governs a run's safety, made once per run and derived by every run
it starts.

A top-level run's context comes from its Runtime and its own ``approve=``
(:meth:`RunContext.top`). A run started inside a tool body (a nested run: an
``@agentic_function``, or any ``runtime.exec`` in a tool) derives its own from the calling
run's (:meth:`RunContext.inner`), so it can add rules and never drop one. A fork or a rerun
derives its own from the recorded run's (:meth:`RunContext.carried`), through the engine.
It lives in the core, below the tools, because a tool's call frame carries it to the runs
the tool starts (:class:`~openprogram_jupyter.core._ambient.CallFrame`); which public
functions start a run, and what each inherits, is the engine's
:data:`~openprogram_jupyter.engine._run_context.ENTRY_POINTS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._ambient import CallBudget
from .approval_policy import Policy

__all__ = ["RecordedAnswers", "RunContext"]


@dataclass(frozen=True)
class RecordedAnswers:
    """A rerun's recorded refusals and edits, by tool-call id: the recorded result of every
    call that did not run because it was denied or skipped (by a policy, the user or step
    mode), and of every call that ran with the user's edited arguments. With ``ask_again``
    (the rerun was given an ``approve=`` of its own) a refused call is asked about again,
    as if in step mode, instead of being refused with its recorded result. ``asked``: the
    answers the user gave each call's ``ctx.ask`` questions (and an MCP server's
    elicitations), in order, given back without asking (``None``: it got no answer, and
    gets none again)."""

    results: Mapping[str, Any]
    ask_again: bool = False
    asked: Mapping[str, tuple[str | None, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, results: Iterable[Any], *, ask_again: bool) -> RecordedAnswers | None:
        """The refusals, edits and answers among ``results`` (``ToolResultMessage``
        objects); ``None`` when there are none."""
        results = list(results)
        kept = {
            result.tool_call_id: result
            for result in results
            if result.status in ("denied", "skipped") or result.details.get("approval") == "edited"
        }
        asked = {
            result.tool_call_id: tuple(
                str(entry["answer"]) if "answer" in entry else None for entry in result.details["answers"]
            )
            for result in results
            if isinstance(result.details.get("answers"), list)
            and all(isinstance(entry, dict) for entry in result.details["answers"])
        }
        return cls(kept, ask_again, asked) if kept or asked else None


@dataclass(frozen=True)
class RunContext:
    """What governs one run's safety.

    ``approvers``: every approver a call must get past, the outermost run's first (an
    ``op.policy`` — the notebook's copy carries the session's "Always" rules — or an
    approver function, or a rerun's :class:`RecordedAnswers`); ``tools_deny``: tool-name
    globs no menu of this run or of a run it starts may offer; ``max_depth``: the deepest a
    run it starts may nest; ``cancel_grace``: how long a stopped tool may take to notice;
    ``budget``: the tool calls left, shared with the runs it starts (``max_tool_calls``);
    ``asker``: who answers a tool's ``ctx.ask`` (:data:`~._asking.Asker`; ``None``: no
    person can, and ``ctx.ask`` raises ``AskError``), shared with the runs it starts.
    """

    approvers: tuple[Any, ...] = ()
    tools_deny: tuple[str, ...] = ()
    max_depth: int = 8
    cancel_grace: float = 0.5
    budget: CallBudget = field(default_factory=lambda: CallBudget(None))
    asker: Any = None

    @classmethod
    def top(
        cls,
        approve: Any,
        *,
        tools_deny: Iterable[str],
        max_depth: int,
        cancel_grace: float,
        max_tool_calls: int | None,
        asker: Any = None,
    ) -> RunContext:
        """A top-level run's context: its approver (the run's own ``approve=``, else its
        Runtime's), its Runtime's deny list, depth cap and grace, a budget of its own, and
        who answers its tools' questions."""
        return cls(
            () if approve is None else (approve,),
            tuple(tools_deny),
            max_depth,
            cancel_grace,
            CallBudget(max_tool_calls),
            asker,
        )

    def inner(
        self, approve: Any, *, tools_deny: Iterable[str], max_depth: int, cancel_grace: float, asker: Any = None
    ) -> RunContext:
        """The context of a run started inside this one: this run's approvers, then
        ``approve`` (the inner run's own, unless it is one of them already); both deny
        lists; the lower depth cap and grace; this run's budget; this run's asker (else
        the inner run's own)."""
        known = any(approve is mine for mine in self.approvers)
        return RunContext(
            self.approvers if approve is None or known else (*self.approvers, approve),
            _union(self.tools_deny, tools_deny),
            min(self.max_depth, max_depth),
            min(self.cancel_grace, cancel_grace),
            self.budget,
            self.asker if self.asker is not None else asker,
        )

    def carried(self, max_tool_calls: int | None) -> RunContext:
        """This context for a fork or a rerun of the run it governed, with a budget of
        ``max_tool_calls`` of its own: the same rules, minus what belonged to the run's
        moment — a policy's asking borrowed from a live view (that view has ended, so the
        new run asks with its own view, or has no one to ask), its asker, and a rerun's
        recorded answers."""
        kept = tuple(
            approver.without_view() if isinstance(approver, Policy) else approver
            for approver in self.approvers
            if not isinstance(approver, RecordedAnswers)
        )
        return dataclasses.replace(self, approvers=kept, budget=CallBudget(max_tool_calls), asker=None)

    def replacing_approvers(self, approve: Any) -> RunContext:
        """This context with ``approve`` as its only approver (a fork or rerun given
        ``approve=`` of its own: the caller decides, as ``approve=`` does on any run)."""
        return dataclasses.replace(self, approvers=() if approve is None else (approve,))

    def recorded_answers(self) -> RecordedAnswers | None:
        """The rerun's recorded answers among the approvers, if any."""
        return next((approver for approver in self.approvers if isinstance(approver, RecordedAnswers)), None)

    def with_recorded(self, recorded: RecordedAnswers | None) -> RunContext:
        """This context with a rerun's recorded answers checked before every approver."""
        return self if recorded is None else dataclasses.replace(self, approvers=(recorded, *self.approvers))


def _union(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*first, *second]))
