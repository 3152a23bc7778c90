"""A question a running tool puts to the person at the notebook: :class:`Question`.

A tool asks with ``ctx.ask(question, choices=None, timeout=None)``
(:meth:`~openprogram_jupyter.core._tool_context.ToolContext.ask`); an MCP server asks with
``elicitation/create``. Whoever can answer — the live view's card, the terminal's
``input()`` — is the run's **asker**: a function that takes a :class:`Question` and the
call's cancel flag, blocks its (worker) thread until the answer, and returns it, or raises
:class:`~openprogram_jupyter.core.errors.AskError`. It lives in the core because the run
context, which a nested run inherits, carries it.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Asker", "Question", "checked_question"]

MAX_QUESTION_CHARS = 4000
"""The longest question a tool may ask (a card is not a document)."""


@dataclass(frozen=True)
class Question:
    """One question of one call: ``text``; ``choices`` (the answer is one of them, picked
    with a button) or ``()`` (a free text answer); ``timeout``: seconds to wait, or
    ``None`` to wait until answered or stopped."""

    call_id: str
    tool_name: str
    text: str
    choices: tuple[str, ...] = ()
    timeout: float | None = None


Asker = Callable[[Question, threading.Event], str]
"""Answers a :class:`Question`, blocking the calling thread; the event is the call's cancel
flag (set when the run stops). Raises ``AskError`` when there is no answer."""


def checked_question(
    call_id: str, tool_name: str, text: object, choices: Sequence[object] | None, timeout: object
) -> Question:
    """A :class:`Question` of ``text``, ``choices`` and ``timeout`` as a tool passed them,
    or ``TypeError`` / ``ValueError`` naming what is wrong: a question that is not a
    non-empty ``str`` of at most :data:`MAX_QUESTION_CHARS` characters, ``choices`` that
    are not a non-empty list of distinct non-empty strings, a ``timeout`` that is not a
    positive finite number of seconds."""
    if not isinstance(text, str):
        raise TypeError(f"ctx.ask: the question must be a str, not {type(text).__name__}")
    if not text.strip():
        raise ValueError("ctx.ask: the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValueError(f"ctx.ask: the question has {len(text):,} characters; at most {MAX_QUESTION_CHARS:,}")
    shown: tuple[str, ...] = ()
    if choices is not None:
        if isinstance(choices, (str, bytes)) or not isinstance(choices, Sequence):
            raise TypeError(f"ctx.ask: choices must be a list of strings, not {type(choices).__name__}")
        if not choices:
            raise ValueError("ctx.ask: choices is empty (pass None for a free text answer)")
        bad = [choice for choice in choices if not isinstance(choice, str) or not choice.strip()]
        if bad:
            raise ValueError(f"ctx.ask: every choice must be a non-empty string; got {bad[0]!r}")
        shown = tuple(str(choice) for choice in choices)
        if len(set(shown)) != len(shown):
            raise ValueError(f"ctx.ask: the choices repeat one another: {list(shown)!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0
    ):
        raise ValueError(f"ctx.ask: timeout must be a positive number of seconds or None, not {timeout!r}")
    return Question(call_id, tool_name, text, shown, None if timeout is None else float(timeout))
