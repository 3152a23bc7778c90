"""``%%agent -m A,B``: one cell on several models at once, their live views side by side.

Each model gets its own run — its own Runtime, spec and :class:`~._live.LiveRun`, so its
own Stop — and all of them run concurrently, on the kernel's loop (awaited) or each on a
worker thread (blocking). Above the views a "Stop all" button stops every run. When the
last run ends the display is replaced by one static transcript with a column per model
(HTML), or a section per model (Markdown, plain text); ``-o VAR`` stores a dict from each
model's name, as written after ``-m``, to its Run.
"""

from __future__ import annotations

import asyncio
from html import escape
from typing import TYPE_CHECKING, Any

from .._secrets import Secrets
from ..render.markdown import code_span
from ._cell import (
    TICK_SECONDS,
    ClickPath,
    click_path,
    fail_if_the_run_failed,
    hooked_spec,
    interrupt_grace,
    interrupted_error,
    interrupted_note,
    live_for,
    stop_and_wait,
)
from ._live import LiveRun, static_bundle

if TYPE_CHECKING:
    from ._magics import AgentMagics, CellPlan

__all__ = ["SideBySide", "run_side_by_side_awaited", "run_side_by_side_blocking"]


class SideBySide:
    """The live views of one cell's runs in a row, under a "Stop all" button."""

    def __init__(self, labels: list[str], lives: list[LiveRun]) -> None:
        self.labels = labels
        self.lives = lives
        self.display_handle: Any = None
        self.root: Any = None
        self.stop_all: Any = None
        if all(live.view is not None for live in lives):
            import ipywidgets

            self.stop_all = ipywidgets.Button(description="Stop all", button_style="danger",
                                              tooltip="Stop every model's run: the transcripts so far are kept")
            self.stop_all.on_click(lambda _button: self.request_stop_all())
            columns = [ipywidgets.VBox([ipywidgets.HTML(f"<b>{escape(label)}</b>"), live.view.root],  # type: ignore[union-attr]
                                       layout=ipywidgets.Layout(flex="1 1 0", min_width="0"))
                       for label, live in zip(labels, lives, strict=True)]
            self.root = ipywidgets.VBox([self.stop_all, ipywidgets.HBox(columns)])

    def request_stop_all(self) -> None:
        for live in self.lives:
            live.request_stop()

    def show(self) -> None:
        if self.root is None:
            return
        from IPython.display import display

        for live in self.lives:
            live.tick(force=True)
        text = f"{len(self.lives)} agent runs in progress (the live view needs a Jupyter frontend with ipywidgets)"
        self.display_handle = display({
            "text/plain": text, "text/html": f"<p><i>{escape(text)}</i></p>",
            "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0,
                                                         "model_id": self.root.model_id},
        }, raw=True, display_id=True)

    def tick(self) -> None:
        for live in self.lives:
            live.tick()

    def finish(self, runs: list[Any], notes: list[list[str]]) -> None:
        """Replace the views with the side-by-side transcript, then close every widget."""
        from IPython.display import display

        bundles = []
        for live, run, more in zip(self.lives, runs, notes, strict=True):
            live.finished = True
            folded = live.view.folded() if live.view is not None and live.view_error is None else None
            bundles.append(static_bundle(run, live.notes + more, folded))
        bundle = side_by_side_bundle(self.labels, bundles)
        if self.display_handle is not None:
            self.display_handle.update(bundle, raw=True)
        else:
            display(bundle, raw=True)
        for live in self.lives:
            if live.view is not None:
                live.view.finished = True
                live.view.close()
        if self.root is not None:
            for widget in (self.stop_all, *self.root.children[1].children, self.root.children[1], self.root):
                widget.close()


def side_by_side_bundle(labels: list[str], bundles: list[dict[str, str]]) -> dict[str, str]:
    """One transcript of several runs: an HTML table with a column per model, and a
    section per model in Markdown and plain text. Labels are masked and escaped."""
    secrets = Secrets.now()
    names = [secrets.mask(label) for label in labels]
    width = f"{100 / len(bundles):.2f}%"
    head = "".join(f'<th style="text-align:left;width:{width}">{escape(name)}</th>' for name in names)
    cells = "".join(f'<td style="text-align:left;vertical-align:top;width:{width}">{b["text/html"]}</td>'
                    for b in bundles)
    return {
        "text/html": f'<table class="openprogram-side-by-side" style="table-layout:fixed;width:100%">'
                     f"<thead><tr>{head}</tr></thead><tbody><tr>{cells}</tr></tbody></table>",
        "text/markdown": "\n\n".join(f"### {code_span(name)}\n\n{b['text/markdown']}"
                                     for name, b in zip(names, bundles, strict=True)),
        "text/plain": "\n\n".join(f"== {name} ==\n{b['text/plain']}" for name, b in zip(names, bundles, strict=True)),
    }


