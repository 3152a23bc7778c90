"""What the live view's buttons do: :class:`Controls`, the callbacks a view is given.

The view never acts on a click itself: Stop, Send, Approve / Deny and the step buttons
call these, from
whatever thread the kernel handles comm messages on, and the run reads the flags and
queues they set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Always", "Controls"]


@dataclass(frozen=True)
class Always:
    """The answer of an "Always allow" (``allow=True``) or "Always deny" click: this call is
    run (denied), and a session rule for its tool, by exact name, answers later calls."""

    allow: bool


class Controls:
    """What the view's buttons do. Every callback must be thread-safe and quick.

    ``stop()`` asks the run to end; ``steer(text)`` queues a user message;
    ``decide(call_id, answer)`` answers a waiting call (``True``, ``False``, an
    :class:`~openprogram_jupyter.core.approvals.Edit` or :class:`~openprogram_jupyter.core.approvals.Skip`)
    and returns why the answer was not taken (arguments the schema refuses), else ``None``.
    ``awaiting`` returns the ids of calls currently waiting. With ``step`` every pick waits,
    and its card shows Run / Edit / Skip / Stop rather than Approve / Deny. With ``always``
    a waiting card also shows Always allow / Always deny (``decide`` then takes an
    :class:`Always`).
    """

    def __init__(
        self,
        stop: Callable[[], None] | None = None,
        steer: Callable[[str], None] | None = None,
        decide: Callable[[str, Any], str | None] | None = None,
        awaiting: Callable[[], set[str]] | None = None,
        step: bool = False,
        always: bool = False,
    ) -> None:
        self.stop = stop
        self.steer = steer
        self.decide = decide
        self.awaiting = awaiting or (lambda: set())
        self.step = step
        self.always = always
