"""``%agent wire VAR [ROUND]``: a run's captured requests and replies, round by round.

Each round gets a one-line summary (request bytes, messages, tools declared, tool_choice,
tokens) and, in HTML, collapsible (``<details>``) request and reply, pretty-printed JSON.
What changed since the round captured before is marked: the messages new this round
(highlighted, and ``+`` in plain text) and the other fields of the body that differ.
Everything shown is what :meth:`Run.wire` returns (secrets masked).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

__all__ = ["round_summary", "wire_bundle"]

_NEW = "background:#fff3bf"


def _tools_and_choice(provider: str, request: dict[str, Any]) -> tuple[int, Any]:
    """How many tools the body declares and its tool choice, in the provider's own terms."""
    if provider == "gemini":
        declared = sum(len(t.get("functionDeclarations") or []) for t in request.get("tools") or [])
        return declared, ((request.get("toolConfig") or {}).get("functionCallingConfig") or {}).get("mode")
    if provider == "bedrock":
        config = request.get("toolConfig") or {}
        extra = (request.get("additionalModelRequestFields") or {}).get("tool_choice")
        return len(config.get("tools") or []), config.get("toolChoice") or extra
    return len(request.get("tools") or []), request.get("tool_choice")


def _tokens(final: Any) -> str:
    if not isinstance(final, dict):
        return "no reply"
    usage = final.get("usage") or final.get("usageMetadata") or {}
    numbers = [usage.get(k) for k in ("prompt_tokens", "input_tokens", "inputTokens", "promptTokenCount")]
    out = [usage.get(k) for k in ("completion_tokens", "output_tokens", "outputTokens", "candidatesTokenCount")]
    into = next((n for n in numbers if n is not None), None)
    came = next((n for n in out if n is not None), None)
    return f"{into if into is not None else '?'} in / {came if came is not None else '?'} out tokens"


def round_summary(number: int, request: dict[str, Any], reply: dict[str, Any], messages_field: str | None,
                  shared: int) -> str:
    """``round 3: 2,140 bytes, 7 messages (2 new), 3 tools, tool_choice "auto", 40 in / 5 out tokens``."""
    provider = reply.get("provider", "")
    size = len(json.dumps(request, ensure_ascii=False).encode("utf-8"))
    messages = request.get(messages_field or "") or []
    tools, choice = _tools_and_choice(provider, request)
    retries = f", {reply['attempts']} attempts" if reply.get("attempts", 1) > 1 else ""
    return (f"round {number}: {size:,} bytes, {len(messages)} messages ({len(messages) - shared} new), "
            f"{tools} tools, tool_choice {json.dumps(choice)}, {_tokens(reply.get('final'))}{retries}")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _round_parts(run: Any, number: int) -> tuple[str, str]:
    """The plain text and HTML of one round."""
    log = run.wire_log
    request, reply = run.wire(number)
    entry_field = log._rounds[number].messages_field
    shared, _ = log.new_messages(number)
    summary = round_summary(number, request, reply, entry_field, shared)
    changed = [name for name in log.changed_fields(number) if number != log.rounds[0]]
    messages = request.get(entry_field or "") or []
    rest = {k: v for k, v in request.items() if k != entry_field}
    text = [summary]
    if changed:
        text.append("  changed since the round before: " + ", ".join(changed))
    for index, message in enumerate(messages):
        mark = "+" if index >= shared else " "
        text.append(f"  {mark} [{index}] " + json.dumps(message, ensure_ascii=False))
    rows = "".join(
        f"<div style=\"{_NEW if i >= shared else ''}\"><small>[{i}]{' new' if i >= shared else ''}</small>"
        f"<pre style=\"margin:0\">{escape(_pretty(m))}</pre></div>" for i, m in enumerate(messages))
    fields = "".join(
        f"<div style=\"{_NEW if k in changed else ''}\"><b>{escape(k)}</b>{' (changed)' if k in changed else ''}"
        f"<pre style=\"margin:0\">{escape(_pretty(v))}</pre></div>" for k, v in rest.items())
    html = (f"<details><summary>{escape(summary)}</summary>"
            f"<details><summary>request: {escape(entry_field or 'body')} ({len(messages)})</summary>{rows}</details>"
            f"<details><summary>request: other fields</summary>{fields}</details>"
            f"<details><summary>reply (folded)</summary><pre>{escape(_pretty(reply['final']))}</pre></details>"
            f"<details><summary>reply frames ({len(reply['frames'])})</summary>"
            f"<pre>{escape(chr(10).join(json.dumps(f, ensure_ascii=False) for f in reply['frames']))}</pre>"
            "</details></details>")
    return "\n".join(text), html


def wire_bundle(run: Any, number: int | None = None) -> dict[str, str]:
    """The ``text/plain`` and ``text/html`` of round ``number`` of ``run``, or of every
    captured round. Raises ``ValueError`` as :meth:`Run.wire` does."""
    if number is not None or run.wire_log is None or not run.wire_log.rounds:
        numbers = [number if number is not None else 1]
    else:
        numbers = run.wire_log.rounds
    parts = [_round_parts(run, n) for n in numbers]
    return {"text/plain": "\n\n".join(p[0] for p in parts),
            "text/html": "<div class=\"op-wire\">" + "".join(p[1] for p in parts) + "</div>"}
