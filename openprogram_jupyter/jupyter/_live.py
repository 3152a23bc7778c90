"""One ``%%agent`` run on screen: its view, its buttons, and how it ends.

:class:`LiveRun` sits between the runtime and the widgets. The runtime calls
:meth:`LiveRun.on_event`, :meth:`~LiveRun.take_steering` and :meth:`~LiveRun.approve`
(possibly from worker threads); the buttons call :meth:`~LiveRun.request_stop`,
:meth:`~LiveRun.decide` and the steering queue (from whatever thread the kernel handles
comm messages on). None of these touch a widget. Only :meth:`~LiveRun.tick`, called by
the one ticker of the run, redraws.

When the run ends — finished, stopped, failed or interrupted — :meth:`~LiveRun.finish`
replaces the display with the static transcript (``text/html``, ``text/markdown``,
``text/plain``) first, then closes the widgets, so what is saved never needs a widget.
"""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from ..core._asking import Question
from ..core._controls import visible_controls
from ..core._json import JsonObject
from ..core._secrets import Secrets
from ..core._stop import StopToken
from ..core._threads import threads_available
from ..core.approval_policy import Rule, SessionRules
from ..core.approvals import Edit
from ..core.errors import ArgumentError, AskError
from ..render import render_bundle
from ..render._safe import display_bundle, update_bundle
from ..render.tree import TreeBuilder
from ._buttons import Always
from ._questions import WaitingQuestions
from ._reload_note import ReloadNote
from ._view import Controls, RunView

if TYPE_CHECKING:
    from ..core.events import Event
    from ..engine.run import Run
    from ..engine.tool_execution import ApprovalRequest

__all__ = ["LiveRun", "static_bundle"]


SHOW_AFTER_SECONDS = 0.5
"""How long a foreground cell's run goes before its live view is displayed (:meth:`LiveRun.show`)."""


