"""An evaluation's shape beyond prompts × models: tool variants, repeats, the cost cap — checked."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ...core.errors import SetupError

__all__ = ["check_max_cost", "check_repeat", "parse_variants"]


def parse_variants(variants: object) -> list[tuple[str | None, dict[str, Any]]]:
    """``variants`` as ``[(name, run options)]``: a variant's tool list becomes
    ``{"tools": [...]}``, a dict of run options (``system=``, ``tools=``, ...) stays as it
    is. ``None``: one unnamed variant with no options. Raises ``TypeError`` /
    ``ValueError`` naming a variant that is neither, a name that is not a non-empty
    string, or an empty mapping."""
    if variants is None:
        return [(None, {})]
    if not isinstance(variants, Mapping):
        raise SetupError(
            f"variants must be a dict {{name: [tools]}} or {{name: {{run options}}}}, got {type(variants).__name__}"
        )
    if not variants:
        raise SetupError("variants is empty: give at least one variant, or leave variants out")
    parsed: list[tuple[str | None, dict[str, Any]]] = []
    for name, variant in variants.items():
        if not isinstance(name, str) or not name.strip():
            raise SetupError(f"a variant's name must be a non-empty str, got {name!r}")
        if isinstance(variant, Mapping):
            parsed.append((name, dict(variant)))
        elif isinstance(variant, Iterable) and not isinstance(variant, (str, bytes)):
            parsed.append((name, {"tools": list(variant)}))
        else:
            raise SetupError(
                f"variant {name!r} must be a list of tools or a dict of run options (system=, tools=, ...), "
                f"got {type(variant).__name__}"
            )
    return parsed


def check_repeat(repeat: object) -> int:
    """``repeat`` if it is a positive int; else ``ValueError`` naming it."""
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        raise SetupError(f"repeat must be a positive int (how many times each prompt runs), got {repeat!r}")
    return repeat


def check_max_cost(max_cost: object) -> float | None:
    """``max_cost`` if it is ``None`` or a positive finite number of dollars; else ``ValueError``."""
    if max_cost is None:
        return None
    if isinstance(max_cost, bool) or not isinstance(max_cost, (int, float)) or not math.isfinite(max_cost):
        raise SetupError(f"max_cost must be a positive number of dollars or None, got {max_cost!r}")
    if max_cost <= 0:
        raise SetupError(f"max_cost must be a positive number of dollars or None, got {max_cost!r}")
    return float(max_cost)
