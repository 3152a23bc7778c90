"""The static ``text/html`` transcript of a run.

What is saved in a notebook and shown on GitHub or nbviewer. The model's text and
thinking are its Markdown rendered and sanitized (:mod:`._text_html`), a result's rich
display is sanitized (:mod:`._result_display`); every other string that came from a model,
a tool or a user is escaped with :func:`html.escape`. The markup has no script, no event
attributes and no external resources; images are embedded only as ``data:`` URIs of a
known image type whose payload is checked to be base64. Each call is a ``<details>``
element whose summary line says what was picked, how it ended and how its result begins;
it is closed once the call has ended, open while it goes on. Each kind of tree node is
drawn by its entry in :data:`HTML_OF`. A long list (a run's rounds, a round's calls, a
call's nested runs) is drawn as its first and last items with one collapsed group line
between (:mod:`._groups`), and the whole transcript within ``transcript_chars``.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

from . import _format as fmt
from . import _groups as groups
from ._approval import approval_words
from ._details import details_html
from ._output import output_html
from ._progress import progress_text
from ._result_display import display_html
from ._table import html_table
from ._text_html import text_html
from .tree import Block, CallNode, NodeHandlers, NoticeNode, RetryNode, RoundNode, RunNode, UserNode, tree_of

if TYPE_CHECKING:
    from ..core._engine_shapes import RunRecord
    from ..core.events import Divergence
    from ..core.messages import ToolResultMessage

__all__ = ["HTML_OF", "call_html", "call_summary_html", "notice_html", "render_html", "run_html"]

_BOX = "font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:13px;line-height:1.4;"
_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:4px 6px;"
    "background:rgba(127,127,127,0.08);border-radius:3px;font-size:12px;"
)
_MUTED = "color:#57606a;font-size:12px;"
_DIVERGED = "#9a6700"


def render_html(
    run: RunRecord,
    *,
    shown_result_chars: int = fmt.DEFAULT_SHOWN_RESULT_CHARS,
    max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
) -> str:
    """The whole run as one self-contained, script-free HTML fragment. A tool result longer
    than ``shown_result_chars``, and a model's text, thinking or arguments longer than
    ``max_text_chars``, are cut, with a note saying how much was left out."""
    return run_html(tree_of(run), shown_result_chars=shown_result_chars, max_text_chars=max_text_chars)


def run_html(
    run: RunNode,
    *,
    shown_result_chars: int = fmt.DEFAULT_SHOWN_RESULT_CHARS,
    max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
    nested: bool = False,
) -> str:
    """One :class:`RunNode` (and its nested runs) as HTML."""
    return _run_html(run, fmt.Limits(shown_result_chars, max_text_chars), nested=nested)


def _run_html(run: RunNode, limits: fmt.Limits, *, nested: bool) -> str:
    out: list[str] = []
    style = _BOX if not nested else "margin:4px 0 4px 8px;padding-left:8px;border-left:2px solid rgba(127,127,127,0.3);"
    out.append(f'<div class="openprogram-run" style="{style}">')
    title = "agent run" if not nested else "nested run"
    out.append(
        f'<div style="{_MUTED}"><b>{title}</b> · '
        + " · ".join(escape(part) for part in fmt.header_parts(run))
        + "</div>"
    )
    if not nested:
        out.append(course_context_html(run, limits))
    out += _span_html(run.timeline, lambda item: _item_html(item, limits), groups.TIMELINE_SPAN, limits)
    out.append(_end_html(run))
    out.append("</div>")
    return "".join(out)


def course_context_html(run: RunNode, limits: fmt.Limits) -> str:
    """The course context the run's system prompt carries, collapsed under its line —
    ``course context (COURSE.md, 1.2k tokens)`` — and open, each file's text under its
    name, escaped and cut past ``limits.text_chars``; ``""`` for a run without one."""
    line = fmt.course_context_line(run)
    if line is None:
        return ""
    body = "".join(
        f'<div style="{_MUTED}">{escape(item.name)}</div>' + _cut_html(item.text, limits.text_chars, fmt.TEXT_KEPT)
        for item in run.course_context
    )
    return details_html(escape(line), body, style="margin:2px 0", summary_style=_MUTED)


def _item_html(node: object, limits: fmt.Limits) -> str:
    """A timeline or round item, drawn by its kind's entry in :data:`HTML_OF`."""
    draw = HTML_OF.handler_for(node)
    return draw(node, limits) if draw is not None else ""


def _span_html(items: list[Any], draw: Callable[[Any], str], span: groups.Span, limits: fmt.Limits) -> list[str]:
    """``items`` drawn as :func:`._groups.draw_span` chooses, the left-out ones as one group."""
    drawn = groups.draw_span(items, draw, span, limits.budget, len)
    return [*drawn.head, _left_out_html(drawn.left_out), *drawn.tail]


