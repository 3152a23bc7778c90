"""What a running tool call may ask for: :class:`ToolContext` (its ids, its Runtime, its cancel flag, progress).

Declared in the core, below the tools, because the call frame every nested run reads
(:class:`~openprogram_jupyter.core._ambient.CallFrame`) carries one; the tools layer hands it
to a tool that declares a parameter annotated ``ToolContext`` (public as ``op.ToolContext``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._stop import StopToken

if TYPE_CHECKING:
    from ._engine_shapes import RuntimeLike

__all__ = ["ToolContext"]


@dataclass
class ToolContext:
    """Handed to a tool that declares a parameter annotated ``ToolContext``.

    ``cancelled`` is set when the run is stopped or the call timed out: a long-running
    sync tool should check it and return early, since Python cannot stop a thread.
    ``report(data)`` sends a ``tool_execution_update`` event (progress) to every watcher.
    """

    tool_call_id: str
    tool_name: str
    run_id: str
    depth: int
    runtime: RuntimeLike | None
    cancelled: threading.Event = field(default_factory=StopToken)
    _report: Callable[[Any], None] | None = None

    def report(self, data: object) -> None:
        """Publish progress; safe to call from any thread."""
        if self._report is not None:
            self._report(data)
