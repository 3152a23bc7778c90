"""A cost in dollars as every view writes it: :func:`dollars`."""

from __future__ import annotations

__all__ = ["dollars"]


def dollars(cost: float) -> str:
    """``$0.0412``: ``cost`` to four decimal places; a cost above zero that would round to
    ``$0.0000`` is ``< $0.0001``, so an amount spent never reads as nothing (zero itself is
    ``$0.0000``)."""
    if 0 < cost < 0.00005:
        return "< $0.0001"
    return f"${cost:.4f}"
