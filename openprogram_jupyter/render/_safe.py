"""The last step of every output the package shows: no known secret, plain text a
terminal cannot obey, and no ``$`` a notebook typesets as math.

The record a view is drawn from has its secrets masked already (:mod:`.._masking`); this
is the second line of defence, for what the record keeps as given (the user's prompt, a
call's arguments) and for a Run built by hand. Every view is masked by value and by shape
(:meth:`.._secrets.Secrets.mask`); the ``text/plain`` one also has its control characters
made visible (:func:`.._controls.visible_controls`: ``\\x1b`` → ``␛``), as a terminal or
a notebook's plain-text output would obey them.

JupyterLab, Notebook 7 and nbclassic typeset ``$…$`` in HTML and Markdown outputs as
math, so ``max_cost=$0.05; spent $0.0816`` read as italic letters between two amounts.
Each ``text/html`` view is one element of class ``mathjax_ignore tex2jax_ignore``
(MathJax 3, then MathJax 2's name), whose contents MathJax leaves alone. Each
``text/markdown`` view has its ``$`` written ``\\$`` outside code, and is that element
too (a ``<div>`` line before it, a ``</div>`` line after): JupyterLab's Markdown renderer
turns ``\\$`` into ``$`` before MathJax reads the page, so two escaped amounts on one
line were still typeset; the escape keeps the ``$`` out of its math finder, so the text
between two amounts is read as Markdown, and viewers without MathJax show ``$``.

Every ``display`` the package makes goes through :func:`display_bundle` or
:func:`update_bundle`, every ``_repr_html_`` / ``_repr_markdown_`` returns
:func:`safe_view`'s text: ``tests/render/test_math_inert.py`` finds every producer in the
package and fails for one that does not.
"""

from __future__ import annotations

import re
from typing import Any

from ..core._controls import visible_controls
from ..core._secrets import Secrets
from ._markdown_inert import inert_dollars

__all__ = [
    "MATH_INERT_CLASSES",
    "display_bundle",
    "inert_math_html",
    "inert_math_markdown",
    "safe_bundle",
    "safe_view",
    "update_bundle",
]

MATH_INERT_CLASSES = ("mathjax_ignore", "tex2jax_ignore")
_OPEN = f'<div class="{" ".join(MATH_INERT_CLASSES)}">'
_CLOSE = "</div><!--/math-inert-->"
_MARKS = re.compile(re.escape(_OPEN) + "|" + re.escape(_CLOSE))


def inert_math_html(html: str) -> str:
    """``html`` inside one ``<div class="mathjax_ignore tex2jax_ignore">``; returned as it
    is when it is exactly one such element already (so marking twice nests nothing)."""
    return html if _is_marked(html, _OPEN, _CLOSE) else f"{_OPEN}{html}{_CLOSE}"


def inert_math_markdown(markdown: str) -> str:
    """``markdown`` with its ``$`` escaped outside code (:func:`._markdown_inert.inert_dollars`),
    between a line ``<div class="mathjax_ignore tex2jax_ignore">`` and a line ``</div>``
    (blank lines around the Markdown, which stays Markdown); ending in one newline. Marking
    twice nests nothing."""
    if _is_marked(markdown, _OPEN + "\n\n", "\n\n" + _CLOSE + "\n"):
        return markdown
    body = inert_dollars(markdown).strip("\n")
    return f"{_OPEN}\n\n{body}\n\n{_CLOSE}\n"


def _is_marked(text: str, opening: str, closing: str) -> bool:
    """Whether ``text`` is one marked element: it opens with ``opening``, ends with
    ``closing``, and the element opened first is the one closed last."""
    if not (text.startswith(opening) and text.endswith(closing)):
        return False
    depth = 0
    for mark in _MARKS.finditer(text):
        depth += 1 if mark.group() == _OPEN else -1
        if depth == 0:
            return mark.end() == len(text.rstrip("\n"))
    return False


def safe_view(mime: str, text: str, secrets: Secrets | None = None) -> str:
    """``text`` (a view of MIME type ``mime``) with every secret masked; for
    ``text/plain``, with every control character but tab and newline made visible; for
    ``text/html``, inside one math-inert element (:func:`inert_math_html`); for
    ``text/markdown``, with ``$`` escaped outside code, inside that element too
    (:func:`inert_math_markdown`)."""
    text = (secrets if secrets is not None else Secrets.now()).mask(text)
    if mime == "text/plain":
        return visible_controls(text)
    if mime == "text/html":
        return inert_math_html(text)
    return inert_math_markdown(text) if mime == "text/markdown" else text


def safe_bundle(bundle: dict[str, Any]) -> dict[str, Any]:
    """Every text view of ``bundle`` made safe by :func:`safe_view`; a value that is not a
    string (a widget's model reference) is kept as it is."""
    secrets = Secrets.now()
    return {
        mime: safe_view(mime, value, secrets) if isinstance(value, str) else value for mime, value in bundle.items()
    }


def display_bundle(bundle: dict[str, Any], **options: Any) -> Any:
    """``IPython.display.display(safe_bundle(bundle), raw=True, **options)`` — the one way
    the package displays output; returns what it returns (a handle with ``display_id=True``)."""
    from IPython.display import display

    return display(safe_bundle(bundle), raw=True, **options)


def update_bundle(handle: Any, bundle: dict[str, Any], **options: Any) -> None:
    """``handle.update(safe_bundle(bundle), raw=True, **options)`` for a display handle."""
    handle.update(safe_bundle(bundle), raw=True, **options)
