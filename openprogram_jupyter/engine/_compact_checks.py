"""The check and the ``%%agent`` flag parser of the run setting ``compact``
(:mod:`.settings` declares it; :mod:`._compaction` acts on it). Light: the flags are built
when ``%load_ext`` runs."""

from __future__ import annotations

from ..core.errors import SetupError

__all__ = ["MIN_COMPACT_TOKENS", "compact_check", "fraction_or_tokens"]

MIN_COMPACT_TOKENS = 1_000  # below this a summary and the kept turns would not fit either


def compact_check(name: str, value: object) -> float | int | str | None:
    """``None`` (off), a fraction of the context window above 0 and at most 1, a token
    count of at least :data:`MIN_COMPACT_TOKENS`, or ``"provider"``: the provider's own
    compaction where it has one, the package's elsewhere (:mod:`._compaction`)."""
    if value is None or value == "provider":
        return value
    if isinstance(value, float) and 0 < value <= 1:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value >= MIN_COMPACT_TOKENS:
        return value
    raise SetupError(
        f"{name} must be a fraction of the context window above 0 and at most 1 (such as 0.8), a token count of "
        f"at least {MIN_COMPACT_TOKENS:,}, 'provider', or None, got {value!r:.60}",
        option=name,
    )


def fraction_or_tokens(text: str) -> float | int | str | None:
    """``off`` / ``none`` for no compaction, ``provider``, a fraction such as ``0.8``, or a
    whole number of tokens (``,`` and ``_`` allowed between its digits)."""
    if text.lower() in ("off", "none"):
        return None
    if text.lower() == "provider":
        return "provider"
    try:
        return int(text.replace(",", ""))
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected a fraction such as 0.8, a number of tokens, or 'off', got {text!r}") from None
