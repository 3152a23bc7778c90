"""The last step of every static view: no known secret, and plain text a terminal cannot obey.

The record a view is drawn from has its secrets masked already (:mod:`.._masking`); this
is the second line of defence, for what the record keeps as given (the user's prompt, a
call's arguments) and for a Run built by hand. Every view is masked by value and by shape
(:meth:`.._secrets.Secrets.mask`); the ``text/plain`` one also has its control characters
made visible (:func:`.._controls.visible_controls`: ``\\x1b`` → ``␛``), as a terminal or
a notebook's plain-text output would obey them. HTML and Markdown need no such step:
their outside text is escaped or fenced, and a browser obeys no terminal escape.
"""

from __future__ import annotations

from .._controls import visible_controls
from .._secrets import Secrets

__all__ = ["safe_bundle", "safe_view"]


def safe_view(mime: str, text: str, secrets: Secrets | None = None) -> str:
    """``text`` (a view of MIME type ``mime``) with every secret masked; for
    ``text/plain``, with every control character but tab and newline made visible."""
    text = (secrets if secrets is not None else Secrets.now()).mask(text)
    return visible_controls(text) if mime == "text/plain" else text


def safe_bundle(bundle: dict[str, str]) -> dict[str, str]:
    """Every view of ``bundle`` made safe by :func:`safe_view`."""
    secrets = Secrets.now()
    return {mime: safe_view(mime, text, secrets) for mime, text in bundle.items()}
