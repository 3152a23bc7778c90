"""The live view's drawing of a run tree: one widget per node on screen, kept while it stays.

:class:`TreeWidgets` draws a :class:`~openprogram_jupyter.render.tree.RunNode` into the
widgets of its :class:`~._view.RunView` (which keeps them, makes new ones and flushes their
changes): the prompt, a window on the latest items (:mod:`._window`), each round's label
and items, text rendered from Markdown, thinking in a closed accordion, calls as cards
(:mod:`._call_card`). Each kind of node gets its widget from its entry in :data:`WIDGET_OF`.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

from ..render import _format as fmt
from ..render._groups import left_out_line, tally
from ..render._text_html import text_html
from ..render.html import course_context_html, notice_html
from ..render.tree import Block, CallNode, NodeHandlers, NoticeNode, RetryNode, RoundNode, RunNode, UserNode
from . import _window
from ._call_card import call_widget

if TYPE_CHECKING:
    from ._view import RunView

__all__ = ["WIDGET_OF", "TreeWidgets"]

# line-height: an HTML widget's content inherits ipywidgets' 28 px one (a widget row's
# height), which JupyterLab resets for <pre> and nbclassic does not: JSON read double-spaced.
_PRE = (
    "white-space:pre-wrap;word-break:break-word;margin:0;padding:2px 6px;"
    "font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.4;"
)
_MUTED = "color:#57606a;font-size:12px;"


class TreeWidgets:
    """Draws run trees with ``view``'s widgets, and keeps what a window remembers per node."""

    def __init__(self, view: RunView) -> None:
        self.view = view
        self._round_windows: dict[int, _window.RoundWindow] = {}
        self._timeline_tallies: dict[int, _window.PrefixTally] = {}

    def run_widget(self, run: RunNode, *, nested: bool) -> Any:
        w = self.view.pool.widgets
        box = self.view.pool.widget_for(
            run,
            lambda: self.view.pool.make(
                # `border` (not border_left): ipywidgets 7 Layouts have no per-side borders.
                w.VBox,
                layout=w.Layout(border="1px dashed rgba(127,127,127,0.45)", margin="2px 0 2px 8px", padding="0 0 0 6px")
                if nested
                else w.Layout(),
            ),
        )
        children = []
        if nested:
            label = self.view.pool.widget_for(("nested-label", run.run_id), lambda: self.view.pool.make(w.HTML))
            self.view.pool.want(
                label,
                value=f'<span style="{_MUTED}">nested run · '
                + escape(" · ".join(fmt.header_parts(run)[:2]))
                + (f" · {escape(fmt.end_line(run))}" if run.finished else " · running")
                + "</span>",
            )
            children.append(label)
        elif run.course_context:
            children.append(self._course_context_widget(run))
        children += self._timeline_widgets(run)
        self.view.pool.want(box, children=tuple(children))
        return box

    def _course_context_widget(self, run: RunNode) -> Any:
        """The course context the run's system prompt carries, collapsed, as saved
        (:func:`~openprogram_jupyter.render.html.course_context_html`)."""
        widget = self.view.pool.widget_for(
            ("course-context", run.run_id), lambda: self.view.pool.make(self.view.pool.widgets.HTML)
        )
        self.view.pool.want(widget, value=course_context_html(run, fmt.Limits(text_chars=self.view.max_text_chars)))
        return widget

    def _timeline_widgets(self, run: RunNode) -> list[Any]:
        """The run's first item (its prompt), a line counting what the window leaves out,
        then the latest items (:data:`._window.TIMELINE`; nested runs get fewer)."""
        size = _window.TIMELINE if run.depth == 0 else _window.NESTED_TIMELINE
        timeline = run.timeline
        start, end = _window.window(len(timeline), len(timeline), size)
        if start <= 1:
            return self._item_widgets(timeline[:end], run)
        counts = self._timeline_tallies.setdefault(id(run), _window.PrefixTally()).upto(timeline, start)
        left_out = left_out_line(counts - tally(timeline[:1]))
        line = self._left_out_widget(
            ("timeline-left-out", id(run)),
            f"… {left_out} earlier: not drawn live "
            "(the Run has them; the saved transcript shows the start and the end)",
        )
        return [*self._item_widgets(timeline[:1], run), line, *self._item_widgets(timeline[start:end], run)]

    def _left_out_widget(self, key: tuple[Any, ...], text: str) -> Any:
        widget = self.view.pool.widget_for(key, lambda: self.view.pool.make(self.view.pool.widgets.HTML), pool="html")
        self.view.pool.want(widget, value=f'<div style="{_MUTED}">{escape(text)}</div>')
        return widget

    def _item_widgets(self, items: list[Any], parent: RunNode | RoundNode) -> list[Any]:
        """The widgets of a timeline's or a round's items, each made by its kind's entry in
        :data:`WIDGET_OF` (a kind listed there as ignored gets no widget)."""
        widgets = []
        for item in items:
            make = WIDGET_OF.handler_for(item)
            if make is not None:
                widgets.append(make(self, item, parent))
        return widgets

    def user_widget(self, user: UserNode, _run: RunNode) -> Any:
        widget = self.view.pool.widget_for(user, lambda: self.view.pool.make(self.view.pool.widgets.HTML))
        label = "prompt" if user.kind == "prompt" else "you"
        self.view.pool.want(
            widget, value=f'<div style="{_MUTED}">{label}</div><pre style="{_PRE}">{escape(user.text)}</pre>'
        )
        return widget

    def round_widget(self, round_: RoundNode, run: RunNode) -> Any:
        """The round's label and the window on its items (:class:`._window.RoundWindow`),
        with a line for what comes before it and one for what comes after."""
        w = self.view.pool.widgets
        box = self.view.pool.widget_for(round_, lambda: self.view.pool.make(w.VBox), pool="vbox")
        label = self.view.pool.widget_for(("round-label", id(round_)), lambda: self.view.pool.make(w.HTML), pool="html")
        text = fmt.round_label(round_)
        if round_.stop_reason == "error" and round_.error is not None:
            text += f" · model error: {round_.error.message}"
        self.view.pool.want(label, value=f'<span style="{_MUTED}">{escape(text)}</span>')
        size = _window.ROUND if run.depth == 0 else _window.NESTED_ROUND
        shown = self._round_windows.setdefault(id(round_), _window.RoundWindow()).shown(round_, size)
        children = [label]
        if shown.before:
            children.append(
                self._left_out_widget(
                    ("round-before", id(round_)),
                    f"… {left_out_line(shown.before)} earlier in this round: not drawn live",
                )
            )
        children += self._item_widgets(round_.items[shown.start : shown.end], round_)
        if shown.after:
            children.append(
                self._left_out_widget(
                    ("round-after", id(round_)), f"… {left_out_line(shown.after, statuses=False)} more in this round"
                )
            )
        self.view.pool.want(box, children=tuple(children))
        return box

    def notice_widget(self, notice: NoticeNode, _round: RoundNode) -> Any:
        """``note: …``; a notice with details (a compaction) opens to show them, as saved."""
        widget = self.view.pool.widget_for(notice, lambda: self.view.pool.make(self.view.pool.widgets.HTML))
        value = (
            notice_html(notice, fmt.Limits(text_chars=self.view.max_text_chars))
            if notice.details
            else f'<span style="{_MUTED}">note: {escape(notice.text)}</span>'
        )
        self.view.pool.want(widget, value=value)
        return widget

    def retry_widget(self, wait: RetryNode, _round: RoundNode) -> Any:
        """``rate limited (HTTP 429) — retrying in 58 s (retry 1 of 3)``, counting down."""
        widget = self.view.pool.widget_for(wait, lambda: self.view.pool.make(self.view.pool.widgets.HTML))
        line = fmt.retry_line(wait, self.view.wall_clock())
        self.view.pool.want(widget, value=f'<span style="color:#9a6700;font-size:12px">{escape(line)}</span>')
        return widget

    def block_widget(self, block: Block, round_: RoundNode) -> Any:
        """Text rendered from its Markdown (:func:`~openprogram_jupyter.render._text_html.text_html`,
        sanitized), thinking the same in a closed accordion; a cursor while the round
        streams. Past ``max_text_chars`` the text is cut, with a note saying how much."""
        w = self.view.pool.widgets
        streaming = not round_.finished and round_.stop_reason is None
        cursor = "▍" if streaming else ""
        html = text_html(block.text, self.view.max_text_chars, thinking=block.kind == "thinking", cursor=cursor)
        if block.kind == "text":
            widget = self.view.pool.widget_for(block, lambda: self.view.pool.make(w.HTML))
            self.view.pool.want(widget, value=html)
            return widget
        inner = self.view.pool.widget_for(("thinking", id(block)), lambda: self.view.pool.make(w.HTML))
        self.view.pool.want(inner, value=html)
        accordion = self.view.pool.widget_for(block, lambda: self._make_accordion(inner, "thinking", open_=False))
        return accordion

    def _make_accordion(self, child: Any, title: str, *, open_: bool) -> Any:
        accordion = self.view.pool.make(self.view.pool.widgets.Accordion, children=(child,))
        accordion.set_title(0, title)
        accordion.selected_index = 0 if open_ else None
        return accordion

    def call_widget(self, call: CallNode, _round: RoundNode) -> Any:
        """Open while it goes on, one collapsed line once it ends (:mod:`._call_card`)."""
        return call_widget(self.view, call)


WIDGET_OF: NodeHandlers[Callable[[TreeWidgets, Any, Any], Any]] = NodeHandlers(
    "the live view (TreeWidgets)",
    {
        UserNode: TreeWidgets.user_widget,
        RoundNode: TreeWidgets.round_widget,
        Block: TreeWidgets.block_widget,
        CallNode: TreeWidgets.call_widget,
        NoticeNode: TreeWidgets.notice_widget,
        RetryNode: TreeWidgets.retry_widget,
    },
)
"""How each kind of node gets its widget: ``make(view, node, parent)``, where ``parent``
is the run (timeline items) or the round (round items) that holds the node."""
