"""What a tool's progress report (``context.report(data)``) says: a fraction, and a line.

A report carries a fraction when it is a number from 0 to 1 (``0.4``), a mapping with
``"step"`` and ``"of"`` (``{"step": 3, "of": 10}``, ``of`` above 0), or a mapping with a
``"progress"`` number from 0 to 1 (``{"progress": 0.4}``). A mapping may add a
``"message"``. Anything else is shown as its text.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._format import shorten

__all__ = ["progress_fraction", "progress_text"]


def _number(value: object) -> float | None:
    """``value`` as a float; ``None`` for anything else, an int too large for a float among them."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def progress_fraction(data: object) -> float | None:
    """The fraction of the work done that ``data`` states (0.0 to 1.0), or ``None`` if it
    states none. ``step / of`` is clamped to 0–1; a bare number or ``"progress"`` outside
    0–1 is no fraction."""
    number = _number(data)
    if number is not None:
        return number if 0.0 <= number <= 1.0 else None
    if not isinstance(data, Mapping):
        return None
    step, of = _number(data.get("step")), _number(data.get("of"))
    if step is not None and of is not None and of > 0:
        return min(1.0, max(0.0, step / of))
    progress = _number(data.get("progress"))
    if progress is not None and 0.0 <= progress <= 1.0:
        return progress
    return None


def progress_text(data: object, limit: int = 200) -> str:
    """``data`` in one line of at most ``limit`` characters: ``3 of 10 (30%)`` for a step
    report, ``40%`` for a fraction (each followed by ``· message`` when the report has
    one), else the report's own text."""
    fraction = progress_fraction(data)
    if fraction is None:
        return shorten(_text(data), limit)
    percent = f"{fraction * 100:.0f}%"
    if isinstance(data, Mapping) and _number(data.get("step")) is not None and _number(data.get("of")):
        text = f"{_plain_number(data['step'])} of {_plain_number(data['of'])} ({percent})"
    else:
        text = percent
    message = data.get("message") if isinstance(data, Mapping) else None
    if message not in (None, ""):
        text += f" · {message}"
    return shorten(text, limit)


def _plain_number(value: float) -> str:
    """``3`` for 3 or 3.0, ``2.5`` for 2.5."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _text(data: object) -> str:
    """``str(data)``, or a line saying it has none (an int past Python's digit limit, a
    ``__str__`` that raises): a report must never break the view or the transcript."""
    try:
        return str(data)
    except Exception:
        return f"(a {type(data).__name__} that cannot be shown as text)"