class LiveRun:
    """The controls and the view of one run.

    ``view`` is ``None`` where there is no widget frontend (terminal IPython): then the
    transcript is displayed once, at the end. ``clicks`` says whether button clicks can
    reach the kernel while this run goes on; without them approval requests are answered
    by ``approve_without_clicks`` (default: deny, saying why). ``session_rules``: where an
    "Always allow" / "Always deny" click adds its rule (``None``: the cards offer neither).
    """

    def __init__(
        self,
        *,
        widgets: bool,
        clicks: bool,
        stop_tooltip: str = "Stop the run: the transcript so far is kept",
        stop_note: str | None = None,
        notes: list[str] | None = None,
        max_hz: float = 10.0,
        shown_result_chars: int = 4000,
        steerable: bool = True,
        approve_without_clicks: Callable[[Any], Any] | None = None,
        step: bool = False,
        session_rules: SessionRules | None = None,
        ask_without_clicks: Callable[[Question], str] | None = None,
    ) -> None:
        self.abort: threading.Event = StopToken()
        self.session_rules = session_rules
        self.show_again = "%agent show"  # what draws this run again (the cell names its -o variable)
        self._reload_note: ReloadNote | None = None  # a foreground cell's line for a reloaded page
        self._show_at: float | None = None  # when a foreground cell displays its view (show)
        self.notes = list(notes or [])
        self.clicks = clicks
        self.on_stop: Callable[[], None] | None = None
        self._steering: collections.deque[str] = collections.deque()
        self._approvals: dict[str, _Waiting] = {}
        self.waiting_questions = WaitingQuestions(self.abort)
        self._ask_without_clicks = ask_without_clicks
        self._lock = threading.Lock()
        self._approve_without_clicks = approve_without_clicks
        self.stopped_by_button = False
        self.display_handle: Any = None
        self.finished = False
        self.ticker: Any = None  # the background ticker task, kept so it is not collected
        self.view_error: Exception | None = None
        self.view: RunView | None = None
        if widgets:
            self.view = RunView(
                Controls(
                    stop=self.request_stop,
                    steer=self._steering.append if steerable else None,
                    decide=self.decide,
                    awaiting=self.awaiting,
                    questions=self.waiting_questions.waiting,
                    answer=self.waiting_questions.answer,
                    step=step,
                    always=session_rules is not None,
                ),
                can_stop=clicks or stop_note is None,
                stop_tooltip=stop_tooltip,
                stop_note=stop_note,
                notes=self.notes,
                max_hz=max_hz,
                shown_result_chars=shown_result_chars,
            )

    # -- called by the runtime (any thread) --------------------------------------------

    def on_event(self, event: Event) -> None:
        if self.view is not None:
            self.view.feed(event)

    def take_steering(self) -> list[str]:
        """Steering messages typed since the last call (the runtime asks between steps)."""
        taken = []
        while self._steering:
            taken.append(self._steering.popleft())
        return taken

    async def approve(self, request: ApprovalRequest) -> Any:
        """Ask with buttons on the call's card (Approve / Deny, or in step mode Run / Edit /
        Skip / Stop); wait for a click or a stop, and return the answer.

        Awaited on the run's event loop. A Stop (or interrupt) while waiting cancels the
        call (it ends ``"cancelled"`` and never runs). Where clicks cannot arrive,
        ``approve_without_clicks`` answers instead.
        """
        if self.view is None or not self.clicks:
            if self._approve_without_clicks is not None:
                try:
                    return self._approve_without_clicks(request)
                except asyncio.CancelledError:
                    self.abort.set()  # "stop" typed at the prompt: the run ends as with the Stop button
                    raise
            if self.view is not None:
                note = (
                    f"{request.tool_name} needs approval, but this cell cannot receive button clicks "
                    "while it runs: the call was denied. Run the cell with autoawait on (the default) "
                    "on ipykernel ≥ 7.4, or with --background."
                )
                self.view.note(note)
                if note not in self.notes:  # the saved transcript says why, once per tool
                    self.notes.append(note)
            return False
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        call_id = request.tool_call.id or request.tool_name  # models always assign an id
        with self._lock:
            self._approvals[call_id] = _Waiting(loop, future, request)
        try:
            while not future.done():
                if self.abort.is_set():  # Stop while waiting: the call ends "cancelled", never run
                    raise asyncio.CancelledError
                await asyncio.wait({future}, timeout=0.05)
            return future.result()
        finally:
            with self._lock:
                self._approvals.pop(call_id, None)

    def ask(self, question: Question, cancelled: threading.Event) -> str:
        """Ask ``question`` in its call's card (a text box, or a button per choice) and wait
        for the answer; called on the tool's thread, which it blocks.

        Without a view (terminal IPython) ``ask_without_clicks`` answers (``input()``).
        Raises ``AskError`` when no answer can come: a view that cannot receive clicks, the
        run stopped (``cancelled`` or the Stop button) or the question's timeout passed.
        """
        if self.view is None or not self.clicks:
            if self.view is None and self._ask_without_clicks is not None:
                return self._ask_without_clicks(question)
            raise AskError(
                f"{question.tool_name} asked {question.text!r}, and this cell cannot receive an answer "
                "while it runs: run it with autoawait on (the default) on ipykernel ≥ 7.4, or with --background"
            )
        return self.waiting_questions.wait(question, cancelled)

    # -- called by the buttons (the kernel's comm thread) ------------------------------

    def request_stop(self) -> None:
        self.stopped_by_button = True
        self.abort.set()
        if self.on_stop is not None:
            self.on_stop()

    def decide(self, call_id: str, answer: object) -> str | None:
        """Answer the waiting call ``call_id``: ``True``, ``False``, an ``Edit``, a ``Skip``,
        or an :class:`~._buttons.Always` (answers ``True`` / ``False`` after adding the session
        rule "allow" / "deny" for the waiting call's tool, by its exact name).

        An ``Edit`` whose arguments the tool's schema refuses is not taken: the call keeps
        waiting and the reason is returned (the card shows it). Returns ``None`` otherwise.
        """
        with self._lock:
            waiting = self._approvals.get(call_id)
        if waiting is None:
            if self.view is not None:
                self.view.note("That call is no longer waiting for an answer.")
            return None
        if isinstance(answer, Always):
            if self.session_rules is not None:
                self.session_rules.add(Rule.for_tool("allow" if answer.allow else "deny", waiting.request.tool_name))
            answer = answer.allow
        if isinstance(answer, Edit):
            try:
                waiting.request.tool.validate(dict(answer.arguments))
            except ArgumentError as error:
                return (
                    f"{waiting.request.tool_name}: {error}. Nothing ran; fix the arguments and press Run edited again."
                )
        waiting.loop.call_soon_threadsafe(_settle, waiting.future, answer)
        return None

    def awaiting(self) -> set[str]:
        with self._lock:
            return set(self._approvals)

    # -- display ------------------------------------------------------------------------

    def show(self, *, foreground: bool = False) -> None:
        """Display the live view (nothing where there are no widgets).

        A ``foreground`` cell (awaited or blocking: the cell is still running when the run
        ends) displays it only once the run has gone on :data:`SHOW_AFTER_SECONDS` (at a
        :meth:`tick`): a run that ends sooner shows its transcript alone. A view displayed
        and replaced within milliseconds reached the frontend while it was still drawing
        it, which then logged "Could not add child view to box" and the like for each
        such cell (a Run All of quickstart.ipynb). The cell also shows, under the view, how
        to draw the run again after a page reload (:class:`._reload_note.ReloadNote`: a
        reloaded page receives no more of this cell's outputs, only its widgets' changes,
        so at the end that line becomes the transcript there; not under Pyodide, whose kernel
        a reload ends), and at the end its outputs are cleared and the transcript displayed."""
        if self.view is None:
            return
        if foreground:
            self._show_at = time.monotonic() + SHOW_AFTER_SECONDS
        else:
            self._display_view(foreground=False)

    def _display_view(self, *, foreground: bool) -> None:
        assert self.view is not None
        self._show_at = None
        self.view.tick(force=True)
        self.display_handle = display_bundle(self.view.mimebundle(self.show_again), display_id=True)
        if foreground and threads_available():
            self._reload_note = ReloadNote(self.show_again)
            self._reload_note.display()

    def tick(self, *, force: bool = False) -> None:
        """Redraw the view. A view that fails stops being redrawn, and says so; the run
        goes on and its transcript is shown when it ends (a display bug must not lose a run)."""
        if self.view is None or self.finished or self.view_error is not None:
            return
        try:
            if self._show_at is not None and time.monotonic() >= self._show_at:
                self._display_view(foreground=True)
            self.view.tick(force=force)
        except Exception as error:  # reported in the saved notes
            self.view_error = error
            self.notes.append(
                f"The live view stopped updating ({type(error).__name__}: {error}); "
                "the transcript appears when the run ends."
            )

    def finish(self, run: Run | None, *, notes: list[str] | None = None, metadata: JsonObject | None = None) -> None:
        """Replace the live view with the static transcript, then close the widgets.

        ``run`` may be ``None`` when the run never started (bad arguments): then only the
        notes are shown. ``metadata`` goes with the saved output (the run as data, for
        ``%agent restore``). Safe to call twice (the second call does nothing).
        """
        if self.finished:
            return
        self.finished = True
        # The view's tree has the run's events folded already; a failed view's is not trusted.
        folded = self.view.folded() if self.view is not None and self.view_error is None else None
        bundle = static_bundle(run, self.notes + list(notes or []), folded)
        extra = {"metadata": metadata} if metadata else {}
        if self._reload_note is not None:  # the cell is still running: its outputs are the view and the line
            from IPython.display import clear_output

            self._reload_note.ended(bundle["text/html"])  # what a page reloaded mid-run sees
            clear_output()
            display_bundle(bundle, **extra)
        elif self.display_handle is not None:
            update_bundle(self.display_handle, bundle, **extra)
        else:
            display_bundle(bundle, **extra)
        if self.view is not None:
            self.view.finished = True
            self.view.close()


