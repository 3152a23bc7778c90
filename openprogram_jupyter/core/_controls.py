"""Control characters made visible, for text shown where a terminal would obey them.

Text from a tool or a model may hold terminal escapes: ``\\x1b[2J`` clears the screen,
``\\x1b]0;…\\x07`` sets the window title, ``\\x1b[A`` moves the cursor, ``\\r`` and
``\\b`` write over what was shown. :func:`visible_controls` turns every such character
into a visible stand-in, so the text reads the same and does nothing:

- the C0 controls except tab and newline become their Unicode "control pictures"
  (ESC ``\\x1b`` → ``␛``, BEL ``\\x07`` → ``␇``, CR ``\\r`` → ``␍``, BS ``\\x08`` → ``␈``),
  and DEL ``\\x7f`` becomes ``␡`` — except that a ``\\r\\n`` line end becomes ``\\n``;
- the C1 controls ``\\x80``–``\\x9f`` (``\\x9b`` is a one-character escape introducer in
  some terminals) become the four characters ``\\x9b`` (a backslash, ``x`` and two hex
  digits), as they have no picture.

Used by the plain-text transcript, the static notes and the messages of errors a terminal
prints; HTML and Markdown need none of it (a browser obeys no escape, and their text is
escaped or fenced already).
"""

from __future__ import annotations

__all__ = ["visible_controls"]

_VISIBLE: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)},
    0x7F: "\u2421",
    **{code: f"\\x{code:02x}" for code in range(0x80, 0xA0)},
}


def visible_controls(text: str) -> str:
    """``text`` with every control character but tab and newline shown as a visible
    stand-in (``\\x1b`` → ``␛``); a ``\\r\\n`` line end becomes ``\\n``."""
    if text.isprintable():
        return text
    return text.replace("\r\n", "\n").translate(_VISIBLE)
