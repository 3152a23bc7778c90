"""Static transcripts of a run: ``text/html``, ``text/markdown`` and ``text/plain``.

``Run._repr_html_``, ``_repr_markdown_`` and ``__repr__`` call these, and the notebook
view saves their output when a run ends, so a saved notebook shows the run without
widgets. All three read the same tree (:mod:`.tree`), built from the run's events. What
they return holds no known secret, and the plain text no control character a terminal
would obey (:mod:`._safe`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import html, markdown, plain
from ._safe import safe_bundle, safe_view
from .tree import TreeBuilder, tree_of

if TYPE_CHECKING:
    from ..core._engine_shapes import RunRecord

__all__ = ["render_bundle", "render_html", "render_markdown", "render_plain"]


def render_bundle(run: RunRecord, folded: TreeBuilder | None = None) -> dict[str, str]:
    """The three static MIME types of ``run``, ready for ``display(..., raw=True)``;
    ``folded``: a builder that folded the run's events already (see :func:`.tree.tree_of`)."""
    tree = tree_of(run, folded)
    return safe_bundle(
        {
            "text/plain": plain.run_plain(tree),
            "text/html": html.run_html(tree),
            "text/markdown": markdown.run_markdown(tree),
        }
    )


def render_html(run: RunRecord, **options: Any) -> str:
    """The run as HTML (:func:`.html.render_html`; ``options`` are its keywords)."""
    return safe_view("text/html", html.render_html(run, **options))


def render_markdown(run: RunRecord, **options: Any) -> str:
    """The run as Markdown (:func:`.markdown.render_markdown`; ``options`` are its keywords)."""
    return safe_view("text/markdown", markdown.render_markdown(run, **options))


def render_plain(run: RunRecord, **options: Any) -> str:
    """The run as indented plain text (:func:`.plain.render_plain`; ``options`` are its keywords)."""
    return safe_view("text/plain", plain.render_plain(run, **options))
