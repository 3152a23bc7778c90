"""The live widget view of one run.

The view is fed events from any thread (:meth:`RunView.feed` only appends to a deque)
and redrawn by one writer calling :meth:`RunView.tick`: it folds the queued events into a
:class:`~openprogram_jupyter.render.tree.TreeBuilder` tree, works out which traits of
which widgets changed, and sends each changed widget one update under ``hold_sync()``.
``tick`` does nothing if called again within ``1 / max_hz`` seconds, so however fast
tokens stream, each widget sends at most ``max_hz`` updates a second. Each kind of tree
node gets its widget from its entry in :data:`._tree_widgets.WIDGET_OF`.

However long the run, a redraw draws a bounded window of it (:mod:`._window`: the prompt,
the latest rounds, the calls around the one running, one line counting the rest) and
keeps widgets only for what is on screen, reusing those that leave it
(:mod:`._kept_widgets`); a call is open while it goes on and one collapsed line once it
has ended (:mod:`._call_card`).

Button clicks never touch widgets: they call the controller's callbacks (which set
thread-safe flags) and leave a note for the next tick to show. Core ipywidgets only
(``HTML``, ``Button``, ``Text``, ``VBox``, ``HBox``, ``Accordion``); works on
ipywidgets 7.7 and 8.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..render import _format as fmt
from ..render.tree import RunNode, TreeBuilder, UserNode
from ._buttons import Controls
from ._header import header_html
from ._steering import SteeringRow
from ._tree_widgets import WIDGET_OF, TreeWidgets
from ._widget_pool import WidgetPool

if TYPE_CHECKING:
    from ..core.events import Event

__all__ = ["WIDGET_MIME", "WIDGET_OF", "Controls", "RunView"]  # WIDGET_OF: from _tree_widgets

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

_MUTED = "color:#57606a;font-size:12px;"


class RunView:
    """Widgets showing one run, rebuilt from its events.

    ``can_stop`` False hides the Stop button and shows ``stop_note`` instead (a blocking
    cell cannot receive clicks, so a button there would be dead). ``stop_tooltip`` is the
    button's tooltip (where clicks may not arrive it points to Kernel ▸ Interrupt).
    ``notes`` are lines shown under the header (such as "offline model").
    """

    def __init__(
        self,
        controls: Controls | None = None,
        *,
        can_stop: bool = True,
        stop_tooltip: str = "Stop the run: the transcript so far is kept",
        stop_note: str | None = None,
        notes: list[str] | None = None,
        max_hz: float = 10.0,
        shown_result_chars: int = fmt.DEFAULT_SHOWN_RESULT_CHARS,
        max_text_chars: int = fmt.DEFAULT_MAX_TEXT_CHARS,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        import ipywidgets as widgets

        self.widgets = widgets
        self.pool = WidgetPool(widgets)
        self.controls = controls or Controls()
        self.builder = TreeBuilder()
        self.max_hz = max_hz
        self.shown_result_chars = shown_result_chars
        self.max_text_chars = max_text_chars
        self._clock = clock
        self.wall_clock = wall_clock
        self._inbox: collections.deque[Any] = collections.deque()
        self._notes = list(notes or [])
        self._click_notes: collections.deque[str] = collections.deque()
        self.ticker: Any = None  # a task that feeds this view (run.show() of a running run keeps it here)
        self.drawer = TreeWidgets(self)
        self._users_seen = 0  # the root's timeline items checked for delivered messages
        self._last_tick: float | None = None
        self._stop_requested = False
        self.finished = False
        self.closed = False
        self.ticks = 0
        self._lock = threading.Lock()

        self._build_frame(can_stop=can_stop, stop_tooltip=stop_tooltip, stop_note=stop_note)
        self._last_tick = self._clock()
        self._redraw(self._last_tick)

    # -- construction -----------------------------------------------------------------

    def _build_frame(self, *, can_stop: bool, stop_tooltip: str, stop_note: str | None) -> None:
        """The widgets around the run's body: header, Stop, notes, the steering row."""
        w = self.widgets
        self.header = self.pool.make(w.HTML, value="")
        self.stop_button = self.pool.make(
            w.Button, description="Stop", button_style="danger", tooltip=stop_tooltip, icon="stop"
        )
        self.stop_button.on_click(self.on_stop_click)
        if not can_stop:
            self.stop_button.layout.display = "none"
            self._notes.append(stop_note or "This cell blocks: use Kernel ▸ Interrupt to stop it.")
        self.notes = self.pool.make(w.HTML, value="")
        self.body = self.pool.make(w.VBox)
        self.steering = SteeringRow(w, self.pool.make, self.pool.close_widget, self._queue_steering, self._clock)
        self.steer_button, self.steer_row = self.steering.button, self.steering.row
        if self.controls.steer is None:
            self.steer_row.layout.display = "none"
        self.top = self.pool.make(
            w.HBox,
            children=(self.header, self.stop_button),
            layout=w.Layout(justify_content="space-between", align_items="center"),
        )
        self.root = self.pool.make(
            w.VBox,
            children=(self.top, self.notes, self.body, self.steer_row, self.steering.sent),
            layout=w.Layout(border="1px solid rgba(127,127,127,0.35)", padding="4px 8px"),
        )

    @property
    def steer_box(self) -> Any:
        """The steering box on screen now (a fresh one after each text it delivers)."""
        return self.steering.box.current

    def mimebundle(self, show_again: str = "%agent show") -> JsonObject:
        """The bundle to display: the widget plus static text for frontends without it, and
        for a page reloaded while the run goes on (it cannot receive the run's updates any
        more): the text says how to draw the run again (``show_again``)."""
        text = (
            "agent run in progress (the live view needs a Jupyter frontend with ipywidgets). "
            f"If the page was reloaded while it ran, {show_again} draws it again, running or finished."
        )
        return {
            "text/plain": text,
            "text/html": f"<p><i>{escape(text)}</i></p>",
            WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": self.root.model_id},
        }

    # -- input from any thread ----------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Queue an event. Safe from any thread; never touches a widget.

        The next :meth:`tick` folds it; an object whose class is not one of
        :data:`~openprogram_jupyter.core.events.EVENT_TYPES` makes that tick raise
        :class:`~openprogram_jupyter.core.events.UnhandledKindError`.
        """
        self._inbox.append(event)

    def note(self, text: str) -> None:
        """Queue a line for the notes area (shown at the next tick)."""
        self._click_notes.append(text)

    def on_stop_click(self, _button: object = None) -> None:
        if self.finished:
            self.note("This run has already ended; there is nothing to stop.")
            self._tick_if_idle()
            return
        if self._stop_requested:
            self.note("Stop was already requested; the run is finishing its current step.")
            return
        self._stop_requested = True
        self.note("Stop requested: finishing the current step and keeping the transcript.")
        if self.controls.stop is not None:
            self.controls.stop()

    def _queue_steering(self, text: str) -> bool:
        """Give ``text`` to the run (Enter or Send); says whether it was queued."""
        if self.finished or self.controls.steer is None:
            self.note("This run has already ended; the message was not sent.")
            self._tick_if_idle()
            return False
        self.controls.steer(text)
        return True

    def on_decide_click(self, call_id: str, answer: object) -> str | None:
        """Give a waiting call the user's answer; returns why it was not taken, if it was not."""
        if self.finished or self.controls.decide is None:
            self.note("This run has already ended; the answer was not used.")
            self._tick_if_idle()
            return None
        return self.controls.decide(call_id, answer)

    def on_answer_click(self, call_id: str, text: str) -> str | None:
        """Give a tool's waiting question the user's answer; returns why it was not taken."""
        if self.finished or self.controls.answer is None:
            self.note("This run has already ended; the answer was not used.")
            self._tick_if_idle()
            return None
        return self.controls.answer(call_id, text)

    def _tick_if_idle(self) -> None:
        # A view at rest has no writer; the click handler may redraw it itself.
        if self.finished and not self.closed:
            self.tick(force=True)

    # -- the one writer -----------------------------------------------------------------

    def tick(self, *, force: bool = False, now: float | None = None) -> bool:
        """Apply queued events and redraw what changed. Returns whether it redrew.

        Call from one thread only (the ticker). Within ``1 / max_hz`` seconds of the last
        redraw it returns ``False`` without doing anything, unless ``force``.
        """
        if self.closed:
            return False
        now = self._clock() if now is None else now
        if not force and self._last_tick is not None and now - self._last_tick < 1.0 / self.max_hz:
            return False
        with self._lock:
            self._fold_queued()
            self._last_tick = now
            self.ticks += 1
            self._redraw(now)
        return True

    def _fold_queued(self) -> None:
        while self._inbox:
            self.builder.apply(self._inbox.popleft())

    def folded(self) -> TreeBuilder:
        """The view's tree builder, with every event queued so far folded (no redraw)."""
        with self._lock:
            self._fold_queued()
        return self.builder

    def finish(self) -> None:
        """Mark the run over: buttons are disabled, a final redraw happens."""
        self.finished = True
        self.tick(force=True)

    def close(self) -> None:
        """Close every widget this view created (their comms close too)."""
        self.closed = True
        self.pool.close_all()

    # -- redraw: compute wanted traits, then the pool sends each widget's changes once --

    def _redraw(self, now: float) -> None:
        self.pool.refresh_secrets()
        root = self.builder.root
        if root is not None:
            self._see_delivered_messages(root)
        self.pool.want(self.header, value=header_html(root, self.builder, self.wall_clock(), self.steering.queued))
        notes = self._notes + list(self._click_notes)
        self.pool.want(self.notes, value="".join(f'<div style="{_MUTED}">{escape(n)}</div>' for n in notes[-6:]))
        stop_disabled = self.finished or self._stop_requested
        self.pool.want(
            self.stop_button,
            disabled=stop_disabled,
            description="Stopping…" if self._stop_requested and not self.finished else "Stop",
        )
        if self.finished:
            self.pool.want(self.stop_button, tooltip="This run has ended")
        if root is not None:
            self.pool.want(self.body, children=(self.run_widget(root, nested=False),))
        self.steering.redraw(self.pool.want, finished=self.finished)
        self.pool.flush()

    def _see_delivered_messages(self, root: RunNode) -> None:
        """Tell the steering row about user messages that joined the run since the last redraw."""
        timeline = root.timeline
        for item in timeline[self._users_seen :]:
            if isinstance(item, UserNode) and item.kind == "message":
                self.steering.delivered(item.text)
        self._users_seen = len(timeline)

    # -- node widgets -----------------------------------------------------------------

    def run_widget(self, run: RunNode, *, nested: bool) -> Any:
        """The widget of ``run``'s tree (:class:`._tree_widgets.TreeWidgets`)."""
        return self.drawer.run_widget(run, nested=nested)
