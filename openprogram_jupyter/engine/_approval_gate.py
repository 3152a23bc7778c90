"""Whether one call may run: every approver of its run's context, in order, gets its say.

A run's approvers (:class:`~._run_context.RunContext`) are the outermost run's first, then
each nested run's own; a rerun's recorded answers come before them all. The call runs only
if every one lets it: the first that refuses decides the result, an edit gives the
arguments every later approver is asked about and the call runs with. One approver alone
behaves as ever:

- an ``op.policy`` decides every call by its rules (allow, deny, or ask its ``ask_with``);
  a call no rule matches goes on as without a policy;
- an approver function is asked about a ``requires_approval`` tool's calls, and about
  every call in step mode (or when a rerun asks again about a refusal it recorded);
- with no approver at all, a call that would ask is denied, saying so.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core._json import JsonObject
from ..core._run_context import RecordedAnswers
from ..core.approval_policy import Decision, Policy
from ..core.approvals import ApprovalAnswer, Edit, Skip, answer_kind
from ..core.errors import OpenProgramError
from ..core.events import Event, ToolExecutionUpdateEvent
from ..core.messages import ToolCall, ToolResultStatus
from ..tools._schema import ArgumentError
from ..tools.base import Tool

__all__ = ["ApprovalRequest", "Approver", "Cleared", "Refused", "clear_call"]

_NO_APPROVER = (
    "denied: {name} requires approval and no approver is configured "
    "(the user did not see this call; give the Runtime approve=...)"
)
_NO_ONE_TO_ASK = (
    "denied: the approval policy says to ask about {name}, and it has no one to ask "
    "(the user did not see this call; give op.policy(..., ask_with=...), or run it in a notebook)"
)
_RECORDED_KEYS = ("approval", "approval_by", "approval_rule", "edited_arguments")


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver is asked about: the call, and the tool that would run it."""

    tool_call: ToolCall
    tool: Tool

    @property
    def tool_name(self) -> str:
        return self.tool_call.name

    @property
    def arguments(self) -> JsonObject:
        return self.tool_call.arguments


Approver = Callable[[ApprovalRequest], ApprovalAnswer | Awaitable[ApprovalAnswer]]
"""Answers a call that asks: ``True``, ``False``, ``op.edit(**arguments)`` or
``op.skip(reason)`` (:mod:`openprogram_jupyter.core.approvals`), or an awaitable of one."""


@dataclass
class Cleared:
    """The call may run, with ``kwargs`` (validated); ``edited``: the arguments an approver
    gave instead of the model's; ``details``: what the result records of who let it run."""

    kwargs: dict[str, Any]
    edited: JsonObject | None = None
    details: JsonObject = field(default_factory=dict)


@dataclass(frozen=True)
class Refused:
    """The call does not run: its result's ``status``, the ``text`` the model reads, and
    ``details`` recording who refused it and why."""

    status: ToolResultStatus
    text: str
    details: JsonObject = field(default_factory=dict)


async def clear_call(
    call: ToolCall,
    tool: Tool,
    kwargs: dict[str, Any],
    approvers: Sequence[Any],
    *,
    step: bool,
    emit: Callable[[Event], Any],
) -> Cleared | Refused:
    """Ask ``approvers`` in order about ``call`` (module docstring); ``step``: the run is in
    step mode. Emits ``awaiting_approval`` / ``approved`` updates through ``emit``."""
    cleared = Cleared(kwargs)
    recorded = [approver for approver in approvers if isinstance(approver, RecordedAnswers)]
    deciders = [approver for approver in approvers if not isinstance(approver, RecordedAnswers)] or [None]
    asks = step or tool.options.requires_approval
    for answers in recorded:
        verdict = _recorded(call, tool, answers)
        if verdict == "ask":
            asks = True
        elif isinstance(verdict, Refused):
            return verdict
        elif isinstance(verdict, Cleared):
            cleared = _merged(cleared, verdict)
    for approver in deciders:
        now = call if cleared.edited is None else call.model_copy(update={"arguments": cleared.edited})
        verdict = await _through(now, tool, approver, asks=asks, emit=emit)
        if isinstance(verdict, Refused):
            return verdict
        cleared = _merged(cleared, verdict)
    return cleared


def _merged(before: Cleared, after: Cleared) -> Cleared:
    edited = after.edited if after.edited is not None else before.edited
    kwargs = after.kwargs if after.edited is not None else before.kwargs
    return Cleared(kwargs, edited, {**before.details, **after.details})


