"""The statistics an evaluation reports: Wilson intervals for rates, McNemar's exact test for pairs."""

from __future__ import annotations

import math

from ...core.errors import SetupError

__all__ = ["Z95", "mcnemar_exact", "wilson"]

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile: a two-sided 95 % interval


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate of ``successes`` in ``trials`` (95 % by
    default), as ``(low, high)`` within [0, 1] — ``low`` exactly 0 when no trial
    succeeded, ``high`` exactly 1 when every one did; ``(0.0, 1.0)`` for no trials. Raises
    ``ValueError`` for counts that cannot be (negative, or more successes than trials)."""
    if trials < 0 or successes < 0 or successes > trials:
        raise SetupError(f"wilson: {successes} successes in {trials} trials cannot be")
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    spread = z * z / trials
    centre = (rate + spread / 2) / (1 + spread)
    half = z * math.sqrt(rate * (1 - rate) / trials + spread / (4 * trials)) / (1 + spread)
    # The bounds are exactly 0 with no success and 1 with no failure; computed, rounding
    # leaves them a hair off (5.6e-17 for 0 of 3, above 1 for 16 of 16).
    low = 0.0 if successes == 0 else centre - half
    high = 1.0 if successes == trials else centre + half
    return low, high


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """McNemar's exact two-sided p-value for paired outcomes: ``only_a`` pairs passed under
    A alone, ``only_b`` under B alone (the pairs that agree do not count). Under the null
    hypothesis each discordant pair is a fair coin, so the p-value is the two-sided binomial
    test of ``min(only_a, only_b)`` in ``only_a + only_b`` at one half: twice the smaller
    tail, at most 1. No discordant pairs: 1.0."""
    if only_a < 0 or only_b < 0:
        raise SetupError(f"mcnemar_exact: counts must not be negative, got {only_a} and {only_b}")
    pairs = only_a + only_b
    if pairs == 0:
        return 1.0
    tail = sum(math.comb(pairs, i) for i in range(min(only_a, only_b) + 1)) / 2**pairs
    return min(1.0, 2 * tail)
