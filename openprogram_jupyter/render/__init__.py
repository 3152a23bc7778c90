"""Static transcripts of a run: ``text/html``, ``text/markdown`` and ``text/plain``.

``Run._repr_html_``, ``_repr_markdown_`` and ``__repr__`` call these, and the notebook
view saves their output when a run ends, so a saved notebook shows the run without
widgets. All three read the same tree (:mod:`.tree`), built from the run's events.
"""

from __future__ import annotations

from typing import Any

from .html import render_html, run_html
from .markdown import render_markdown, run_markdown
from .plain import render_plain, run_plain
from .tree import tree_of

__all__ = ["render_bundle", "render_html", "render_markdown", "render_plain"]


def render_bundle(run: Any) -> dict[str, str]:
    """The three static MIME types of ``run``, ready for ``display(..., raw=True)``."""
    tree = tree_of(run)
    return {"text/plain": run_plain(tree), "text/html": run_html(tree), "text/markdown": run_markdown(tree)}
