"""How the live view draws one call: open while it goes on, one collapsed line once it ends.

A call whose arguments stream in, that waits for an answer or that runs is **open**: a
card with its summary line, its arguments, while it waits the approval buttons (Approve /
Deny, or in step mode Run / Edit / Skip / Stop: :mod:`._step_card`; both with Always allow /
Always deny where a session keeps rules), a question the tool asks the user
(:mod:`._question_card`), its latest progress
report (a bar when the report carries a fraction), what the tool has printed, displayed
or plotted so far, and the latest nested runs it opened,
drawn live. A queued call is its summary line. A call that has ended is
drawn as the saved transcript draws it (:func:`~openprogram_jupyter.render.html.call_html`):
a closed ``<details>`` whose summary line previews the result, the rest one click away.
So the live view and the saved transcript collapse results by one rule, and an ended
call costs one widget, reused for another call once this one scrolls out of the window.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from ..render import _format as fmt
from ..render._output import output_html
from ..render._progress import progress_fraction, progress_text
from ..render.html import call_html, call_summary_html
from ..render.tree import CallNode
from ._always import always_buttons
from ._question_card import question_widgets
from ._step_card import step_widgets

if TYPE_CHECKING:
    from ._card_host import CardHost

__all__ = ["LIVE_CALL_CHARS", "NESTED_RUNS_LIVE", "OPEN_STATUSES", "call_widget", "progress_html"]

OPEN_STATUSES = frozenset({"streaming", "awaiting_approval", "running"})
"""The statuses of a call the live view draws open."""

NESTED_RUNS_LIVE = 2
"""How many of an open call's nested runs are drawn live (the latest)."""

LIVE_CALL_CHARS = 200_000
"""At most this much HTML for one ended call (its nested runs included)."""

_MUTED = "color:#57606a;font-size:12px;"
# line-height: an HTML widget's content inherits ipywidgets' 28 px one (a widget row's
# height), which JupyterLab resets for <pre> and nbclassic does not: JSON read double-spaced.
_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:0;padding:2px 6px;"
    "font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.4;"
)


def call_widget(view: CardHost, call: CallNode) -> Any:
    """The widget of ``call``: its open card, or one HTML line (queued or ended)."""
    if call.status in OPEN_STATUSES:
        return _open_card(view, call)
    # Its own pool: a call-line widget only ever shows a call, so what it was last drawn
    # from says whether it needs drawing again.
    widget = view.pool.widget_for(
        ("call-line", id(call)), lambda: view.pool.make(view.pool.widgets.HTML), pool="call-line"
    )
    drawn = (id(call), call.version, tuple(child.version for child in call.children))
    if view.pool.drawn.get(widget) != drawn:
        view.pool.drawn[widget] = drawn
        if call.finished:
            limits = fmt.Limits(view.shown_result_chars, view.max_text_chars, LIVE_CALL_CHARS)
            view.pool.want(widget, value=call_html(call, limits))
        else:
            view.pool.want(widget, value=f'<div style="margin:2px 0 2px 4px">{call_summary_html(call)}</div>')
    return widget


def _open_card(view: CardHost, call: CallNode) -> Any:
    parts = view.pool.widget_for(("open-card", id(call)), lambda: _build_card(view), pool="open-card")
    view.pool.want(parts["summary"], value=call_summary_html(call))
    args = _cut_pre(_arguments_shown(view, call), view.max_text_chars, fmt.ARGUMENTS_KEPT)
    error = f'<div style="color:#cf222e">{escape(call.arguments_error)}</div>' if call.arguments_error else ""
    view.pool.want(parts["arguments"], value=args + error)
    shown = [parts["summary"], parts["arguments"]]
    if call.id in view.controls.awaiting() and not view.finished and view.controls.step:
        shown += step_widgets(view, call)
    elif call.id in view.controls.awaiting() and not view.finished:
        shown.append(view.pool.widget_for(("approval", call.id), lambda: _approval_row(view, call))["row"])
    asked = view.controls.questions().get(call.id) if not view.finished else None
    if asked is not None:  # the tool asked the user (ctx.ask, an MCP elicitation)
        shown += question_widgets(view, call.id, asked)
    if call.progress:
        progress = _part(view, parts, "progress")
        view.pool.want(progress, value=progress_html(call.progress[-1]))
        shown.append(progress)
    if call.output:  # what the tool has printed, displayed or plotted so far
        output = _part(view, parts, "output")
        view.pool.want(output, value=output_html(call.output, view.shown_result_chars))
        shown.append(output)
    if call.children:
        shown += _nested_runs(view, call, parts)
    view.pool.want(parts["card"], children=tuple(shown))
    return parts["card"]


