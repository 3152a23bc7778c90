"""The static ``text/plain`` transcript of a run: what a terminal, a log or ``print`` shows.

Indentation shows nesting; each call is one line (``▸ name(args) → status · time``)
followed by its result, indented, and the user's answer when it asked for one. The model's
Markdown is shown as written; a result's rich display is one line naming it. Results are
cut shorter than in HTML, since plain text cannot be collapsed. Each kind of tree node is
drawn by its entry in :data:`PLAIN_OF`.
Long lists are drawn as their first and last items with one line counting the rest
between (:mod:`._groups`), the whole within ``transcript_chars``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import _format as fmt
from . import _groups as groups
from ._approval import approval_words
from ._output import OUTPUT_KEPT, output_texts
from ._result_display import display_label
from .tree import Block, CallNode, NodeHandlers, NoticeNode, RetryNode, RoundNode, RunNode, UserNode, tree_of

if TYPE_CHECKING:
    from ..core._engine_shapes import RunRecord

__all__ = ["PLAIN_OF", "render_plain", "run_plain"]

DEFAULT_PLAIN_SHOWN_RESULT_CHARS = 1000


def render_plain(
    run: RunRecord,
    *,
    shown_result_chars: int = DEFAULT_PLAIN_SHOWN_RESULT_CHARS,
    max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
) -> str:
    """The whole run as indented plain text. Long results and model texts are cut as in
    :func:`~openprogram_jupyter.render.html.render_html` (results shorter by default)."""
    return run_plain(tree_of(run), shown_result_chars=shown_result_chars, max_text_chars=max_text_chars)


def _indented(text: str, indent: str) -> list[str]:
    return [indent + line for line in text.split("\n")]


def run_plain(
    run: RunNode,
    *,
    shown_result_chars: int = DEFAULT_PLAIN_SHOWN_RESULT_CHARS,
    max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
    indent: str = "",
) -> str:
    """One :class:`RunNode` (and its nested runs) as plain text."""
    return _run_plain(run, fmt.Limits(shown_result_chars, max_text_chars), indent)


def _run_plain(run: RunNode, limits: fmt.Limits, indent: str) -> str:
    title = "agent run" if not indent else "nested run"
    lines = [f"{indent}{title} · " + " · ".join(fmt.header_parts(run))]
    context = fmt.course_context_line(run) if not indent else None
    if context is not None:
        lines.append(context)
    lines += _span_plain(
        run.timeline, lambda item: _item_plain(item, limits, indent), groups.TIMELINE_SPAN, limits, indent
    )
    lines.append(f"{indent}— {fmt.end_line(run)}")
    return "\n".join(lines)


def _item_plain(node: object, limits: fmt.Limits, indent: str) -> list[str]:
    """A timeline or round item's lines, drawn by its kind's entry in :data:`PLAIN_OF`."""
    draw = PLAIN_OF.handler_for(node)
    return draw(node, limits, indent) if draw is not None else []


def _span_plain(
    items: list[Any], draw: Callable[[Any], list[str]], span: groups.Span, limits: fmt.Limits, indent: str
) -> list[str]:
    """``items`` drawn as :func:`._groups.draw_span` chooses; the left-out ones counted in
    one line, then the calls among them that did not end done, one line each."""
    drawn = groups.draw_span(items, draw, span, limits.budget, _size)
    lines = [line for drawing in drawn.head for line in drawing]
    if drawn.left_out:
        lines.append(
            f"{indent}… {groups.left_out_line(groups.tally(drawn.left_out))} not shown here: "
            "the full record is in the Run (run.messages, run.events)"
        )
        for call in groups.failures(drawn.left_out):
            lines.append(f"{indent}  ▸ {call.name} → {fmt.STATUS_LABEL.get(call.status, call.status)}")
    return lines + [line for drawing in drawn.tail for line in drawing]


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _cut_lines(text: str, limit: int, kept: str, indent: str) -> list[str]:
    """``text``'s lines, indented, cut to ``limit`` characters with a note saying how much was left out."""
    shown, note = fmt.truncate(text, limit, kept)
    return [*(_indented(shown, indent) if shown else []), *([indent + note] if note else [])]


