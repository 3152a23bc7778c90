"""The static ``text/markdown`` transcript of a run.

Raw HTML inside markdown is rendered by most viewers, so every string that came from a
model, a tool or a user goes inside code: a fenced block whose fence is longer than any
backtick run in the string, or, for short one-line values such as a tool name, a code
span built the same way. Nothing outside code is taken from the run except numbers and
our own fixed words. Each kind of tree node is drawn by its entry in :data:`MARKDOWN_OF`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import _format as fmt
from .tree import (
    Block,
    CallNode,
    NodeHandlers,
    NoticeNode,
    RoundNode,
    RunNode,
    UserNode,
    tree_of,
)

__all__ = ["MARKDOWN_OF", "code_span", "fence", "render_markdown", "run_markdown"]

_BACKTICKS = re.compile(r"`+")


def _longest_backtick_run(text: str) -> int:
    return max((len(match) for match in _BACKTICKS.findall(text)), default=0)


def fence(text: str, language: str = "text", indent: str = "") -> str:
    """``text`` in a fenced code block that nothing inside it can close."""
    ticks = "`" * max(3, _longest_backtick_run(text) + 1)
    body = "\n".join(indent + line for line in text.split("\n"))
    return f"{indent}{ticks}{language}\n{body}\n{indent}{ticks}"


def code_span(text: str) -> str:
    """``text`` as an inline code span on one line, safe whatever backticks it holds."""
    text = " ".join(text.split())
    ticks = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def render_markdown(run: Any, *, max_result_chars: int = fmt.DEFAULT_MAX_RESULT_CHARS) -> str:
    """The whole run as markdown; model and tool strings only ever inside code."""
    return run_markdown(tree_of(run), max_result_chars=max_result_chars)


def run_markdown(run: RunNode, *, max_result_chars: int = fmt.DEFAULT_MAX_RESULT_CHARS, indent: str = "") -> str:
    lines: list[str] = []
    title = "agent run" if not indent else "nested run"
    lines.append(f"{indent}**{title}** · " + " · ".join(_safe_header(run)))
    lines.append("")
    for item in run.timeline:
        lines += _item_markdown(item, max_result_chars, indent)
    lines.append(f"{indent}*{_end_words(run)}*")
    if run.error:
        lines += ["", fence(run.error, indent=indent)]
    return "\n".join(lines).rstrip() + "\n"


def _item_markdown(node: Any, max_result_chars: int, indent: str) -> list[str]:
    """A timeline or round item's lines, drawn by its kind's entry in :data:`MARKDOWN_OF`."""
    draw = MARKDOWN_OF.handler_for(node)
    return draw(node, max_result_chars, indent) if draw is not None else []


def _safe_header(run: RunNode) -> list[str]:
    parts = fmt.header_parts(run)
    # The first part names the model: a string from outside, so it goes in a code span.
    return [f"model {code_span(run.model or '?')}", *parts[1:]]


def _end_words(run: RunNode) -> str:
    if run.stop_reason is None:
        return "running"
    return fmt.RUN_END_LABEL.get(run.stop_reason, "ended")


def _user_markdown(user: UserNode, _max_result_chars: int, indent: str) -> list[str]:
    label = "prompt" if user.kind == "prompt" else "user message"
    return [f"{indent}*{label}*", "", fence(user.text, indent=indent), ""]


def _round_markdown(round_: RoundNode, max_result_chars: int, indent: str) -> list[str]:
    lines = [f"{indent}*round {round_.number}*", ""]
    for item in round_.items:
        lines += _item_markdown(item, max_result_chars, indent)
    if round_.stop_reason == "error" and round_.error_message:
        lines += [f"{indent}*model error*", "", fence(round_.error_message, indent=indent), ""]
    return lines


def _block_markdown(block: Block, _max_result_chars: int, indent: str) -> list[str]:
    if block.kind == "thinking":
        return [f"{indent}*thinking*", "", fence(block.text, indent=indent), ""]
    return [fence(block.text, indent=indent), ""] if block.text else []


def _notice_markdown(notice: NoticeNode, _max_result_chars: int, indent: str) -> list[str]:
    return [f"{indent}note: {code_span(notice.text)}", ""]


def _call_markdown(call: CallNode, max_result_chars: int, indent: str) -> list[str]:
    status = fmt.STATUS_LABEL.get(call.status, "?")
    head = f"{indent}- {code_span(call.name)} — {fmt.STATUS_MARK.get(call.status, '')} {status}"
    if call.duration is not None:
        head += f" · {fmt.seconds(call.duration)}"
    inner = indent + "  "
    lines = [head, "", f"{inner}arguments:", "", fence(fmt.arguments_text(call), "json", inner), ""]
    if call.arguments_error:
        lines += [fence(call.arguments_error, indent=inner), ""]
    for child in call.children:
        lines += [run_markdown(child, max_result_chars=max_result_chars, indent=inner), ""]
    if call.result is not None:
        text, note = fmt.truncate(fmt.result_text(call.result), max_result_chars)
        lines += [f"{inner}result:", "", fence(text, indent=inner), ""]
        if note:
            lines += [f"{inner}*{note}*", ""]
        for image in fmt.result_images(call.result):
            lines += [f"{inner}{fmt.image_label(image)}", ""]
    return lines


MARKDOWN_OF: NodeHandlers[Callable[[Any, int, str], list[str]]] = NodeHandlers("the markdown transcript", {
    UserNode: _user_markdown,
    RoundNode: _round_markdown,
    Block: _block_markdown,
    CallNode: _call_markdown,
    NoticeNode: _notice_markdown,
})
"""How each kind of node is drawn: ``draw(node, max_result_chars, indent) -> lines``."""
