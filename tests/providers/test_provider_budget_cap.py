"""A run's budget caps each round's output, on every provider with its real client: the
round is sent with the most output tokens that keep the run within max_tokens / max_cost
(docs/semantics.md, "Limits"), in the provider's own field."""

from __future__ import annotations

import math

import pytest
from fakeserver import Call, Turn

from .cases import CASE_IDS, CASES, make_tools

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

IN, OUT = 100, 50  # the first round's usage, as the server reports it

# Where each API takes the output cap, written out from its documentation.
CAP_FIELD = {
    "openai": lambda body: body.get("max_completion_tokens"),
    "openai-responses": lambda body: body.get("max_output_tokens"),
    "anthropic": lambda body: body.get("max_tokens"),
    "gemini": lambda body: (body.get("generationConfig") or {}).get("maxOutputTokens"),
    "bedrock": lambda body: (body.get("inferenceConfig") or {}).get("maxTokens"),
}


def per_million(case) -> tuple[float, float]:
    """Dollars per million tokens (input, output) of the case's model, asked of genai-prices itself."""
    import genai_prices

    provider, model = (
        {"openai-responses": "openai", "gemini": "google", "bedrock": "aws"}.get(case.prefix, case.prefix),
        case.model_id,
    )
    # A thousand tokens each, scaled: a million would be priced at a long-context tier.
    thousand = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1_000, output_tokens=1_000), model, provider_id=provider
    )
    return float(thousand.input_price) * 1000, float(thousand.output_price) * 1000


def _script(server) -> None:
    server.script(
        Turn(calls=[Call("add", {"a": 1, "b": 2})], input_tokens=IN, output_tokens=OUT),
        Turn(text="3.", input_tokens=IN, output_tokens=OUT),
    )


async def test_a_token_budget_caps_each_rounds_output_at_what_is_left(case, server):
    _script(server)
    run = await case.runtime(server).arun("Add.", tools=make_tools(), max_tokens=1_000)

    assert server.rejections == [] and run.stop_reason == "stop", run.error
    caps = [CAP_FIELD[case.prefix](request.body) for request in server.requests]
    # Round 1: all of it. Round 2: 1,000 less the 150 spent and the 100 its input will take at least.
    assert caps == [1_000, 1_000 - (IN + OUT) - IN]


async def test_a_cost_budget_caps_each_rounds_output_at_what_the_dollars_left_buy(case, server):
    _script(server)
    per_input, per_output = (price / 1e6 for price in per_million(case))
    budget = 2_000 * per_output
    run = await case.runtime(server).arun("Add.", tools=make_tools(), max_cost=budget)

    assert server.rejections == [] and run.stop_reason == "stop", run.error
    spent = IN * per_input + OUT * per_output
    expected = [math.floor(budget / per_output), math.floor((budget - spent - IN * per_input) / per_output)]
    caps = [CAP_FIELD[case.prefix](request.body) for request in server.requests]
    assert caps == pytest.approx(expected, abs=1)  # a rounding of the last dollar digit either way


async def test_without_a_budget_no_cap_is_sent_but_the_providers_own(case, server):
    _script(server)
    await case.runtime(server).arun("Add.", tools=make_tools())
    caps = [CAP_FIELD[case.prefix](request.body) for request in server.requests]
    # Anthropic requires one: the adapter's own, 8192 for a Claude 4 model (docs/providers.md).
    assert caps == ([8192, 8192] if case.prefix == "anthropic" else [None, None])
