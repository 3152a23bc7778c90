"""The tree of a finished ``Run``: :func:`tree_of`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.errors import ProviderError
from ...core.messages import Usage
from .builder import TreeBuilder, tree_from_messages
from .nodes import RunNode

if TYPE_CHECKING:
    from ...core._engine_shapes import RunRecord

__all__ = ["tree_of"]


def tree_of(run: RunRecord, folded: TreeBuilder | None = None) -> RunNode:
    """The tree of a finished ``Run``: its events folded, then checked against the Run.

    ``folded`` is a builder that has folded the run's events already (a live view's): when
    it has seen exactly as many events as the Run holds, its tree is used (and settled as
    below) instead of folding them again. A Run without events (built by hand, or loaded
    from messages) is rebuilt from ``run.messages``. The Run's own ``stop_reason``,
    ``error``, ``usage``, ``model``, ``started_at`` and ``ended_at`` win over what the
    events said, since they are the final word. Calls still open in a finished run read as
    ``"interrupted"``.
    """
    events = getattr(run, "events", None) or []
    reuse = folded is not None and folded.events_seen == len(events)
    root = (folded if reuse and folded is not None else TreeBuilder().apply_all(list(events))).root
    if root is None:
        root = tree_from_messages(run)
    root.model = str(getattr(run, "model", "") or root.model or "")
    stop_reason = getattr(run, "stop_reason", None)
    if stop_reason:
        root.stop_reason = stop_reason
    error = getattr(run, "error", None)
    if error:
        root.error = error if isinstance(error, ProviderError) else ProviderError.of_reply(str(error), None)
    usage = getattr(run, "usage", None)
    if isinstance(usage, Usage):
        root.usage = usage
    started, ended = getattr(run, "started_at", None), getattr(run, "ended_at", None)
    if started:
        root.started_at = started
    if ended:
        root.ended_at = ended
    _close_open_calls(root)
    return root


def _close_open_calls(run: RunNode) -> None:
    """A finished run has no call still 'running' in its picture (a view of an old run
    must not pretend work is going on): calls without a result read as interrupted."""
    if not run.finished:
        return
    for call in run.calls():
        if not call.finished:
            call.status = "interrupted"
        for child in call.children:
            if child.stop_reason is None:
                child.stop_reason = run.stop_reason
            _close_open_calls(child)
