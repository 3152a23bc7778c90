"""``%%agent -m A,B``: the board of one cell on several models, their live views side by side.

Each model gets its own run — its own Runtime, spec and :class:`~._live.LiveRun`, so its
own Stop — and :mod:`._foreground` runs them concurrently, as it runs a cell on one
model. Above the views a "Stop all" button stops every run. When the last run ends the
display is replaced by one static transcript with a column per model (HTML), or a
section per model (Markdown, plain text); ``-o VAR`` stores a dict from each model's
name, as written after ``-m``, to its Run.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..core._secrets import Secrets
from ..render._safe import display_bundle, update_bundle
from ..render.markdown import code_span
from ._inert_widget import inert_widget
from ._live import LiveRun, static_bundle

if TYPE_CHECKING:
    from ..engine.run import Run

__all__ = ["SideBySide", "side_by_side_bundle"]


class SideBySide:
    """The live views of one cell's runs in a row, under a "Stop all" button."""

    def __init__(self, labels: list[str], lives: list[LiveRun]) -> None:
        self.labels = labels
        self.lives = lives
        self.display_handle: Any = None
        self.root: Any = None
        self.stop_all_button: Any = None
        if all(live.view is not None for live in lives):
            import ipywidgets

            self.stop_all_button = inert_widget(
                ipywidgets.Button,
                description="Stop all",
                button_style="danger",
                tooltip="Stop every model's run: the transcripts so far are kept",
            )
            self.stop_all_button.on_click(lambda _button: self.request_stop_all())
            columns = [
                inert_widget(
                    ipywidgets.VBox,
                    children=[inert_widget(ipywidgets.HTML, value=f"<b>{escape(label)}</b>"), live.view.root],  # type: ignore[union-attr]
                    layout=ipywidgets.Layout(flex="1 1 0", min_width="0"),
                )
                for label, live in zip(labels, lives, strict=True)
            ]
            self.root = inert_widget(
                ipywidgets.VBox, children=[self.stop_all_button, inert_widget(ipywidgets.HBox, children=columns)]
            )

    def request_stop_all(self) -> None:
        """The "Stop all" button: as if each run's own Stop were pressed."""
        for live in self.lives:
            live.request_stop()

    def abort_all(self) -> None:
        """Kernel ▸ Interrupt: stop every run."""
        for live in self.lives:
            live.abort.set()

    def show(self) -> None:
        if self.root is None:
            return
        for live in self.lives:
            live.tick(force=True)
        text = f"{len(self.lives)} agent runs in progress (the live view needs a Jupyter frontend with ipywidgets)"
        self.display_handle = display_bundle(
            {
                "text/plain": text,
                "text/html": f"<p><i>{escape(text)}</i></p>",
                "application/vnd.jupyter.widget-view+json": {
                    "version_major": 2,
                    "version_minor": 0,
                    "model_id": self.root.model_id,
                },
            },
            display_id=True,
        )

    def tick(self) -> None:
        for live in self.lives:
            live.tick()

    def finish(self, runs: list[Run | None], notes: list[list[str]], metadata: list[JsonObject | None]) -> None:
        """Replace the views with the side-by-side transcript, then close every widget.
        (``metadata`` is not saved: ``%agent restore`` restores runs of one model.)"""
        bundles = []
        for live, run, more in zip(self.lives, runs, notes, strict=True):
            live.finished = True
            folded = live.view.folded() if live.view is not None and live.view_error is None else None
            bundles.append(static_bundle(run, live.notes + more, folded))
        bundle = side_by_side_bundle(self.labels, bundles)
        if self.display_handle is not None:
            update_bundle(self.display_handle, bundle)
        else:
            display_bundle(bundle)
        for live in self.lives:
            if live.view is not None:
                live.view.finished = True
                live.view.close()
        if self.root is not None:
            for widget in (self.stop_all_button, *self.root.children[1].children, self.root.children[1], self.root):
                widget.close()


def side_by_side_bundle(labels: list[str], bundles: list[dict[str, str]]) -> dict[str, str]:
    """One transcript of several runs: an HTML table with a column per model, and a
    section per model in Markdown and plain text. Labels are masked and escaped."""
    secrets = Secrets.now()
    names = [secrets.mask(label) for label in labels]
    width = f"{100 / len(bundles):.2f}%"
    head = "".join(f'<th style="text-align:left;width:{width}">{escape(name)}</th>' for name in names)
    cells = "".join(
        f'<td style="text-align:left;vertical-align:top;width:{width}">{b["text/html"]}</td>' for b in bundles
    )
    return {
        "text/html": f'<table class="openprogram-side-by-side" style="table-layout:fixed;width:100%">'
        f"<thead><tr>{head}</tr></thead><tbody><tr>{cells}</tr></tbody></table>",
        "text/markdown": "\n\n".join(
            f"### {code_span(name)}\n\n{b['text/markdown']}" for name, b in zip(names, bundles, strict=True)
        ),
        "text/plain": "\n\n".join(f"== {name} ==\n{b['text/plain']}" for name, b in zip(names, bundles, strict=True)),
    }