def _left_out_html(left_out: list[Any]) -> str:
    """One line counting what a list leaves out; when calls among it did not end done, a
    collapsed group listing the first of them, one line each."""
    if not left_out:
        return ""
    line = f"… {groups.left_out_line(groups.tally(left_out))} not shown here"
    kept = "the full record is in the Run (run.messages, run.events)"
    failed = groups.failures(left_out)
    if not failed:
        return f'<div style="{_MUTED}">{escape(line)}: {kept}</div>'
    listed = "".join(f"<li>{call_summary_html(call, preview=True)}</li>" for call in failed)
    return details_html(
        f"{escape(line)}; calls that did not succeed among them",
        f'<ul style="margin:2px 0">{listed}</ul><div style="{_MUTED}">{kept}</div>',
        style="margin:2px 0",
        summary_style=_MUTED,
    )


def _cut_html(text: str, limit: int, kept: str, style: str = _PRE) -> str:
    """``text`` in a ``<pre>``, cut to ``limit`` characters with a note saying how much was left out."""
    shown, note = fmt.truncate(text, limit, kept)
    html = f'<pre style="{style}">{escape(shown)}</pre>'
    return html + (f'<div style="{_MUTED}">{escape(note)}</div>' if note else "")


def _user_html(user: UserNode, _limits: fmt.Limits) -> str:
    label = "prompt" if user.kind == "prompt" else "user message"
    images = f" (+{user.images} image{'s' if user.images != 1 else ''})" if user.images else ""
    return (
        f'<div style="margin:4px 0"><span style="{_MUTED}">{label}{images}</span>'
        f'<pre style="{_PRE}">{escape(user.text)}</pre></div>'
    )


def _round_html(round_: RoundNode, limits: fmt.Limits) -> str:
    out = [f'<div style="margin:6px 0"><div style="{_MUTED}">{escape(fmt.round_label(round_))}</div>']
    out += _span_html(round_.items, lambda item: _item_html(item, limits), groups.ROUND_SPAN, limits)
    if round_.stop_reason == "error" and round_.error is not None:
        summary, detail = round_.error.message, round_.error.detail
        out.append(f'<div style="color:#cf222e">model error: {escape(summary)}</div>')
        if detail is not None:
            out.append(
                details_html(
                    "the SDK said",
                    f'<pre style="white-space:pre-wrap;margin:2px 0">{escape(detail)}</pre>',
                    style="margin:2px 0 2px 4px",
                    summary_style=_MUTED,
                )
            )
    out.append("</div>")
    return "".join(out)


def _block_html(block: Block, limits: fmt.Limits) -> str:
    """The model's text, or its thinking (collapsed), rendered from Markdown."""
    if block.kind == "thinking":
        return details_html("thinking", text_html(block.text, limits.text_chars, thinking=True), summary_style=_MUTED)
    return text_html(block.text, limits.text_chars) if block.text else ""


def notice_html(notice: NoticeNode, limits: fmt.Limits) -> str:
    """A notice's line; with ``details``, the line opens to show them (escaped, cut)."""
    if not notice.details:
        return f'<div style="{_MUTED}">note: {escape(notice.text)}</div>'
    shown, note = fmt.truncate(notice.details, limits.text_chars, fmt.TEXT_KEPT)
    body = f'<pre style="white-space:pre-wrap;margin:2px 0">{escape(shown)}</pre>' + (
        f'<div style="{_MUTED}">{escape(note)}</div>' if note else ""
    )
    return details_html(f"note: {escape(notice.text)}", body, summary_style=_MUTED)


def _retry_html(wait: RetryNode, _limits: fmt.Limits) -> str:
    return f'<div style="{_MUTED}">{escape(fmt.retry_line(wait))}</div>'


def call_summary_html(call: CallNode, *, preview: bool = True) -> str:
    """A call in one line: its name, its arguments, its status, the user's answer when it
    asked for one, how long it took and (with ``preview``) how its result begins."""
    color = fmt.STATUS_COLOR.get(call.status, "#57606a")
    line = (
        f"<code>{escape(call.name)}</code>"
        f'<span style="{_MUTED}"> ({escape(fmt.arguments_preview(call))})</span> '
        f'<span style="color:{color}">{fmt.STATUS_MARK.get(call.status, "")} '
        f"{escape(fmt.STATUS_LABEL.get(call.status, call.status))}</span>"
    )
    if call.hints:
        line += f'<span style="{_MUTED}"> · {escape(", ".join(call.hints))}</span>'
    approval = approval_words(call)
    if approval:
        rule = f"<code>{escape(approval.pattern)}</code>" if approval.pattern is not None else ""
        line += f'<span style="color:{color}"> · {escape(approval.before)}{rule}{escape(approval.after)}</span>'
    if call.divergence is not None:
        line += f'<span style="color:{_DIVERGED}"> · ≠ {fmt.DIVERGED_LABEL}</span>'
    if call.duration is not None:
        line += f'<span style="{_MUTED}"> · {fmt.seconds(call.duration)}</span>'
    if preview and call.result is not None:
        line += f'<span style="{_MUTED}"> — {escape(fmt.result_preview(call.result))}</span>'
    return line


