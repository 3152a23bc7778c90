"""The static ``text/markdown`` transcript of a run.

The model's text is Markdown and stays Markdown, made inert (:mod:`._markdown_inert`:
raw HTML escaped, images made links, an open code block closed); its thinking the same, as
a quote. Raw HTML inside markdown is rendered by most viewers, so every other string that
came from a model, a tool or a user goes inside code: a fenced block whose fence is longer
than any backtick run in the string, or, for short one-line values such as a tool name, a
code span built the same way. Nothing else outside code is taken from the run except
numbers and our own fixed words. Each kind of tree node is drawn by its entry in :data:`MARKDOWN_OF`.
Long lists are drawn as their first and last items with one line counting the rest
between (:mod:`._groups`), the whole within ``transcript_chars``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core._controls import visible_controls
from . import _format as fmt
from . import _groups as groups
from ._approval import approval_words
from ._markdown_inert import inert_markdown
from ._output import OUTPUT_KEPT, output_texts
from ._result_display import display_label
from .tree import Block, CallNode, NodeHandlers, NoticeNode, RetryNode, RoundNode, RunNode, UserNode, tree_of

if TYPE_CHECKING:
    from ..core._engine_shapes import RunRecord

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


def render_markdown(
    run: RunRecord,
    *,
    shown_result_chars: int = fmt.DEFAULT_SHOWN_RESULT_CHARS,
    max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
) -> str:
    """The whole run as markdown; model and tool strings only ever inside code. Long results
    and model texts are cut as in :func:`~openprogram_jupyter.render.html.render_html`."""
    return run_markdown(tree_of(run), shown_result_chars=shown_result_chars, max_text_chars=max_text_chars)


def run_markdown(
    run: RunNode,
    *,
    shown_result_chars: int = fmt.DEFAULT_SHOWN_RESULT_CHARS,
    max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
    indent: str = "",
) -> str:
    """One :class:`RunNode` (and its nested runs) as markdown."""
    return _run_markdown(run, fmt.Limits(shown_result_chars, max_text_chars), indent)


def _run_markdown(run: RunNode, limits: fmt.Limits, indent: str) -> str:
    lines: list[str] = []
    title = "agent run" if not indent else "nested run"
    lines.append(f"{indent}**{title}** · " + " · ".join(_safe_header(run)))
    lines.append("")
    context = fmt.course_context_line(run) if not indent else None
    if context is not None:  # its files' names come from the course's configuration
        lines += [code_span(context), ""]
    lines += _span_markdown(
        run.timeline, lambda item: _item_markdown(item, limits, indent), groups.TIMELINE_SPAN, limits, indent
    )
    lines.append(f"{indent}*{_end_words(run)}*")
    if run.error and fmt.round_showing_error(run) is None:
        said = f"\n\nThe SDK said: {run.error.detail}" if run.error.detail else ""
        lines += ["", fence(run.error.message + said, indent=indent)]
    return "\n".join(lines).rstrip() + "\n"


def _item_markdown(node: object, limits: fmt.Limits, indent: str) -> list[str]:
    """A timeline or round item's lines, drawn by its kind's entry in :data:`MARKDOWN_OF`."""
    draw = MARKDOWN_OF.handler_for(node)
    return draw(node, limits, indent) if draw is not None else []


def _span_markdown(
    items: list[Any], draw: Callable[[Any], list[str]], span: groups.Span, limits: fmt.Limits, indent: str
) -> list[str]:
    """``items`` drawn as :func:`._groups.draw_span` chooses; the left-out ones counted in
    one line, then the calls among them that did not end done, one line each."""
    drawn = groups.draw_span(items, draw, span, limits.budget, _size)
    lines = [line for drawing in drawn.head for line in drawing]
    if drawn.left_out:
        line = groups.left_out_line(groups.tally(drawn.left_out))
        lines += [f"{indent}*… {line} not shown here: the full record is in the Run (run.messages, run.events)*", ""]
        for call in groups.failures(drawn.left_out):
            lines.append(
                f"{indent}- {code_span(call.name)} — {fmt.STATUS_MARK.get(call.status, '')} "
                f"{fmt.STATUS_LABEL.get(call.status, '?')}"
            )
        lines += [""] if lines[-1] else []
    return lines + [line for drawing in drawn.tail for line in drawing]


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _cut_fence(text: str, limit: int, kept: str, indent: str, language: str = "text") -> list[str]:
    """``text`` fenced, cut to ``limit`` characters with a note saying how much was left out."""
    shown, note = fmt.truncate(text, limit, kept)
    return [fence(shown, language, indent), "", *([f"{indent}*{note}*", ""] if note else [])]


def _safe_header(run: RunNode) -> list[str]:
    parts = fmt.header_parts(run)
    # The first part names the model: a string from outside, so it goes in a code span.
    return [f"model {code_span(run.model or '?')}", *parts[1:]]


def _end_words(run: RunNode) -> str:
    if run.stop_reason is None:
        return "running"
    words = fmt.run_end_label(run)
    if run.divergence is not None:  # names a tool and a result: from outside
        words += f" · {code_span(fmt.divergence_line(run))}"
    over = fmt.over_budget(run)
    # Two dollar signs on a line read as TeX math in Jupyter's Markdown: escape them.
    return f"{words} · {over.replace('$', chr(92) + '$')}" if over else words


def _user_markdown(user: UserNode, _limits: fmt.Limits, indent: str) -> list[str]:
    label = "prompt" if user.kind == "prompt" else "user message"
    return [f"{indent}*{label}*", "", fence(user.text, indent=indent), ""]


def _round_markdown(round_: RoundNode, limits: fmt.Limits, indent: str) -> list[str]:
    lines = [f"{indent}*{fmt.round_label(round_)}*", ""]
    lines += _span_markdown(
        round_.items, lambda item: _item_markdown(item, limits, indent), groups.ROUND_SPAN, limits, indent
    )
    if round_.stop_reason == "error" and round_.error is not None:
        summary, detail = round_.error.message, round_.error.detail
        lines += [f"{indent}*model error*", "", fence(summary, indent=indent), ""]
        if detail is not None:
            lines += [f"{indent}*the SDK said*", "", fence(detail, indent=indent), ""]
    return lines


def _block_markdown(block: Block, limits: fmt.Limits, indent: str) -> list[str]:
    """The model's text as its (inert) Markdown; its thinking the same, as a quote."""
    if block.kind == "thinking":
        return [f"{indent}*thinking*", "", *_answer_lines(block.text, limits, indent, "> ")]
    return _answer_lines(block.text, limits, indent) if block.text else []


