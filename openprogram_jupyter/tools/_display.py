"""The rich form a tool's result shows in its card, beside the text the model reads:
:func:`result_display`.

A display is a small dict kept in the result's ``details["display"]`` (for people only;
the model never sees it): ``{"mime": "text/html", "data": HTML}``, ``{"mime":
"image/png" or "image/jpeg", "data": base64}``, or ``{"mime": "text/plain", "data":
sentence}`` saying why there is none (the tool's renderer failed, the display was too
large). The HTML is kept as given; every view sanitizes it when it draws it
(``render/_sanitize.py``), so a saved or hand-built result is cleaned too.

pandas, matplotlib and PIL are not dependencies: a value is recognized by the module its
class comes from and by the methods it has, and none of them is ever imported here.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

from .results import as_image

__all__ = ["DISPLAY_MAX_CHARS", "Display", "result_display"]

Display = dict[str, str]

DISPLAY_MAX_CHARS = 5_000_000
"""A display larger than this (HTML characters, or base64 characters of an image) is left
out, with a sentence saying so."""

_IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg"}


def result_display(value: object, render: Callable[[Any], Any] | None = None) -> Display | None:
    """The display of a tool's return ``value``, or ``None`` for none.

    Without ``render``, only a pandas object with ``_repr_html_`` (a DataFrame, a Styler)
    and a matplotlib figure get one; a PIL image is an image block of the result already.
    With ``render`` (the tool's ``render=`` option), ``render(value)`` decides: ``None``
    for no display, a ``str`` of HTML, or an object shown as it would be in a notebook —
    a pandas object, a matplotlib figure, a PIL image, ``(bytes, "image/png")``, anything
    with ``_repr_html_``, ``_repr_png_`` or ``_repr_jpeg_``. A display that fails (the
    renderer raises, a figure cannot be saved, the renderer returns something else) is a
    ``text/plain`` display saying so: the call itself still succeeds.
    """
    if render is not None:
        try:
            value = render(value)
        except Exception as error:
            return _note(f"the tool's render= raised {type(error).__name__}: {error}")
        if value is None:
            return None
        if isinstance(value, str):
            return _bounded({"mime": "text/html", "data": value})
    try:
        display = _library_display(value)
        if display is None and render is not None:
            display = _image_display(value) or _protocol_display(value)
    except Exception as error:
        return _note(f"the {type(value).__name__} could not be drawn ({type(error).__name__}: {error})")
    if display is None and render is not None:
        return _note(f"render= returned {type(value).__name__}, which has no HTML or image form")
    return _bounded(display)


def _library(value: object) -> str:
    """The top-level package ``value``'s class comes from (``"pandas"``, ``"PIL"``, ...)."""
    return str(getattr(type(value), "__module__", "") or "").partition(".")[0]


def _library_display(value: object) -> Display | None:
    """A pandas object's HTML or a matplotlib figure's PNG; ``None`` for anything else."""
    library = _library(value)
    if library == "pandas" and hasattr(value, "_repr_html_"):
        return _html_of(value)
    if library == "matplotlib" and hasattr(value, "savefig"):
        buffer = io.BytesIO()
        value.savefig(buffer, format="png", bbox_inches="tight")
        return {"mime": "image/png", "data": base64.b64encode(buffer.getvalue()).decode("ascii")}
    return None


def _image_display(value: object) -> Display | None:
    """A PIL image or a ``(bytes, "image/...")`` pair as that image (as a result shows it)."""
    image = as_image(value)
    return {"mime": image.mime_type, "data": image.data} if image is not None else None


def _protocol_display(value: object) -> Display | None:
    """IPython's display protocol: ``_repr_html_``, else ``_repr_png_``, else ``_repr_jpeg_``."""
    if hasattr(value, "_repr_html_"):
        html = _html_of(value)
        if html is not None:
            return html
    for kind, mime in _IMAGE_TYPES.items():
        method = getattr(value, f"_repr_{kind}_", None)
        data = method() if callable(method) else None
        if isinstance(data, tuple):  # (data, metadata)
            data = data[0]
        if isinstance(data, (bytes, bytearray)):
            return {"mime": mime, "data": base64.b64encode(bytes(data)).decode("ascii")}
        if isinstance(data, str) and data:
            return {"mime": mime, "data": data}
    return None


def _html_of(value: Any) -> Display | None:
    html = value._repr_html_()
    if isinstance(html, tuple):  # (html, metadata)
        html = html[0]
    return {"mime": "text/html", "data": html} if isinstance(html, str) and html else None


def _bounded(display: Display | None) -> Display | None:
    if display is None or len(display["data"]) <= DISPLAY_MAX_CHARS:
        return display
    kind = "HTML" if display["mime"] == "text/html" else "image"
    return _note(f"the {kind} display was left out: {len(display['data']):,} characters, over {DISPLAY_MAX_CHARS:,}")


def _note(text: str) -> Display:
    return {"mime": "text/plain", "data": text}
