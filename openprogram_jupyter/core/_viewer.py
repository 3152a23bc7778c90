"""What :meth:`Run.show() <openprogram_jupyter.engine.run.Run.show>` draws with.

A Run knows nothing of widgets and its module must not import the notebook layer, so the
notebook layer provides the viewer when ``%load_ext openprogram_jupyter`` loads it. It also
provides what names an object by the notebook variable holding it (:func:`name_of`), for
the notes of a rerun or a fork. This module is tiny on purpose: the extension loads it without the core.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["name_of", "provide_namer", "provide_viewer", "show"]

_viewer: Callable[[Any], None] | None = None
_namer: Callable[[object], str | None] | None = None


def provide_viewer(viewer: Callable[[Any], None]) -> None:
    """Set what :func:`show` calls with a Run or a RunHandle."""
    global _viewer
    _viewer = viewer


def show(run: object) -> None:
    """Display a live view of ``run`` (a Run or a RunHandle); without the extension loaded, say how to load it."""
    if _viewer is None:
        raise RuntimeError("run.show() draws in a notebook: run %load_ext openprogram_jupyter first")
    _viewer(run)


def provide_namer(namer: Callable[[object], str | None]) -> None:
    """Set what :func:`name_of` asks."""
    global _namer
    _namer = namer


def name_of(obj: object) -> str | None:
    """The name of a notebook variable holding ``obj`` itself; ``None`` outside a notebook
    with the extension loaded, or when no variable holds it."""
    return _namer(obj) if _namer is not None else None
