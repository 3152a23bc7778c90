"""The evaluation's statistics at their edges: a Wilson interval never leaves [0, 1] and
always holds its rate, and impossible counts are refused by name."""

from __future__ import annotations

import pytest

from openprogram_jupyter.lab.evaluation._stats import wilson


def test_every_wilson_interval_up_to_200_trials_lies_within_0_and_1_around_its_rate():
    # Rounding takes the unclamped bounds of 16 out of 16 above 1 and of 0 out of 21 below 0.
    for trials in range(1, 201):
        for successes in range(trials + 1):
            low, high = wilson(successes, trials)
            assert 0.0 <= low <= successes / trials <= high <= 1.0, (successes, trials)
    assert wilson(16, 16)[1] == 1.0 and wilson(0, 21)[0] == 0.0


@pytest.mark.parametrize(
    ("successes", "trials"), [(-1, 5), (0, -1), (-2, -1), (6, 5)], ids=["negative", "no", "both", "more"]
)
def test_counts_that_cannot_be_are_refused_naming_them(successes, trials):
    with pytest.raises(ValueError) as refused:
        wilson(successes, trials)
    assert str(refused.value) == f"wilson: {successes} successes in {trials} trials cannot be"
