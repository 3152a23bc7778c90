"""How an ``%%agent`` cell fails: one short line, not a traceback through the package.

IPython shows an exception's ``_render_traceback_()`` lines in place of its traceback, so
the cell is still marked failed — Run All, papermill and nbclient stop there — while the
user reads one line that says what happened and where the Run is.
"""

from __future__ import annotations

from ..core._controls import visible_controls
from ..core._secrets import mask

__all__ = ["CellError", "RunFailed", "RunInterrupted", "where_the_run_is"]


class CellError(Exception):
    """Fails the cell with ``<ClassName>: <message>`` and nothing else. The message (which
    may quote a run's error) has every known secret masked and its control characters made
    visible: a terminal, and a notebook's traceback view, would obey them."""

    def __init__(self, message: str) -> None:
        super().__init__(visible_controls(mask(message)))

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class RunFailed(CellError):
    """The run ended with ``stop_reason == "error"`` (its transcript is shown above).

    Its message holds the error's summary, for what reads only the exception (nbclient,
    papermill, a CI log); the notebook shows ``shown`` instead — the transcript right
    above already prints the error, and printing it twice read as two failures."""

    def __init__(self, message: str, shown: str | None = None) -> None:
        super().__init__(message)
        self.shown = visible_controls(mask(shown)) if shown is not None else None

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self.shown if self.shown is not None else self}"]


class RunInterrupted(CellError):
    """Kernel ▸ Interrupt (or Ctrl-C) stopped the run; its partial transcript is kept."""


def where_the_run_is(output: str | None) -> str:
    """``r`` for ``-o r``, else ``runtime.last_run``."""
    return output if output else "runtime.last_run"