def _recorded(call: ToolCall, tool: Tool, answers: RecordedAnswers) -> Cleared | Refused | str | None:
    """The recording's answer about ``call``: its refusal again (``"ask"`` when the rerun
    asks again instead), its edit again, or ``None`` when it recorded none."""
    result = answers.results.get(call.id or "")
    if result is None:
        return None
    details: JsonObject = {key: result.details[key] for key in _RECORDED_KEYS if key in result.details}
    details["approval_recorded"] = True
    if result.status in ("denied", "skipped"):
        return "ask" if answers.ask_again else Refused(result.status, result.text, details)
    edited = result.details.get("edited_arguments")
    try:
        return Cleared(tool.validate(dict(edited)), edited, details)
    except (ArgumentError, TypeError, ValueError) as error:
        return Refused(
            "denied",
            f"denied: the recorded edited arguments for {call.name} no longer fit the "
            f"tool ({error}); the call did not run",
            {**details, "approval": "denied"},
        )


async def _through(
    call: ToolCall, tool: Tool, approver: Any, *, asks: bool, emit: Callable[[Event], Any]
) -> Cleared | Refused:
    """One approver's say about ``call``: a policy's rule, else its asking when the call
    ``asks``; an approver function's answer when it ``asks``; no opinion otherwise."""
    if isinstance(approver, Policy):
        decision = approver.decide(call.name, call.arguments)
        if decision is not None:
            return await _decided(call, tool, approver, decision, emit)
        if not asks:
            return Cleared({})
        return await _asked(call, tool, approver.ask_with, _NO_ONE_TO_ASK, emit)
    if not asks:
        return Cleared({})
    return await _asked(call, tool, approver, _NO_APPROVER, emit)


async def _decided(
    call: ToolCall, tool: Tool, policy: Policy, decision: Decision, emit: Callable[[Event], Any]
) -> Cleared | Refused:
    """A call a policy's rule (or its default) decided: run, refuse, or ask. The details
    record the rule (``approval_rule``) and who decided (``approval_by``: ``"policy"``,
    ``"user"``, or ``"nobody"`` when there was no one to ask)."""
    rule: JsonObject = {"approval_rule": decision.record()}
    if decision.action == "deny":
        return Refused(
            "denied",
            f"denied by {decision.describe()} of the approval policy: {call.name} did not run",
            {"approval": "denied", "approval_by": "policy", **rule},
        )
    if decision.action == "allow":
        return Cleared({}, None, {"approval": "approved", "approval_by": "policy", **rule})
    verdict = await _asked(call, tool, policy.ask_with, _NO_ONE_TO_ASK, emit)
    verdict.details.setdefault("approval_by", "user")
    if isinstance(verdict, Refused):
        verdict.details.setdefault("approval", "denied")  # the approver failed: the call did not run
    verdict.details.update(rule)
    return verdict


async def _asked(call: ToolCall, tool: Tool, ask: Any, nobody: str, emit: Callable[[Event], Any]) -> Cleared | Refused:
    """``ask``'s answer: the call runs as sent or as edited, or is denied or skipped (also
    when there is no one to ask, ``nobody`` saying so, or the approver fails)."""
    if ask is None:
        return Refused("denied", nobody.format(name=call.name), {"approval_by": "nobody"})
    emit(ToolExecutionUpdateEvent(tool_call_id=call.id or "", tool_name=call.name, status="awaiting_approval"))
    try:
        answer = ask(ApprovalRequest(call, tool))
        if inspect.isawaitable(answer):
            answer = await answer
        kind = answer_kind(answer)
    except asyncio.CancelledError:
        raise
    except OpenProgramError as error:  # our own words say what was wrong
        return Refused("denied", f"denied: the approval check failed: {error}")
    except Exception as error:  # an approver's own error: its kind says what it was
        return Refused("denied", f"denied: the approval check failed ({type(error).__name__}: {error})")
    if isinstance(answer, Skip):
        reason = f"skipped by the user: {answer.reason}" if answer.reason else "skipped by the user (no reason given)"
        return Refused(
            "skipped", f"{reason}. The call did not run.", {"approval": "skipped", "skip_reason": answer.reason}
        )
    if kind == "deny":
        return Refused("denied", f"denied: the user did not approve this call to {call.name}", {"approval": "denied"})
    emit(ToolExecutionUpdateEvent(tool_call_id=call.id or "", tool_name=call.name, status="approved"))
    if not isinstance(answer, Edit):
        return Cleared({}, None, {"approval": "approved"})
    edited = answer.arguments
    try:
        kwargs = tool.validate(dict(edited))
    except ArgumentError as error:
        return Refused(
            "denied",
            f"denied: the user's edited arguments for {call.name} are invalid ({error}); the call did not run",
            {"approval": "denied", "edited_arguments": edited},
        )
    return Cleared(kwargs, edited, {"approval": "edited", "edited_arguments": edited})