def _lives(magics: AgentMagics, plans: list[CellPlan], path: ClickPath) -> tuple[SideBySide, list[LiveRun]]:
    lives = [live_for(magics, plan, path) for plan in plans]
    return SideBySide([plan.options.model or "" for plan in plans], lives), lives


async def run_side_by_side_awaited(magics: AgentMagics, plan: CellPlan) -> None:
    """The awaited form: every run a task on the kernel's loop, this coroutine the ticker."""
    plans = plan.side_by_side
    path = click_path(magics.shell, "awaited")
    board, lives = _lives(magics, plans, path)
    board.show()
    tasks = [asyncio.ensure_future(p.runtime.arun(hooked_spec(p, live))) for p, live in zip(plans, lives, strict=True)]
    try:
        if path.pump is not None:  # ipykernel < 7: jupyter-ui-poll delivers the clicks
            async with path.pump() as poll:
                await _tick_until_done(tasks, board, poll)
        else:
            await _tick_until_done(tasks, board, None)
    except asyncio.CancelledError:
        board.request_stop_all()
        grace = max(interrupt_grace(p) for p in plans)
        try:
            await asyncio.wait(tasks, timeout=grace)
        except asyncio.CancelledError:
            pass  # interrupted twice: take what there is
        ended = [task.done() for task in tasks]
        for task in tasks:
            task.cancel()  # a run still going is let go: cancelled, it ends on its own
        runs = [_outcome(t, p) for t, p in zip(tasks, plans, strict=True)]
        _record(magics, plan, board, runs, interrupted=(ended, grace))
        raise interrupted_error(plan) from None
    runs = [_outcome(task, p) for task, p in zip(tasks, plans, strict=True)]
    _record(magics, plan, board, runs)


async def _tick_until_done(tasks: list[asyncio.Future[Any]], board: SideBySide, poll: Any) -> None:
    while not all(task.done() for task in tasks):
        await asyncio.wait(tasks, timeout=TICK_SECONDS, return_when=asyncio.ALL_COMPLETED)
        if poll is not None:
            await poll(20)
        board.tick()


def run_side_by_side_blocking(magics: AgentMagics, plan: CellPlan) -> None:
    """The plain magic: each run on its worker thread; this thread ticks; Ctrl-C stops all."""
    plans = plan.side_by_side
    board, lives = _lives(magics, plans, click_path(magics.shell, "blocking"))
    board.show()
    handles: list[Any] = []
    try:  # the starts too: an interrupt between them must still stop the runs started
        handles.extend(p.runtime.start(hooked_spec(p, live)) for p, live in zip(plans, lives, strict=True))
        while not all(handle.done for handle in handles):
            handles[[h.done for h in handles].index(False)]._finished.wait(TICK_SECONDS)
            board.tick()
    except KeyboardInterrupt:
        grace = max(interrupt_grace(p) for p in plans)
        stop_and_wait(handles, grace)
        missing = [None] * (len(plans) - len(handles))  # runs the interrupt kept from starting
        ended = [h.done for h in handles] + [True] * len(missing)
        _record(magics, plan, board, [h.run for h in handles] + missing, interrupted=(ended, grace))
        raise interrupted_error(plan) from None
    _record(magics, plan, board, [h.run for h in handles])


def _outcome(task: asyncio.Future[Any], plan: CellPlan) -> Any:
    if task.done() and not task.cancelled() and task.exception() is None:
        return task.result()
    return plan.runtime.last_run


def _record(magics: AgentMagics, plan: CellPlan, board: SideBySide, runs: list[Any], *,
            interrupted: tuple[list[bool], float] | None = None) -> None:
    """Store ``{model: Run}`` in ``-o VAR`` and the last Run on ``runtime.last_run``, then
    show the side-by-side transcript; a run that ended in an error fails the cell after it.

    ``interrupted``: after Kernel ▸ Interrupt, whether each run had ended, and the grace
    the cell waited."""
    labels = board.labels
    if plan.options.output:
        magics.namespace[plan.options.output] = dict(zip(labels, runs, strict=True))
    finished = [run for run in runs if run is not None]
    if magics.namespace_runtime is not None and finished:
        magics.namespace_runtime.last_run = finished[-1]
    notes = []
    ended, grace = interrupted if interrupted is not None else ([True] * len(runs), 0.0)
    for live, run, run_ended in zip(board.lives, runs, ended, strict=True):
        if interrupted is not None:
            notes.append([interrupted_note(run_ended, grace)])
        elif live.stopped_by_button and run is not None and run.stop_reason == "aborted":
            notes.append(["Stopped with the Stop button; the transcript up to that point is kept."])
        elif run is None:
            notes.append(["The run left no record."])
        else:
            notes.append([])
    board.finish(runs, notes)
    if interrupted is None:
        for sub_plan, run in zip(plan.side_by_side, runs, strict=True):
            fail_if_the_run_failed(sub_plan, run)
