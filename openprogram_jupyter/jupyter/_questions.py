"""The tools' questions waiting for the person at a live view: :class:`WaitingQuestions`.

A tool's thread asks (:meth:`WaitingQuestions.wait`) and blocks on an event; the card's box
or buttons answer (:meth:`WaitingQuestions.answer`) from the kernel's comm thread; the
view's writer reads what waits (:meth:`WaitingQuestions.waiting`) to draw it. No widget
is touched here, and every method is thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..core._asking import Question
from ..core.errors import AskError

__all__ = ["AskedQuestion", "WaitingQuestions"]

POLL_SECONDS = 0.05
"""How often a waiting question looks at the Stop flag and its deadline."""


class AskedQuestion:
    """A question waiting in a card: the :class:`Question`, its ``number`` (the card's
    widgets belong to this one question), and the answer once given."""

    def __init__(self, question: Question, number: int) -> None:
        self.question = question
        self.number = number
        self.answered = threading.Event()
        self.answer = ""

    def give(self, text: str) -> None:
        """Answer with ``text`` (the first answer wins)."""
        if not self.answered.is_set():
            self.answer = text
            self.answered.set()


class WaitingQuestions:
    """The questions of one run that wait for an answer, by call id. ``stop`` is the run's
    Stop flag; ``clock`` what a question's timeout is measured on."""

    def __init__(self, stop: threading.Event, clock: Callable[[], float] = time.monotonic) -> None:
        self._stop = stop
        self._clock = clock
        self._lock = threading.Lock()
        self._waiting: dict[str, AskedQuestion] = {}
        self._count = 0

    def wait(self, question: Question, cancelled: threading.Event) -> str:
        """Show ``question`` until it is answered, and return the answer (on the tool's
        thread, which it blocks). Raises ``AskError`` when the run is stopped (``stop`` or
        the call's ``cancelled``) or ``question.timeout`` seconds pass first."""
        with self._lock:
            self._count += 1
            asked = AskedQuestion(question, self._count)
            self._waiting[question.call_id] = asked
        deadline = None if question.timeout is None else self._clock() + question.timeout
        try:
            while not asked.answered.wait(POLL_SECONDS):
                if self._stop.is_set() or cancelled.is_set():
                    raise AskError(f"the run was stopped while {question.tool_name} waited for an answer")
                if deadline is not None and self._clock() >= deadline:
                    raise AskError(f"no answer to {question.text!r} within {question.timeout:g} s")
            return asked.answer
        finally:
            with self._lock:
                if self._waiting.get(question.call_id) is asked:
                    del self._waiting[question.call_id]

    def waiting(self) -> dict[str, AskedQuestion]:
        """The questions waiting now, by call id."""
        with self._lock:
            return dict(self._waiting)

    def answer(self, call_id: str, text: str) -> str | None:
        """Answer the question call ``call_id`` waits on with ``text``; returns why it was
        not taken (an empty answer, or no question waiting), else ``None``."""
        with self._lock:
            asked = self._waiting.get(call_id)
        if asked is None:
            return "That question is no longer waiting for an answer."
        if not text.strip():
            return "The answer is empty: type it, then press Enter or Send."
        asked.give(text)
        return None
