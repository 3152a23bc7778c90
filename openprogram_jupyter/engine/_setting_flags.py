"""The ``%%agent`` flag parsers of the run settings (text to the value the keyword would
take), and the check of a setting that takes one of a few words. The declarations that use
them are in :mod:`.settings`; like it, this module imports nothing heavy (the flags are
built when ``%load_ext`` runs). Also the checks of the sampling controls (``temperature``,
``stop_sequences``), kept here for the length of :mod:`.settings`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import SetupError

__all__ = [
    "MAX_STOP_SEQUENCES",
    "REASONING_EFFORTS",
    "Capped",
    "OneOf",
    "amount",
    "comma_names",
    "effort_or_budget",
    "stop_sequences",
    "temperature",
]

MAX_STOP_SEQUENCES = 16  # more than any provider takes (OpenAI 4, Gemini 5, Anthropic 8,191): a sanity bound

REASONING_EFFORTS = ("low", "medium", "high")


@dataclass(frozen=True)
class Capped:
    """The flag parser of a cap counted in ``kind`` (rounds, calls, tokens): ``none`` (also
    ``inf``, ``unlimited``, in any case) for no cap, else a whole number, ``,`` and ``_``
    allowed between its digits. A callable object, as the settings' checks are."""

    kind: str

    def __call__(self, text: str) -> int | None:
        if text.lower() in ("none", "inf", "unlimited"):
            return None
        try:
            return int(text.replace(",", ""))  # int() itself reads one "_" between digits
        except ValueError:
            raise ValueError(f"expected a whole number of {self.kind} or 'none', got {text!r}") from None


@dataclass(frozen=True)
class OneOf:
    """The check of a setting that is one of ``words``: the value as it is, or a
    :class:`SetupError` naming the setting, the words and the value refused."""

    words: tuple[str, ...]

    def __call__(self, name: str, value: object) -> str:
        if not isinstance(value, str) or value not in self.words:
            raise SetupError(f"{name} must be one of {', '.join(map(repr, self.words))}, got {value!r}", option=name)
        return value


def comma_names(text: str) -> list[str]:
    """Tool names separated by commas (spaces around them ignored); none is refused."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError(f"expected tool names separated by commas, got {text!r}")
    return names


def effort_or_budget(text: str) -> str | int:
    """``low``, ``medium``, ``high``, or a whole number of tokens."""
    if text.lower() in REASONING_EFFORTS:
        return text.lower()
    try:
        return int(text.replace(",", ""))  # int() itself reads one "_" between digits
    except ValueError:
        raise ValueError(f"expected low, medium, high or a number of tokens, got {text!r}") from None


def amount(text: str) -> float:
    """Dollars, as ``0.05`` or ``$0.05``."""
    try:
        return float(text.lstrip("$"))
    except ValueError:
        raise ValueError(f"expected an amount in dollars such as 0.05, got {text!r}") from None


def temperature(name: str, value: object) -> float | None:
    """``None`` (the model's default) or a finite number from 0 to 2 (OpenAI's and Gemini's
    range; Anthropic's is 0 to 1 and its API refuses more), stored as a float."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= 2
    ):
        raise SetupError(f"{name} must be a number from 0 to 2 or None, got {value!r}", option=name)
    return float(value)


def stop_sequences(name: str, value: object) -> tuple[str, ...] | None:
    """``None`` or a list (or tuple) of at most :data:`MAX_STOP_SEQUENCES` non-empty
    strings, stored as a tuple without repeats."""
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or not all(isinstance(item, str) and item for item in value)
        or len(value) > MAX_STOP_SEQUENCES
    ):
        raise SetupError(
            f"{name} must be a list of at most {MAX_STOP_SEQUENCES} non-empty strings or None, got {value!r}",
            option=name,
        )
    return tuple(dict.fromkeys(value)) or None