def _answer_lines(text: str, limits: fmt.Limits, indent: str, quote: str = "") -> list[str]:
    """``text`` (Markdown) made inert, each line after ``indent`` and ``quote``, cut past
    ``limits.text_chars`` with a note saying how much was left out. Outside a fence, its
    control characters are made visible (``\\x1b`` → ``␛``), as in plain text: a file of
    this Markdown may be printed to a terminal."""
    shown, note = fmt.truncate(text, limits.text_chars, fmt.TEXT_KEPT)
    inert = inert_markdown(visible_controls(shown))
    lines = [(indent + quote + line) if line or quote else "" for line in inert.split("\n")]
    return [*lines, "", *([f"{indent}*{note}*", ""] if note else [])]


def _notice_markdown(notice: NoticeNode, limits: fmt.Limits, indent: str) -> list[str]:
    if not notice.details:
        return [f"{indent}note: {code_span(notice.text)}", ""]
    return [
        f"{indent}note: {code_span(notice.text)}",
        "",
        *_cut_fence(notice.details, limits.text_chars, fmt.TEXT_KEPT, indent),
    ]


def _retry_markdown(wait: RetryNode, _limits: fmt.Limits, indent: str) -> list[str]:
    return [f"{indent}{code_span(fmt.retry_line(wait))}", ""]


def _call_head(call: CallNode, indent: str) -> str:
    """A call's first line: its name, status, approval, divergence and duration."""
    status = fmt.STATUS_LABEL.get(call.status, "?")
    head = f"{indent}- {code_span(call.name)} — {fmt.STATUS_MARK.get(call.status, '')} {status}"
    if call.hints:
        head += " · " + ", ".join(call.hints)
    approval = approval_words(call)
    if approval:
        rule = code_span(approval.pattern) if approval.pattern is not None else ""
        head += f" · {approval.before}{rule}{approval.after}"
    if call.divergence is not None:
        head += f" · ≠ {fmt.DIVERGED_LABEL}"
    if call.duration is not None:
        head += f" · {fmt.seconds(call.duration)}"
    return head


def _json_fence(text: str, limits: fmt.Limits, inner: str) -> list[str]:
    return _cut_fence(text, limits.text_chars, fmt.ARGUMENTS_KEPT, inner, "json")


def _call_markdown(call: CallNode, limits: fmt.Limits, indent: str) -> list[str]:
    inner = indent + "  "
    lines = [_call_head(call, indent), ""]
    if call.edited_arguments is None:
        lines += [f"{inner}arguments:", "", *_json_fence(fmt.arguments_text(call), limits, inner)]
    else:
        lines += [
            f"{inner}*{fmt.EDIT_NOTE}*",
            "",
            f"{inner}arguments as edited by the user (what ran):",
            "",
            *_json_fence(fmt.pretty_json(call.edited_arguments), limits, inner),
            f"{inner}the model's arguments:",
            "",
            *_json_fence(fmt.arguments_text(call), limits, inner),
        ]
    if call.arguments_error:
        lines += [fence(call.arguments_error, indent=inner), ""]
    for kind, text in output_texts(call.output):
        lines += (
            [f"{inner}{code_span(text)}", ""]
            if kind == "display"
            else [f"{inner}output ({kind}):", "", *_cut_fence(text, limits.result_chars, OUTPUT_KEPT, inner)]
        )
    lines += _span_markdown(
        call.children, lambda child: [_run_markdown(child, limits, inner), ""], groups.CHILDREN_SPAN, limits, inner
    )
    if call.result is not None:
        lines += [
            f"{inner}result:",
            "",
            *_cut_fence(fmt.result_text(call.result), limits.result_chars, fmt.RESULT_KEPT, inner),
        ]
        for image in fmt.result_images(call.result):
            lines += [f"{inner}{fmt.image_label(image)}", ""]
        display = display_label(call.result)
        if display:
            lines += [f"{inner}{code_span(display)}", ""]
    if call.divergence is not None:
        recorded = call.divergence.recorded
        lines += [
            f"{inner}≠ {fmt.DIVERGED_LABEL}: {code_span(call.divergence.why)}",
            "",
            f"{inner}recorded result:",
            "",
            *_cut_fence(
                fmt.result_text(recorded) if recorded is not None else "(none)",
                limits.result_chars,
                fmt.RESULT_KEPT,
                inner,
            ),
        ]
    return lines


MARKDOWN_OF: NodeHandlers[Callable[[Any, fmt.Limits, str], list[str]]] = NodeHandlers(
    "the markdown transcript",
    {
        UserNode: _user_markdown,
        RoundNode: _round_markdown,
        Block: _block_markdown,
        CallNode: _call_markdown,
        NoticeNode: _notice_markdown,
        RetryNode: _retry_markdown,
    },
)
"""How each kind of node is drawn: ``draw(node, limits, indent) -> lines``."""
