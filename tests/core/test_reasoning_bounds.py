"""docs/faults.md, "Images the provider refuses" (and its kin, a reasoning budget none
takes): ``reasoning`` is bounded where it is checked, before anything is sent."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

RANGE = "'low', 'medium', 'high', a token budget from 1,024 to 126,976, or None"


@pytest.mark.parametrize(
    ("budget", "named"),
    [
        (10**100, "got a 101-digit number"),
        (126_977, "got 126977"),
        (10**5000, "got a 5001-digit number"),  # too long for str(): named by its size
    ],
    ids=["googol", "just-over", "5001-digits"],
)
def test_a_reasoning_budget_no_provider_takes_is_refused_naming_it_and_the_range(budget, named):
    model = op.ScriptedModel(["never"])
    with pytest.raises(op.SetupError) as raised:
        op.Runtime(model=model).run("go", reasoning=budget)
    assert str(raised.value) == f"reasoning must be {RANGE}, {named}"
    with pytest.raises(op.SetupError):
        op.Runtime(model=model, reasoning=budget)
    assert model.requests == []


def test_the_largest_budget_is_taken():
    model = op.ScriptedModel(["ok"])
    assert op.Runtime(model=model).run("go", reasoning=126_976).text == "ok"
    assert model.requests[0].reasoning == 126_976
