"""The line under a cell's live view for a page reloaded while the run goes on.

A reloaded page no longer receives the cell's outputs: Jupyter sends them to the page
that asked to run the cell, and that page is gone, so the transcript displayed when the
run ends never reaches it. What does reach it is widget state: JupyterLab and Notebook 7
(on ipykernel 7.4's subshells) restore the kernel's widgets while the cell still runs,
and apply their later changes. So the line is an HTML widget, displayed with the same
sentence as text for what cannot draw it (a saved notebook, a page without the widget),
and when the run ends the widget's text becomes a line saying how to draw the run again
followed by its transcript. On a page that did not reload, the cell's outputs are
cleared then and the transcript displayed instead, so the line goes with the view.

The widget is left open when the run ends (a reloaded page may still be asking for its
state): it holds the transcript's HTML for as long as the kernel lives.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..render._safe import display_bundle, safe_view
from ._inert_widget import inert_widget

__all__ = ["ReloadNote"]

_STYLE = "color:#57606a;font-size:11px;line-height:1.4"
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


class ReloadNote:
    """The line for a run that ``show_again`` (``"%agent show VAR"``) draws again."""

    def __init__(self, show_again: str) -> None:
        self.show_again = show_again
        self.widget: Any = None

    @property
    def while_running(self) -> str:
        """What the line says while the run goes on."""
        return (
            f"If this page is reloaded before the run ends, the run goes on but this cell may stop "
            f"updating: run {self.show_again} in a cell to see it."
        )

    @property
    def once_ended(self) -> str:
        """What it says once the run has ended, above the transcript."""
        return (
            f"The run has ended. This page was reloaded while it ran, so the transcript below is not "
            f"saved with the notebook: run {self.show_again} in a cell to keep it (%agent restore reads it there)."
        )

    def display(self) -> None:
        """Display the line: the widget, and the sentence as text and HTML beside it."""
        import ipywidgets

        self.widget = inert_widget(ipywidgets.HTML, value=self._line(self.while_running))
        display_bundle(
            {
                "text/plain": self.while_running,
                "text/html": self._line(self.while_running),
                _WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id},
            }
        )

    def ended(self, transcript_html: str) -> None:
        """Turn the line into :attr:`once_ended` followed by ``transcript_html`` (the run's
        static transcript, masked and made math-inert here); nothing if it was never displayed."""
        if self.widget is None:
            return
        self.widget.value = safe_view("text/html", self._line(self.once_ended) + transcript_html)

    @staticmethod
    def _line(text: str) -> str:
        return f'<div style="{_STYLE}">{escape(text)}</div>'
