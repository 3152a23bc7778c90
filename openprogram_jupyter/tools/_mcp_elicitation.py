"""An MCP server's ``elicitation/create`` asked of the user as the calling tool's questions.

A form-mode elicitation names a flat object schema (strings, numbers, integers, booleans,
enums). :func:`elicit` asks its message, then one question per field through the calling
call's ``ctx.ask`` (so it shows in that call's card, and a rerun gives the answers back):
a field with an enum gets a button per value, a boolean ``yes`` / ``no`` (both with
**Decline** beside them), every other field a text box. The answers are converted to the
field's type.

Nothing here imports the SDK: the connection hands in the parameters as plain JSON and
builds the SDK's reply from the ``(action, content)`` returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from ..core._json import JsonObject
from ..core.errors import AskError

__all__ = ["Ask", "Elicitations", "elicit"]

Ask = Callable[[str, Sequence[str] | None], str]
"""Asks one question (with choices, or free text) on the tool's thread and returns the answer."""

Action = Literal["accept", "decline", "cancel"]

ACCEPT, DECLINE = "Accept", "Decline"


def elicit(params: JsonObject, ask: Ask | None, server: str) -> tuple[Action, JsonObject | None]:
    """The user's reply to the elicitation ``params`` (the request's ``params`` as JSON):
    ``("accept", content)``, ``("decline", None)`` or ``("cancel", None)``.

    The server's message heads the first question. A form without fields is one question,
    **Accept** / **Decline**; a field with choices (an enum, a boolean's ``yes`` / ``no``)
    also offers **Decline**. ``ask`` is ``None`` when no call of this server is running in
    a run (nobody to show it to): the reply is ``decline``. A URL-mode elicitation is
    declined (the notebook opens no links for a server). A question that gets no answer
    (``AskError``: no one to ask, Stop, a timeout) cancels.
    """
    if ask is None or params.get("mode") == "url":
        return "decline", None
    schema = params.get("requested_schema") or {}
    fields = schema.get("properties") if isinstance(schema, dict) else None
    # The card reads "<tool> asks: ..."; the heading says the words are the server's.
    heading = f"from the MCP server {server}: {params.get('message') or ''}"
    content: JsonObject = {}
    try:
        if not fields:
            return ("accept", {}) if ask(heading, [ACCEPT, DECLINE]) == ACCEPT else ("decline", None)
        for name, field in fields.items():
            answer = _field_answer(ask, heading, name, field if isinstance(field, dict) else {})
            if answer is _DECLINED:
                return "decline", None
            content[name] = answer
            heading = f"from the MCP server {server}"
    except AskError:
        return "cancel", None
    return "accept", content


_DECLINED = object()


class Elicitations:
    """Who answers one connection's elicitations: the ``ctx.ask`` of each call in flight
    (:meth:`answering`); the latest is asked when several are (a run's calls go one after
    another, so that is the one running)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._askers: list[Ask] = []

    @contextlib.contextmanager
    def answering(self, ask: Ask) -> Iterator[None]:
        """While the block runs, elicitations are asked with ``ask``."""
        with self._lock:
            self._askers.append(ask)
        try:
            yield
        finally:
            with self._lock:
                self._askers.remove(ask)

    async def reply(self, params: JsonObject, server: str) -> tuple[Action, JsonObject | None]:
        """:func:`elicit` for ``params``, on a worker thread (the caller's loop goes on)."""
        with self._lock:
            ask = self._askers[-1] if self._askers else None
        return await asyncio.to_thread(elicit, params, ask, server)


def _field_answer(ask: Ask, heading: str, name: str, field: dict[str, Any]) -> Any:
    """One field asked and its answer as the field's type (asked again until it reads as
    one), or ``_DECLINED``."""
    about = f"{field.get('title') or name}" + (f" ({field['description']})" if field.get("description") else "")
    question = f"{heading}\n{about}"
    kind = field.get("type")
    values = field.get("enum") if isinstance(field.get("enum"), list) else None
    if values or kind == "boolean":
        labels = [str(value) for value in values] if values else ["yes", "no"]
        picked = ask(question, [*labels, DECLINE] if DECLINE not in labels else labels)
        if picked == DECLINE and DECLINE not in labels:
            return _DECLINED
        return values[labels.index(picked)] if values else picked == "yes"
    while True:
        text = ask(question, None).strip()
        if kind not in ("number", "integer"):
            return text
        try:
            return int(text) if kind == "integer" else float(text)
        except ValueError:
            question = f"{heading}\n{about}: {text!r} is not {'a whole number' if kind == 'integer' else 'a number'}"
