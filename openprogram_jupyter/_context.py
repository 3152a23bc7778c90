"""What a tool body can see of the run that called it, through a contextvar.

The loop sets :data:`current_call` around each tool call; worker threads receive a copy of
the context, so a nested ``runtime.exec`` inside a tool knows its parent: the depth, the
call that opened it (its events become that call's children), the ``tools=`` list to
inherit, and the cancel flag that should stop it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tools.base import ToolContext

__all__ = ["CallFrame", "current_call"]


@dataclass(frozen=True)
class CallFrame:
    """The running call (its :class:`ToolContext`: runtime, depth, id, cancel flag), the
    ``tools=`` list a nested run inherits, and where the nested run's events go."""

    context: ToolContext
    tools: Sequence[object] | None
    emit: Callable[[Any], None]


current_call: ContextVar[CallFrame | None] = ContextVar("openprogram_current_call", default=None)
