"""``%agent pin``: keep a message whole through every compaction (``op.pin`` from a line).

- ``%agent pin -s NAME N`` pins message ``N`` of the session ``NAME`` (numbered from 1,
  as ``%agent pin -s NAME`` lists them): a user message, or a tool's result — which keeps
  the reply that made its call too. A reply alone cannot be pinned: the error says to pin
  its call's result.
- ``%agent pin CALL`` pins the result of one call of the kernel's latest run: ``CALL`` is
  the call's id (``call_3``, as its card shows it) or ``ROUND/N``, the ``N``-th call of
  round ``ROUND`` (both from 1). The message is the run's own, so a session the run
  belongs to has it pinned as well.
- ``%agent pin -s NAME`` lists the session's messages, numbered, each pinned one marked;
  ``%agent pin`` alone lists what is pinned in every session.

Pinning marks the message itself (``pinned``): it holds in every later request that
carries it, and in the saved notebook.
"""

from __future__ import annotations

import re
import shlex
from html import escape
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..core._pins import pin
from ..core.messages import AssistantMessage, ToolResultMessage
from ..render._safe import display_bundle

if TYPE_CHECKING:
    from ._magics import AgentMagics

__all__ = ["PIN_USAGE", "pin_command"]

PIN_USAGE = "pin [-s NAME [N] | CALL]"
_ROUND_AND_NUMBER = re.compile(r"(\d+)/(\d+)")
_LINE_CHARS = 80  # each message's line in a listing


def pin_command(magics: AgentMagics, rest: str) -> None:
    """Run ``%agent pin REST`` (module docstring); ``UsageError`` names what is wrong."""
    try:
        words = shlex.split(rest)
    except ValueError as error:
        raise UsageError(f"%agent {PIN_USAGE}: {error}") from None
    if not words:
        _show(_pinned_everywhere(magics))
    elif words[0] == "-s":
        _session_pin(magics, words[1:])
    elif len(words) == 1 and not words[0].startswith("-"):
        _show([_pin_result(magics, words[0])])
    else:
        raise UsageError(
            f"%agent {PIN_USAGE}: expected -s NAME [N] (a session's message) or CALL (a call id or ROUND/N of "
            f"the latest run), got {rest!r}"
        )


def _session_pin(magics: AgentMagics, words: list[str]) -> None:
    if not words or len(words) > 2:
        raise UsageError(f"%agent {PIN_USAGE}: -s takes a session name and, to pin, a message number")
    name = words[0]
    if name not in magics.sessions:
        known = ", ".join(session.name for session in magics.sessions) or "none yet"
        raise UsageError(f"%agent pin: no session {name!r} (sessions: {known})")
    messages = magics.sessions.get(name).messages
    if len(words) == 1:
        _show([f"session {name}: {len(messages)} message(s)"] + [_line(n, m) for n, m in enumerate(messages, 1)])
        return
    if not words[1].isdigit() or not 1 <= int(words[1]) <= len(messages):
        raise UsageError(
            f"%agent pin -s {name} N: N is a message number from 1 to {len(messages)}, got {words[1]!r} "
            f"(%agent pin -s {name} lists them)"
        )
    number = int(words[1])
    _pin_or_usage_error(messages[number - 1], f"message {number} of session {name}")
    _show(
        [f"Pinned message {number} of session {name}: compaction keeps it whole.", _line(number, messages[number - 1])]
    )


def _pin_result(magics: AgentMagics, which: str) -> str:
    run = getattr(magics.runtimes.namespace_runtime, "last_run", None)
    if run is None:
        raise UsageError("%agent pin CALL: no run yet in this kernel, so no call to pin the result of")
    result = _result_of(run, which)
    _pin_or_usage_error(result, f"the result of {which}")
    return (
        f"Pinned the result of {result.tool_name} ({result.tool_call_id}) of the latest run: compaction keeps it, "
        "and the reply that made its call, in every request that carries it."
    )


def _result_of(run: Any, which: str) -> ToolResultMessage:
    """The result of the call ``which`` (an id, or ``ROUND/N``) among ``run``'s messages."""
    results = [m for m in run.messages if isinstance(m, ToolResultMessage)]
    numbered = _ROUND_AND_NUMBER.fullmatch(which)
    if numbered is None:
        found = [m for m in results if m.tool_call_id == which]
        if not found:
            ids = ", ".join(m.tool_call_id for m in results[:8]) or "none"
            raise UsageError(
                f"%agent pin: the latest run has no call {which!r} (its call ids: {ids}{', ...' * (len(results) > 8)})"
            )
        return found[0]
    round_number, call_number = int(numbered.group(1)), int(numbered.group(2))
    replies = [m for m in run.messages if isinstance(m, AssistantMessage)]
    if not 1 <= round_number <= len(replies):
        raise UsageError(f"%agent pin {which}: the latest run has rounds 1 to {len(replies)}")
    calls = replies[round_number - 1].tool_calls
    if not 1 <= call_number <= len(calls):
        raise UsageError(f"%agent pin {which}: round {round_number} of the latest run made {len(calls)} call(s)")
    call = calls[call_number - 1]
    found = [m for m in results if m.tool_call_id == call.id]
    if not found:
        raise UsageError(f"%agent pin {which}: the call {call.id} has no result in the latest run")
    return found[0]


def _pin_or_usage_error(message: Any, what: str) -> None:
    try:
        pin(message)
    except TypeError:
        raise UsageError(
            f"%agent pin: {what} is a reply of the model, which cannot be pinned alone; pin the result of its call"
        ) from None


def _pinned_everywhere(magics: AgentMagics) -> list[str]:
    lines = []
    for session in magics.sessions:
        pinned = [_line(n, m) for n, m in enumerate(session.messages, 1) if getattr(m, "pinned", False)]
        lines.append(f"session {session.name}: {len(pinned)} pinned message(s)")
        lines += pinned
    return lines or ["No sessions yet; %agent pin CALL pins a call's result in the latest run."]


def _line(number: int, message: Any) -> str:
    """One message in one line: its number, a pin mark, its role (a result's tool and call id), its text."""
    if isinstance(message, ToolResultMessage):
        who = f"result of {message.tool_name} ({message.tool_call_id})"
    elif isinstance(message, AssistantMessage):
        calls = ", ".join(call.name for call in message.tool_calls)
        who = "assistant" + (f" calls {calls}" if calls else "")
    else:
        who = "user"
    text = " ".join(message.text.split())
    text = text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 1] + "…"
    mark = "pinned" if getattr(message, "pinned", False) else "      "
    return f"{number:>4} {mark} {who}: {text}"


def _show(lines: list[str]) -> None:
    text = "\n".join(lines)
    display_bundle({"text/plain": text, "text/html": f"<pre>{escape(text)}</pre>"})