@dataclass(frozen=True)
class _Waiting:
    """A call waiting for the user: the loop and future its answer settles, and the request."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    request: ApprovalRequest


def _settle(future: asyncio.Future[Any], value: object) -> None:
    if not future.done():
        future.set_result(value)


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#!|{}()~"})


def static_bundle(run: Run | None, notes: list[str], folded: TreeBuilder | None = None) -> dict[str, str]:
    """The saved form of a run: its transcript in three MIME types, notes first
    (``folded``: a builder that folded the run's events already, as for
    :func:`~openprogram_jupyter.render.render_bundle`).

    Notes are our own sentences but may quote names the user typed, or an error's message,
    so they are treated like everything else: every known secret masked (before escaping,
    so a secret is found as written), then escaped for HTML and markdown, their control
    characters made visible in plain text.
    """
    bundle = render_bundle(run, folded) if run is not None else {"text/plain": "", "text/html": "", "text/markdown": ""}
    if not notes:
        return bundle
    secrets = Secrets.now()
    notes = [secrets.mask(n) for n in notes]
    plain_notes = visible_controls("\n".join(f"note: {n}" for n in notes))
    html_notes = "".join(f'<div style="color:#57606a;font-size:12px">note: {escape(n)}</div>' for n in notes)
    md_notes = "\n".join(f"> note: {n.translate(_MD_SPECIAL)}" for n in notes)
    return {
        "text/plain": (plain_notes + "\n" + bundle["text/plain"]).rstrip("\n"),
        "text/html": html_notes + bundle["text/html"],
        "text/markdown": (md_notes + "\n\n" + bundle["text/markdown"]).rstrip("\n") + "\n",
    }
