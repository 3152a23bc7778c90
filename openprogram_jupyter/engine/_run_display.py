"""How a run shows itself: :class:`RunDisplay`, the part of :class:`~.run.Run` that draws it.

A notebook displays a Run by its rich forms (a sanitized HTML transcript, Markdown), a
terminal by its plain text; ``run.show()`` draws the live view again and ``run.save(path)``
writes the transcript as a file of its own. Every form is made by the renderers from the
run's record (what :class:`~openprogram_jupyter.core._engine_shapes.RunRecord` names).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core import _viewer
from ..core._engine_shapes import RunRecord

__all__ = ["RunDisplay"]


class RunDisplay:
    """The display methods of a run record (a mixin of :class:`~.run.Run`)."""

    def show(self: RunRecord) -> None:
        """Display a live view of this run again (in a notebook with the extension loaded)."""
        _viewer.show(self)

    def save(self: RunRecord, path: str | os.PathLike[str]) -> Path:
        """Write the transcript to ``path`` as a file of its own — ``.html`` (a standalone
        page), ``.md`` or ``.txt`` — the same sanitized transcript a notebook saves, and
        return the path. Another suffix raises ``ValueError`` naming the ones that work."""
        from ..render._save import save_transcript

        return save_transcript(self, path)

    def _repr_html_(self: RunRecord) -> str:
        from ..render import render_html

        return render_html(self)

    def _repr_markdown_(self: RunRecord) -> str:
        from ..render import render_markdown

        return render_markdown(self)

    def __repr__(self) -> str:
        try:
            from ..render import render_plain
        except ImportError:
            return _summary(self)  # type: ignore[arg-type]  # a RunDisplay is always a run record
        return render_plain(self)  # type: ignore[arg-type]

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(_summary(self) if cycle else repr(self))  # type: ignore[arg-type]


def _summary(run: RunRecord) -> str:
    """One line naming the run, its model, how it ended and its size (no renderer needed)."""
    state = run.stop_reason or "running"
    return f"<Run {run.run_id} {run.model}: {state}, {run.rounds} round(s), {len(run.messages)} messages>"