def _arguments_shown(view: CardHost, call: CallNode) -> str:
    """The call's arguments as the card shows them. While they stream, an end that could
    be the start of a known secret waits for the next fragment: masking a whole value is
    not enough when the screen shows it growing (37 of a key's 38 characters were shown)."""
    text = fmt.arguments_text(call)
    if call.status != "streaming":
        return text
    text = view.pool.secrets.mask_values(text)
    return text[: len(text) - view.pool.secrets.open_prefix(text)]


def _nested_runs(view: CardHost, call: CallNode, parts: dict[str, Any]) -> list[Any]:
    """The latest :data:`NESTED_RUNS_LIVE` nested runs, after a line counting the others."""
    latest = call.children[-NESTED_RUNS_LIVE:]
    boxes = [view.run_widget(child, nested=True) for child in latest]
    earlier = len(call.children) - len(latest)
    shown = []
    if earlier:
        note = _part(view, parts, "children-note")
        view.pool.want(
            note,
            value=f'<span style="{_MUTED}">… {earlier:,} earlier nested run{"s" if earlier != 1 else ""} '
            "not drawn live</span>",
        )
        shown.append(note)
    children = _part(view, parts, "children")
    view.pool.want(children, children=tuple(boxes))
    return [*shown, children]


def _build_card(view: CardHost) -> dict[str, Any]:
    """The widgets every open card has; the others are built when a call first needs them
    (:func:`_part`), and stay with the card when it is reused for another call."""
    w = view.pool.widgets
    return {
        "summary": view.pool.make(w.HTML),
        "arguments": view.pool.make(w.HTML),
        "card": view.pool.make(
            w.VBox, layout=w.Layout(border="1px solid rgba(127,127,127,0.3)", margin="2px 0", padding="2px 6px")
        ),
    }


def _approval_row(view: CardHost, call: CallNode) -> dict[str, Any]:
    """Approve / Deny for ``call`` alone (a click never answers another call the card
    shows later); kept while the call waits, closed after."""
    w = view.pool.widgets
    call_id = call.id
    approve = view.pool.make(w.Button, description="Approve", button_style="success", tooltip=f"Let {call.name} run")
    deny = view.pool.make(
        w.Button,
        description="Deny",
        button_style="warning",
        tooltip=f"Do not run {call.name}; the model is told it was denied",
    )
    approve.on_click(lambda _b: view.on_decide_click(call_id, True))
    deny.on_click(lambda _b: view.on_decide_click(call_id, False))
    parts = {"approve": approve, "deny": deny, **(always_buttons(view, call) if view.controls.always else {})}
    return {**parts, "row": view.pool.make(w.HBox, children=tuple(parts.values()))}


def _part(view: CardHost, parts: dict[str, Any], name: str) -> Any:
    """The card's ``name`` widget: ``"progress"``, ``"output"``, ``"children-note"`` or
    ``"children"``; built on first use."""
    if name not in parts:
        parts[name] = view.pool.make(view.pool.widgets.VBox if name == "children" else view.pool.widgets.HTML)
    return parts[name]


def progress_html(data: object) -> str:
    """A progress report: a bar and its words (``3 of 10 (30%)``) when it carries a
    fraction (:func:`~openprogram_jupyter.render._progress.progress_fraction`), else
    ``progress: <its text>``."""
    text = escape(progress_text(data))
    fraction = progress_fraction(data)
    if fraction is None:
        return f'<span style="{_MUTED}">progress: {text}</span>'
    percent = round(fraction * 100, 1)
    bar = (
        f'<span role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="{percent:g}" '
        'style="display:inline-block;vertical-align:middle;width:160px;height:8px;border-radius:4px;'
        'background:rgba(127,127,127,0.25);overflow:hidden">'
        f'<span style="display:block;height:100%;width:{percent:g}%;background:#0969da"></span></span>'
    )
    return f'<div style="{_MUTED}">{bar} {text}</div>'


def _cut_pre(text: str, limit: int, kept: str) -> str:
    shown, note = fmt.truncate(text, limit, kept)
    html = f'<pre style="{_PRE}">{escape(shown)}</pre>'
    return html + (f'<div style="{_MUTED}">{escape(note)}</div>' if note else "")
