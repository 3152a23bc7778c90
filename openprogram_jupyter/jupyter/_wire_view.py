"""``%agent wire VAR [ROUND]``: a run's captured requests and replies, round by round.

Every round gets a one-line summary (request bytes, messages and how many are new, tools
declared, tool_choice, tokens). What changed since the round captured before is marked:
the messages new this round (highlighted, ``+`` in plain text) and the other top-level
fields of the body that differ (``(changed)``, ``*`` in plain text).

- ``%agent wire VAR`` shows every round, but of each request only what changed (its new
  messages and changed fields; the messages it shares with the round before are counted,
  not repeated), and of each reply the folded one and its errors: the output grows with
  the run, not with the square of it (a request repeats the whole history).
- ``%agent wire VAR ROUND`` shows that round whole: every message, each collapsible (the
  new ones open), every field, the folded reply, each failed attempt's error and the raw
  frames.

Everything shown is what :meth:`Run.wire` returns, through the views' last step
(:func:`~openprogram_jupyter.render._safe.safe_bundle`: secrets masked by value and shape).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..models._provider_info import tools_and_choice
from ..render._details import details_html
from ..render._safe import safe_bundle

if TYPE_CHECKING:
    from ..engine.run import Run

__all__ = ["HIGHLIGHT", "round_summary", "wire_bundle"]

HIGHLIGHT = "background:rgba(255,214,0,0.25)"
"""The style of what is new or changed since the round before."""
_PRE = "margin:0;white-space:pre-wrap;word-break:break-word"
_INDENT = "margin-left:1.2em"


def _tools_and_choice(provider: str, request: JsonObject) -> tuple[int, Any]:
    """How many tools the body declares and its tool choice, in the provider's own terms
    (its descriptor's ``tools_in_body``)."""
    from ..models.providers import provider_info

    info = provider_info(provider)
    return info.tools_in_body(request) if info is not None else tools_and_choice(request)


def _tokens(final: object) -> str:
    if not isinstance(final, dict):
        return "no reply"
    usage = final.get("usage") or final.get("usageMetadata") or {}
    numbers = [usage.get(k) for k in ("prompt_tokens", "input_tokens", "inputTokens", "promptTokenCount", "input")]
    out = [
        usage.get(k) for k in ("completion_tokens", "output_tokens", "outputTokens", "candidatesTokenCount", "output")
    ]
    into = next((n for n in numbers if n is not None), None)
    came = next((n for n in out if n is not None), None)
    return f"{into if into is not None else '?'} in / {came if came is not None else '?'} out tokens"


def round_summary(number: int, request: JsonObject, reply: JsonObject, messages_field: str | None, shared: int) -> str:
    """``round 3: 2,140 bytes, 7 messages (2 new), 3 tools, tool_choice "auto", 40 in / 5 out tokens``,
    then ``, 2 attempts`` after a retry, ``, failed (HTTP 400)`` when the round's last attempt
    failed, ``, replayed from a cassette (request rebuilt)`` for a replayed round."""
    provider = reply.get("provider", "")
    size = len(json.dumps(request, ensure_ascii=False).encode("utf-8"))
    messages = request.get(messages_field or "") or []
    tools, choice = _tools_and_choice(provider, request)
    text = (
        f"round {number}: {size:,} bytes, {len(messages)} messages ({len(messages) - shared} new), "
        f"{tools} tools, tool_choice {json.dumps(choice)}, {_tokens(reply.get('final'))}"
    )
    if reply.get("attempts", 1) > 1:
        text += f", {reply['attempts']} attempts"
    errors = reply.get("errors") or []
    if errors and errors[-1].get("attempt") == reply.get("attempts"):
        status = errors[-1].get("status")
        text += f", failed ({f'HTTP {status}' if status is not None else errors[-1].get('code') or 'error'})"
    if reply.get("source") == "cassette":
        text += ", replayed from a cassette (request rebuilt)"
    return text


@dataclass
class _Shown:
    """One round as shown: its request and reply, and what changed since the round before."""

    number: int
    request: JsonObject
    reply: JsonObject
    messages_field: str | None
    shared: int
    changed: list[str]
    previous: int | None

    @classmethod
    def of(cls, run: Run, number: int) -> _Shown:
        request, reply = run.wire(number)  # raises, saying how to capture, if the run did not
        log = run.wire_log
        assert log is not None
        shared, _ = log.new_messages(number)
        first = number == log.rounds[0]
        previous = None if first else max(n for n in log.rounds if n < number)
        return cls(
            number,
            request,
            reply,
            log.messages_field(number),
            shared,
            [] if first else log.changed_fields(number),
            previous,
        )

    @property
    def messages(self) -> list[Any]:
        return self.request.get(self.messages_field or "") or []

    @property
    def fields(self) -> dict[str, Any]:
        return {k: v for k, v in self.request.items() if k != self.messages_field}

    @property
    def summary(self) -> str:
        return round_summary(self.number, self.request, self.reply, self.messages_field, self.shared)


def _pretty(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _details(summary: str, body: str, *, open_: bool = False, style: str = "") -> str:
    return details_html(summary, f'<div style="{_INDENT}">{body}</div>', open_=open_, style=style)


def _json_html(value: object) -> str:
    return f'<pre style="{_PRE}">{escape(_pretty(value))}</pre>'


def _message_html(shown: _Shown, index: int, message: object) -> str:
    new = index >= shown.shared
    label = f"[{index}] new" if new else f"[{index}] as in round {shown.previous}"
    return _details(f"<small>{escape(label)}</small>", _json_html(message), open_=new, style=HIGHLIGHT if new else "")


def _field_html(shown: _Shown, name: str, value: object) -> str:
    changed = name in shown.changed
    label = escape(name) + (" (changed)" if changed else "")
    return _details(f"<b>{label}</b>", _json_html(value), open_=changed, style=HIGHLIGHT if changed else "")


def _reply_html(shown: _Shown, *, frames: bool) -> str:
    reply = shown.reply
    parts = []
    if reply.get("note"):
        parts.append(f"<p><small>{escape(reply['note'])}</small></p>")
    parts.append(_details("reply (folded)", _json_html(reply.get("final")), open_=frames))
    for error in reply.get("errors") or []:
        parts.append(_details(f"attempt {escape(str(error.get('attempt')))} failed", _json_html(error)))
    if frames:
        lines = "\n".join(json.dumps(f, ensure_ascii=False) for f in reply.get("frames") or [])
        parts.append(
            _details(f"reply frames ({len(reply.get('frames') or [])})", f'<pre style="{_PRE}">{escape(lines)}</pre>')
        )
    return "".join(parts)


def _whole_round_html(shown: _Shown) -> str:
    """Round ``shown`` whole: every message (the new ones open and highlighted), every field."""
    field = escape(shown.messages_field or "body")
    rows = "".join(_message_html(shown, i, m) for i, m in enumerate(shown.messages))
    fields = "".join(_field_html(shown, k, v) for k, v in shown.fields.items())
    body = (
        _details(f"request: {field} ({len(shown.messages)})", rows, open_=True)
        + _details("request: other fields", fields, open_=bool(shown.changed) or shown.previous is None)
        + _reply_html(shown, frames=True)
    )
    return _details(escape(shown.summary), body, open_=True)


def _changes_html(shown: _Shown) -> str:
    """Round ``shown`` as what changed: its new messages and changed (or, first, all) fields."""
    new = shown.messages[shown.shared :]
    rows = "".join(_message_html(shown, shown.shared + i, m) for i, m in enumerate(new))
    kept = (
        f"<p><small>{shown.shared} message(s) as in round {shown.previous} (not repeated)</small></p>"
        if shown.shared
        else ""
    )
    names = shown.changed if shown.previous is not None else list(shown.fields)
    fields = "".join(_field_html(shown, k, shown.fields[k]) for k in names)
    field = escape(shown.messages_field or "body")
    body = (
        kept
        + _details(f"request: {field}, new ({len(new)})", rows)
        + (
            _details("request: fields " + ("changed" if shown.previous is not None else "sent"), fields)
            if names
            else ""
        )
        + _reply_html(shown, frames=False)
    )
    return _details(escape(shown.summary), body)


def _text_lines(shown: _Shown, *, whole: bool) -> list[str]:
    lines = [shown.summary]
    if shown.changed:
        lines.append("  changed since round {}: {}".format(shown.previous, ", ".join(shown.changed)))
    if not whole and shown.shared:
        lines.append(f"  ({shown.shared} message(s) as in round {shown.previous})")
    for index, message in enumerate(shown.messages):
        if whole or index >= shown.shared:
            mark = "+" if index >= shown.shared else " "
            lines.append(f"  {mark} [{index}] " + json.dumps(message, ensure_ascii=False))
    if whole:
        for name, value in shown.fields.items():
            lines.append(f"  {'*' if name in shown.changed else ' '} {name}: " + json.dumps(value, ensure_ascii=False))
        lines.append("  reply: " + json.dumps(shown.reply.get("final"), ensure_ascii=False))
        lines.append(f"  frames: {len(shown.reply.get('frames') or [])}")
    lines += [
        f"  attempt {e.get('attempt')} failed: " + json.dumps(e, ensure_ascii=False)
        for e in shown.reply.get("errors") or []
    ]
    return lines


def wire_bundle(run: Run, number: int | None = None, *, name: str = "VAR") -> dict[str, str]:
    """The ``text/plain`` and ``text/html`` of round ``number`` of ``run`` whole, or (no
    ``number``) of what changed in every round with a wire; ``name`` is the notebook
    variable holding ``run``, for the hint. Raises ``ValueError`` as :meth:`Run.wire` does
    (for ``number``, or when no round has a wire)."""
    log = run.wire_log
    if number is not None or log is None or not log.rounds:
        shown = _Shown.of(run, number if number is not None else 1)
        return safe_bundle(
            {
                "text/plain": "\n".join(_text_lines(shown, whole=True)),
                "text/html": f'<div class="op-wire">{_whole_round_html(shown)}</div>',
            }
        )
    rounds = [_Shown.of(run, n) for n in log.rounds]
    missing = [n for n in log.asked_rounds if n not in log.rounds]
    head = (
        f"{len(rounds)} round(s) with a wire"
        + (f"; no wire for round(s) {', '.join(map(str, missing))}" if missing else "")
        + f". %agent wire {name} ROUND shows one round whole, with its raw frames."
    )
    text = "\n\n".join("\n".join(_text_lines(shown, whole=False)) for shown in rounds)
    html = "".join(_changes_html(shown) for shown in rounds)
    return safe_bundle(
        {
            "text/plain": head + "\n\n" + text,
            "text/html": f'<div class="op-wire"><p><small>{escape(head)}</small></p>{html}</div>',
        }
    )
