"""An argument holding NaN or Infinity (a model writes ``NaN``, Python's JSON parser takes
it) is the model's mistake: the call gets an error result naming the field before the tool
runs, and the next request carries no NaN, so no provider refuses it (issue 42: Anthropic
and Gemini ended the run "Out of range float values are not JSON compliant")."""

from __future__ import annotations

import json
import math

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op

from .cases import CASE_IDS, CASES


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_a_non_finite_argument_is_an_error_result_and_the_run_goes_on(case, server, value):
    ran: list[float] = []

    def scale(factor: float) -> float:
        """Scale by a factor.

        Args:
            factor: The factor.
        """
        ran.append(factor)
        return factor * 2

    server.script(Turn(calls=[Call("scale", {"factor": value})]), Turn(text="sorry"))
    run = case.runtime(server).run("go", tools=[op.function(scale, register_globally=False)])

    assert run.stop_reason == "stop", run.error
    assert ran == []
    (result,) = run.tool_results
    word = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    assert result.is_error and f"factor: {word} is not a JSON number" in result.text
    json.dumps(server.bodies()[-1], allow_nan=False)  # the next request was valid JSON
