"""Pins: what compaction never replaces with its summary (``op.pin``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar, overload

from .messages import ToolResultMessage, UserMessage

__all__ = ["Pinned", "pin"]

M = TypeVar("M", UserMessage, ToolResultMessage)


@dataclass(frozen=True)
class Pinned:
    """A tool's return ``value``, whose result is to be pinned (what ``op.pin(value)``
    returns for anything but a message)."""

    value: Any


@overload
def pin(target: M) -> M: ...  # type: ignore[overload-overlap]  # a message is returned, not wrapped
@overload
def pin(target: object) -> Pinned: ...
def pin(target: Any) -> Any:
    """Keep ``target`` whole through every compaction (docs/semantics.md, "Compaction").

    - a user message or a tool result (``op.UserMessage``, ``op.ToolResultMessage``: a
      prompt, a message of ``messages=``, ``run.tool_results[i]``, a session's message) is
      marked ``pinned`` in place and returned — pinned in every run it is sent in;
    - any other value is what a tool body returns to pin its own result:
      ``return op.pin(table)``; the model reads ``table`` as usual, and the result (with the
      reply that made its call) is never summarised away.

    An assistant reply cannot be pinned alone (pin the result of its call); passing one
    raises ``TypeError``.
    """
    if isinstance(target, (UserMessage, ToolResultMessage)):
        target.pinned = True
        return target
    if type(target).__name__ == "AssistantMessage" and hasattr(target, "tool_calls"):
        raise TypeError("op.pin: a reply cannot be pinned alone; pin the result of its call (run.tool_results[i])")
    return Pinned(target)
