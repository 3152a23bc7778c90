"""Where a rerun parts from its recording: comparing one round's results with the recorded ones.

A rerun (``Run.rerun``) plays back each recorded reply and runs its calls again with the
tools as they are now. A round matches when every call's result reads the same to the
model — the same ``is_error`` and the same content blocks — as the recorded one (details
for people, timings and ids are not compared), or, with the user's ``same(recorded,
now)``, when that says so. The first call that does not is the
:class:`~openprogram_jupyter.core.events.Divergence`, with a sentence saying why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core._json import JsonObject
from ..core.errors import ArgumentError
from ..core.events import Divergence
from ..core.messages import ToolCall, ToolResultMessage
from ..tools.menu import Menu
from .spec import ReplayedRound, RerunPlan

__all__ = ["Same", "divergence_of", "recording_ended", "round_to_rerun"]

Same = Callable[[ToolResultMessage, ToolResultMessage], object]


def round_to_rerun(plan: RerunPlan | None, number: int, diverged: bool) -> ReplayedRound | None:
    """The recorded round to play back as round ``number`` of a rerun; ``None`` when this
    is no rerun, it has diverged already, or the recording has no such round."""
    if plan is None or diverged or not 1 <= number <= len(plan.rounds):
        return None
    return plan.rounds[number - 1]


def recording_ended(plan: RerunPlan | None, rounds_so_far: int, diverged: bool) -> Divergence | None:
    """In a rerun still following its recording whose every round has been played, the
    divergence of asking for one more round; ``None`` otherwise."""
    if plan is None or diverged or rounds_so_far < len(plan.rounds):
        return None
    return Divergence(
        round=rounds_so_far,
        why=f"the recording ends after round {rounds_so_far}, and this rerun goes on to another round",
    )


def divergence_of(
    number: int, recorded: ReplayedRound, results: Sequence[ToolResultMessage], menu: Menu, same: Same | None = None
) -> Divergence | None:
    """The first call of round ``number`` whose result now (``results``, in the calls'
    order) differs from the recorded one; ``None`` when every result reads the same.
    ``same(recorded, now)`` replaces the comparison; one that raises counts as different,
    its error the reason."""
    was = {result.tool_call_id: result for result in recorded.results}
    for call, now in zip(recorded.reply.tool_calls, results, strict=False):
        before = was.get(call.id or "")
        judged = _judged_same(same, before, now) if before is not None else False
        if judged is True:
            continue
        why = judged if isinstance(judged, str) else _why(call, before, now, menu)
        return Divergence(
            round=number,
            why=why,
            tool_call_id=call.id,
            tool_name=call.name,
            arguments=dict(call.arguments),
            recorded=before,
            now=now,
        )
    return None


def _judged_same(same: Same | None, before: ToolResultMessage, now: ToolResultMessage) -> bool | str:
    """``True`` when the two results count as the same, ``False`` when not, or why the
    user's ``same`` could not say."""
    if same is None:
        return _as_the_model_reads(before) == _as_the_model_reads(now)
    try:
        return bool(same(before, now))
    except Exception as error:
        return f"same(recorded, now) raised {type(error).__name__}: {error}"


def _as_the_model_reads(result: ToolResultMessage) -> tuple[bool, list[JsonObject]]:
    return result.is_error, [block.model_dump(mode="json") for block in result.content]


def _why(call: ToolCall, before: ToolResultMessage | None, now: ToolResultMessage, menu: Menu) -> str:
    tool = menu.get(call.name)
    if tool is None:
        return f"{call.name} is no longer one of the tools, so the recorded call cannot run"
    try:
        tool.validate(dict(call.arguments))
    except ArgumentError as error:
        return f"the recorded arguments no longer fit {call.name}'s schema: {error}"
    if before is None:
        return f"the recording has no result for this call of {call.name}"
    if before.is_error != now.is_error:
        return f"{call.name} {'failed' if now.is_error else 'succeeded'} now; in the recording it " + (
            "succeeded" if now.is_error else "failed"
        )
    return f"{call.name} returned a different result"
