"""What a tool body can see of the run that called it, through a contextvar.

The loop sets :data:`current_call` around each tool call; worker threads receive a copy of
the context, so a nested ``runtime.exec`` inside a tool knows its parent: the depth, the
call that opened it (its events become that call's children), the ``tools=`` list to
inherit, and the cancel flag that should stop it too. :func:`ambient_runtime` is the
Runtime an agentic function uses when none is passed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._engine_shapes import RuntimeLike
    from ._run_context import RunContext
    from ._tool_context import ToolContext

__all__ = ["CallBudget", "CallFrame", "ambient_runtime", "current_call", "current_runtime", "provide_default_runtime"]


@dataclass(frozen=True)
class CallFrame:
    """The running call (its :class:`ToolContext`: runtime, depth, id, cancel flag), the
    ``tools=`` list a nested run inherits, where the nested run's events go, the
    top-level run's tool-call budget, which nested runs share, the calling run's
    settings (a nested run inherits some: ``settings.inherited``), and its run context
    (approvers, denied tools, depth cap, grace: a nested run derives its own from it)."""

    context: ToolContext
    tools: Sequence[object] | None
    emit: Callable[[Any], None]
    budget: CallBudget | None = None
    settings: Mapping[str, Any] | None = None
    run_context: RunContext | None = None


class CallBudget:
    """How many tool calls one top-level run may still make, nested runs' calls included
    (``limit`` ``None``: no limit). Thread-safe: nested runs may run on other threads."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Count one call; ``False`` (and nothing counted) once the limit is reached."""
        with self._lock:
            if self.limit is not None and self.used >= self.limit:
                return False
            self.used += 1
            return True


current_call: ContextVar[CallFrame | None] = ContextVar("openprogram_current_call", default=None)


def current_runtime() -> RuntimeLike | None:
    """The Runtime of the run whose tool is executing now, if any."""
    frame = current_call.get()
    return frame.context.runtime if frame is not None else None


_default_runtime: Callable[[], RuntimeLike] | None = None


def provide_default_runtime(factory: Callable[[], RuntimeLike]) -> None:
    """Called once by :mod:`openprogram_jupyter.engine.runtime` when it is imported (the package
    imports it with the first public name used, ``op.function``, ``op.Runtime``, ...)."""
    global _default_runtime
    _default_runtime = factory


def ambient_runtime() -> RuntimeLike:
    """The Runtime of the run whose tool is executing, else the process-wide default one."""
    runtime = current_runtime()
    if runtime is not None:
        return runtime
    if _default_runtime is None:
        raise RuntimeError(
            "no default Runtime: openprogram_jupyter.engine.runtime was not imported (it loads with the "
            "first name used from openprogram_jupyter); import it, or pass runtime="
        )
    return _default_runtime()
