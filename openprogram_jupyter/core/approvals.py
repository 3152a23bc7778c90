"""What an approver may answer about one pick: run it, refuse it, edit it, or skip it.

An approver (``Runtime(approve=...)``, ``run(..., approve=...)``, or the live view's
buttons) answers each call that asks — every call in step mode (``step=True``), else the
``requires_approval`` tools — with one of:

- ``True`` — run the call as the model sent it;
- ``False`` — do not run it; the model reads that the user denied it;
- ``op.edit(**arguments)`` — run it with these arguments instead (checked against the
  tool's schema first); the model's own message stays as sent, and the result it reads
  starts by saying the user changed the arguments, and to what;
- ``op.skip(reason)`` — do not run it; the model reads the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from ._json import JsonObject
from .errors import SetupError

__all__ = ["ApprovalAnswer", "Edit", "Skip", "answer_kind", "edit", "edit_note", "skip", "without_edit_note"]


@dataclass(frozen=True)
class Edit:
    """Run the call with ``arguments`` in place of the model's."""

    arguments: JsonObject


@dataclass(frozen=True)
class Skip:
    """Do not run the call; the model reads ``reason``."""

    reason: str = ""


ApprovalAnswer = bool | Edit | Skip


def edit(**arguments: object) -> Edit:
    """An approver's answer: run this call with ``arguments`` instead of the model's."""
    return Edit(dict(arguments))


_EDIT_NOTE_START = "Note: the user changed this call's arguments before it ran, to "


def edit_note(edited: JsonObject) -> str:
    """The line an edited call's result starts with, for the model: ``Note: the user
    changed this call's arguments before it ran, to {...}; this is the result for those
    arguments.``"""
    shown = json.dumps(edited, ensure_ascii=False, default=str)
    return f"{_EDIT_NOTE_START}{shown}; this is the result for those arguments."


def without_edit_note(text: str) -> str:
    """``text`` without the :func:`edit_note` line it starts with, if it does: what the tool
    itself returned, for a view's one-line preview."""
    if not text.startswith(_EDIT_NOTE_START):
        return text
    return text.split("\n", 1)[1] if "\n" in text else ""


def skip(reason: str = "") -> Skip:
    """An approver's answer: do not run this call, and tell the model ``reason``."""
    if not isinstance(reason, str):
        raise SetupError(f"op.skip(reason): the reason must be a str, not {type(reason).__name__}")
    return Skip(reason.strip())


def answer_kind(answer: object) -> Literal["run", "deny", "edit", "skip"]:
    """``"run"`` for ``True``, ``"deny"`` for ``False``, ``"edit"`` for an :class:`Edit`,
    ``"skip"`` for a :class:`Skip`.

    Anything else — ``"no"``, ``None``, ``1``, a dict, ``op.skip`` itself uncalled — raises
    ``TypeError`` naming the answer: the call it was meant for does not run. (Reading such
    an answer by its truth let ``"no"`` run a call that needed approval.)
    """
    if answer is True:
        return "run"
    if answer is False:
        return "deny"
    if isinstance(answer, Edit):
        return "edit"
    if isinstance(answer, Skip):
        return "skip"
    if answer is skip or answer is edit:
        shown = f"the function op.{answer.__name__} itself (call it: op.{answer.__name__}(...))"
    else:
        text = repr(answer)
        shown = f"{text if len(text) <= 80 else text[:79] + '…'} (a {type(answer).__name__})"
    raise SetupError(
        f"the approver answered {shown}; only True or op.edit(...) run a call, False or op.skip(...) refuse it"
    )