def call_html(call: CallNode, limits: fmt.Limits | None = None) -> str:
    """One call as a ``<details>`` element: :func:`call_summary_html` as its summary, then
    its arguments, its last progress report, its nested runs, its result and, in a rerun,
    how it differs from the recording. Closed once the call has ended, open while it goes
    on and when it differs from the recording."""
    return _call_html(call, limits or fmt.Limits())


def _call_html(call: CallNode, limits: fmt.Limits) -> str:
    out = ['<div style="margin-left:12px">']
    out += _arguments_html(call, limits)
    if call.progress:
        out.append(f'<div style="{_MUTED}">progress: {escape(progress_text(call.progress[-1]))}</div>')
    out.append(output_html(call.output, limits.result_chars))
    out += _span_html(call.children, lambda child: _run_html(child, limits, nested=True), groups.CHILDREN_SPAN, limits)
    if call.result is not None:
        out.append(_result_html(call, limits))
    if call.divergence is not None:
        out.append(_divergence_html(call.divergence, limits))
    out.append("</div>")
    opened = not call.finished or call.divergence is not None  # a divergence is shown
    return details_html(call_summary_html(call), "".join(out), open_=opened, style="margin:2px 0 2px 4px")


_EDITED = fmt.STATUS_COLOR["awaiting_approval"]


def _arguments_html(call: CallNode, limits: fmt.Limits) -> list[str]:
    """A call's arguments; for a call the user edited, first the note that says so and
    what the model asked for (:func:`fmt.edited_preview`), then the arguments that ran,
    then the model's."""
    if call.edited_arguments is None:
        out = [_labelled_pre("arguments", fmt.arguments_text(call), limits)]
    else:
        out = [
            f'<div style="color:{_EDITED}">{escape(fmt.edited_preview(call) or "")}</div>',
            _labelled_pre("arguments as edited by the user (what ran)", fmt.pretty_json(call.edited_arguments), limits),
            _labelled_pre("the model's arguments", fmt.arguments_text(call), limits),
        ]
    if call.arguments_error:
        out.append(f'<div style="color:#cf222e">{escape(call.arguments_error)}</div>')
    return out


def _labelled_pre(label: str, text: str, limits: fmt.Limits) -> str:
    return f'<div style="{_MUTED}">{escape(label)}</div>' + _cut_html(text, limits.text_chars, fmt.ARGUMENTS_KEPT)


def _result_html(call: CallNode, limits: fmt.Limits) -> str:
    """The result as the model read it (verbatim); with a rich display, the display first
    and that text one click away."""
    assert call.result is not None
    text = _cut_html(fmt.result_text(call.result), limits.result_chars, fmt.RESULT_KEPT)
    display = display_html(call.result)
    out = [
        f'<div style="{_MUTED}">result</div>'
        + (display + details_html("the text the model read", text, summary_style=_MUTED) if display else text)
    ]
    for image in fmt.result_images(call.result):
        out.append(
            f'<img alt="tool result image" style="max-width:100%" '
            f'src="data:{image.mime_type};base64,{"".join(image.data.split())}">'
        )
    traceback = fmt.traceback_of(call.result)
    if traceback:
        out.append(details_html("traceback", f'<pre style="{_PRE}">{escape(traceback)}</pre>', summary_style=_MUTED))
    return "".join(out)


def _divergence_html(divergence: Divergence, limits: fmt.Limits) -> str:
    """Why a rerun's result differs from the recording, and the two results side by side."""

    def shown(result: ToolResultMessage | None) -> str:
        if result is None:
            return f'<span style="{_MUTED}">(none)</span>'
        return _cut_html(fmt.result_text(result), limits.result_chars, fmt.RESULT_KEPT)

    table = html_table(["recorded", "this rerun"], [[shown(divergence.recorded), shown(divergence.now)]])
    return (
        f'<div style="color:{_DIVERGED};font-size:12px;margin-top:4px">≠ {fmt.DIVERGED_LABEL}: '
        f"{escape(divergence.why)}</div>{table}"
    )


def _end_html(run: RunNode) -> str:
    if run.stop_reason is None:
        return f'<div style="{_MUTED}">running…</div>'
    color = "#1a7f37" if run.stop_reason == "stop" else "#cf222e" if run.stop_reason == "error" else "#9a6700"
    return f'<div style="color:{color};font-size:12px;margin-top:4px">{escape(fmt.end_line(run))}</div>'


HTML_OF: NodeHandlers[Callable[[Any, fmt.Limits], str]] = NodeHandlers(
    "the HTML transcript",
    {
        UserNode: _user_html,
        RoundNode: _round_html,
        Block: _block_html,
        CallNode: _call_html,
        NoticeNode: notice_html,
        RetryNode: _retry_html,
    },
)
"""How each kind of node is drawn: ``draw(node, limits) -> html``."""
