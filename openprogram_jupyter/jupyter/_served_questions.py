"""What a served tool asks (``ctx.ask``), answered in the serving cell's card: :class:`ServedQuestions`.

A call an MCP client makes runs with :meth:`ServedQuestions.ask` as its run's asker: the
tool's thread blocks until the card's box or buttons answer (:meth:`answer`, from the
kernel's comm thread). No card on screen to answer in, no answer within
:attr:`ServedQuestions.timeout` seconds (or the question's own ``timeout=``, if shorter), or
the call cancelled (the client went away, the server stopped) raise ``op.AskError`` in the
tool, saying which; the tool can catch it and go on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core._asking import Question
from ..core.errors import AskError
from ._card_listeners import CardListeners

__all__ = ["QUESTION_TIMEOUT_SECONDS", "ServedQuestions", "WaitingQuestion"]

QUESTION_TIMEOUT_SECONDS = 120.0
"""How long a served tool's question waits for an answer (the default)."""

_POLL_SECONDS = 0.05


@dataclass
class WaitingQuestion:
    """A served call's question on screen: the :class:`Question`, its ``number`` (the card's
    widgets belong to this one question) and, once given, its ``answer``."""

    question: Question
    number: int
    answered: threading.Event = field(default_factory=threading.Event)
    answer: str = ""


class ServedQuestions:
    """The questions of one server's calls. ``answerable``: a card is on screen to answer
    them (set by the card); ``timeout``: seconds a question waits at most."""

    def __init__(self, timeout: float = QUESTION_TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self.answerable = False
        self._waiting: dict[str, WaitingQuestion] = {}
        self._count = 0
        self._lock = threading.Lock()
        self._listeners = CardListeners()
        self._ended = threading.Event()

    def ask(self, question: Question, cancelled: threading.Event) -> str:
        """Show ``question`` in the card and return the answer (blocking the tool's thread);
        ``AskError`` when no card can answer, no answer comes in time, or ``cancelled`` is set."""
        if not self.answerable:
            raise AskError(
                f"{question.tool_name} asked {question.text!r} during a call from an MCP client, and no card "
                "can answer (show the server's card: %agent serve, or op.serve(...) on a cell's last line)"
            )
        wait = self.timeout if question.timeout is None else min(question.timeout, self.timeout)
        with self._lock:
            self._count += 1
            waiting = WaitingQuestion(question, self._count)
            self._waiting[question.call_id] = waiting
        self._changed()
        deadline = time.monotonic() + wait
        try:
            while not waiting.answered.wait(_POLL_SECONDS):
                if cancelled.is_set():
                    raise AskError(f"the call was cancelled while {question.tool_name} waited for an answer")
                if self._ended.is_set():
                    raise AskError(f"the server stopped while {question.tool_name} waited for an answer")
                if time.monotonic() >= deadline:
                    raise AskError(f"nobody answered {question.text!r} in the notebook within {wait:g} s")
            return waiting.answer
        finally:
            with self._lock:
                if self._waiting.get(question.call_id) is waiting:
                    del self._waiting[question.call_id]
            self._changed()

    def end(self) -> None:
        """End every waiting question now (``AskError`` in its tool: the server is stopping),
        and every later one at once."""
        self.answerable = False
        self._ended.set()

    def waiting(self) -> list[WaitingQuestion]:
        """The questions waiting now, oldest first."""
        with self._lock:
            return list(self._waiting.values())

    def answer(self, call_id: str, text: str) -> str | None:
        """Answer the question of call ``call_id`` with ``text``; returns why it was not taken
        (an empty answer, or no question waiting), else ``None``."""
        with self._lock:
            waiting = self._waiting.get(call_id)
        if waiting is None:
            return "That question is no longer waiting for an answer."
        if not text.strip():
            return "The answer is empty: type it, then press Send."
        if not waiting.answered.is_set():
            waiting.answer = text
            waiting.answered.set()
        return None

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` whenever a question starts or stops waiting."""
        self._listeners.add(listener)

    def _changed(self) -> None:
        self._listeners.notify()