def _user_plain(user: UserNode, _limits: fmt.Limits, indent: str) -> list[str]:
    label = "prompt" if user.kind == "prompt" else "user"
    return [f"{indent}{label}:", *_indented(user.text, indent + "  ")]


def _round_plain(round_: RoundNode, limits: fmt.Limits, indent: str) -> list[str]:
    """The round's items are indented one step deeper than its ``[round N]`` line."""
    lines = [f"{indent}[{fmt.round_label(round_)}]"]
    lines += _span_plain(
        round_.items, lambda item: _item_plain(item, limits, indent + "  "), groups.ROUND_SPAN, limits, indent + "  "
    )
    if round_.stop_reason == "error" and round_.error is not None:
        summary, detail = round_.error.message, round_.error.detail
        lines.append(f"{indent}  model error: {summary}")
        if detail is not None:
            lines.append(f"{indent}    (the SDK said: {detail})")
    return lines


def _block_plain(block: Block, limits: fmt.Limits, indent: str) -> list[str]:
    if block.kind == "thinking":
        return [f"{indent}(thinking: {fmt.shorten(block.text, 100)})"]
    return _cut_lines(block.text, limits.text_chars, fmt.TEXT_KEPT, indent) if block.text else []


def _notice_plain(notice: NoticeNode, limits: fmt.Limits, indent: str) -> list[str]:
    details = _cut_lines(notice.details, limits.text_chars, fmt.TEXT_KEPT, indent + "    ") if notice.details else []
    return [f"{indent}note: {notice.text}", *details]


def _retry_plain(wait: RetryNode, _limits: fmt.Limits, indent: str) -> list[str]:
    return [f"{indent}{fmt.retry_line(wait)}"]


def _call_plain(call: CallNode, limits: fmt.Limits, indent: str) -> list[str]:
    status = fmt.STATUS_LABEL.get(call.status, call.status)
    line = f"{indent}▸ {call.name}({fmt.arguments_preview(call, 120)}) → {status}"
    if call.hints:
        line += " · " + ", ".join(call.hints)
    approval = approval_words(call)
    if approval:
        line += f" · {approval.text}"
    if call.divergence is not None:
        line += f" · ≠ {fmt.DIVERGED_LABEL}"
    if call.duration is not None:
        line += f" · {fmt.seconds(call.duration)}"
    lines = [line]
    if call.arguments_error:
        lines.append(f"{indent}    {call.arguments_error}")
    edited = fmt.edited_preview(call)
    if edited is not None:
        lines.append(f"{indent}    {edited}")
    for kind, text in output_texts(call.output):
        lines += (
            [f"{indent}    {text}"]
            if kind == "display"
            else [
                f"{indent}    output ({kind}):",
                *_cut_lines(text, limits.result_chars, OUTPUT_KEPT, indent + "      "),
            ]
        )
    lines += _span_plain(
        call.children,
        lambda child: [_run_plain(child, limits, indent + "    ")],
        groups.CHILDREN_SPAN,
        limits,
        indent + "    ",
    )
    if call.result is not None:
        lines += _cut_lines(fmt.result_text(call.result), limits.result_chars, fmt.RESULT_KEPT, indent + "    ")
        for image in fmt.result_images(call.result):
            lines.append(f"{indent}    {fmt.image_label(image)}")
        display = display_label(call.result)
        if display:
            lines.append(f"{indent}    {display}")
    if call.divergence is not None:
        recorded = call.divergence.recorded
        lines += [
            f"{indent}    ≠ {fmt.DIVERGED_LABEL}: {call.divergence.why}",
            f"{indent}    recorded result:",
            *_cut_lines(
                fmt.result_text(recorded) if recorded is not None else "(none)",
                limits.result_chars,
                fmt.RESULT_KEPT,
                indent + "      ",
            ),
        ]
    return lines


PLAIN_OF: NodeHandlers[Callable[[Any, fmt.Limits, str], list[str]]] = NodeHandlers(
    "the plain-text transcript",
    {
        UserNode: _user_plain,
        RoundNode: _round_plain,
        Block: _block_plain,
        CallNode: _call_plain,
        NoticeNode: _notice_plain,
        RetryNode: _retry_plain,
    },
)
"""How each kind of node is drawn: ``draw(node, limits, indent) -> lines``."""
