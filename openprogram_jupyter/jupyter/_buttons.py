"""What the live view's buttons do: :class:`Controls`, the callbacks a view is given.

The view never acts on a click itself: Stop, Send and Approve / Deny call these, from
whatever thread the kernel handles comm messages on, and the run reads the flags and
queues they set.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Controls"]


class Controls:
    """What the view's buttons do. Every callback must be thread-safe and quick.

    ``stop()`` asks the run to end; ``steer(text)`` queues a user message;
    ``decide(call_id, approved)`` answers an approval request. ``awaiting`` returns the
    ids of calls currently waiting for Approve / Deny.
    """

    def __init__(
        self,
        stop: Callable[[], None] | None = None,
        steer: Callable[[str], None] | None = None,
        decide: Callable[[str, bool], None] | None = None,
        awaiting: Callable[[], set[str]] | None = None,
    ) -> None:
        self.stop = stop
        self.steer = steer
        self.decide = decide
        self.awaiting = awaiting or (lambda: set())
