"""What the live view's buttons do: :class:`Controls`, the callbacks a view is given.

The view never acts on a click itself: Stop, Send, Approve / Deny, the step buttons and a
question's answer
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
    :class:`Always`). ``questions`` returns the tool questions waiting (``ctx.ask``), by call
    id; ``answer(call_id, text)`` answers one and returns why it was not taken, else ``None``.
    """

    def __init__(
        self,
        stop: Callable[[], None] | None = None,
        steer: Callable[[str], None] | None = None,
        decide: Callable[[str, Any], str | None] | None = None,
        awaiting: Callable[[], set[str]] | None = None,
        step: bool = False,
        always: bool = False,
        questions: Callable[[], dict[str, Any]] | None = None,
        answer: Callable[[str, str], str | None] | None = None,
    ) -> None:
        self.stop = stop
        self.steer = steer
        self.decide = decide
        self.awaiting = awaiting or (lambda: set())
        self.step = step
        self.always = always
        self.questions = questions or (lambda: {})
        self.answer = answer
