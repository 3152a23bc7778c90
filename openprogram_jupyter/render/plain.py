"""The static ``text/plain`` transcript of a run: what a terminal, a log or ``print`` shows.

Indentation shows nesting; each call is one line (``▸ name(args) → status · time``)
followed by its result, indented. Results are cut shorter than in HTML, since plain text
cannot be collapsed.
"""

from __future__ import annotations

from typing import Any

from . import _format as fmt
from .transcript import Block, CallNode, NoticeNode, RunNode, UserNode, transcript_of

__all__ = ["render_plain", "run_plain"]

DEFAULT_PLAIN_RESULT_CHARS = 1000


def render_plain(run: Any, *, max_result_chars: int = DEFAULT_PLAIN_RESULT_CHARS) -> str:
    """The whole run as indented plain text."""
    return run_plain(transcript_of(run), max_result_chars=max_result_chars)


def _indented(text: str, indent: str) -> list[str]:
    return [indent + line for line in text.split("\n")]


def run_plain(run: RunNode, *, max_result_chars: int = DEFAULT_PLAIN_RESULT_CHARS, indent: str = "") -> str:
    title = "agent run" if not indent else "nested run"
    lines = [f"{indent}{title} · " + " · ".join(fmt.header_parts(run))]
    for item in run.timeline:
        if isinstance(item, UserNode):
            label = "prompt" if item.kind == "prompt" else "user"
            lines.append(f"{indent}{label}:")
            lines += _indented(item.text, indent + "  ")
            continue
        lines.append(f"{indent}[round {item.number}]")
        for part in item.items:
            if isinstance(part, Block):
                if part.kind == "thinking":
                    lines.append(f"{indent}  (thinking: {fmt.shorten(part.text, 100)})")
                elif part.text:
                    lines += _indented(part.text, indent + "  ")
            elif isinstance(part, CallNode):
                lines += _call_plain(part, max_result_chars, indent + "  ")
            elif isinstance(part, NoticeNode):
                lines.append(f"{indent}  note: {part.text}")
        if item.stop_reason == "error" and item.error_message:
            lines.append(f"{indent}  model error: {item.error_message}")
    lines.append(f"{indent}— {fmt.end_line(run)}")
    return "\n".join(lines)


def _call_plain(call: CallNode, max_result_chars: int, indent: str) -> list[str]:
    status = fmt.STATUS_LABEL.get(call.status, call.status)
    line = f"{indent}▸ {call.name}({fmt.arguments_preview(call, 120)}) → {status}"
    if call.duration is not None:
        line += f" · {fmt.seconds(call.duration)}"
    lines = [line]
    if call.arguments_error:
        lines.append(f"{indent}    {call.arguments_error}")
    for child in call.children:
        lines.append(run_plain(child, max_result_chars=max_result_chars, indent=indent + "    "))
    if call.result is not None:
        text, note = fmt.truncate(fmt.result_text(call.result), max_result_chars)
        if text:
            lines += _indented(text, indent + "    ")
        if note:
            lines.append(f"{indent}    {note}")
        for image in fmt.result_images(call.result):
            lines.append(f"{indent}    {fmt.image_label(image)}")
    return lines
