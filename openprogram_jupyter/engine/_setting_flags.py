"""The ``%%agent`` flag parsers of the run settings (text to the value the keyword would
take), and the check of a setting that takes one of a few words. The declarations that use
them are in :mod:`.settings`; like it, this module imports nothing heavy (the flags are
built when ``%load_ext`` runs)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import SetupError

__all__ = ["REASONING_EFFORTS", "Capped", "OneOf", "amount", "comma_names", "effort_or_budget"]

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
