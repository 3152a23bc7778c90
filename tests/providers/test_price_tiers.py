"""Prices with cached tokens at a tier's edge: the prompt that decides the tier counts the
cached tokens too, each kind of token at its own price, a cached token of unknown price
makes the cost unknown (issue 45 item 3; models/pricing.py)."""

from __future__ import annotations

import pytest

from openprogram_jupyter.core.messages import Usage
from openprogram_jupyter.models import pricing
from openprogram_jupyter.models.pricing import Price, cost_of, price_for, register_price


@pytest.fixture(autouse=True)
def own_prices(monkeypatch):
    monkeypatch.setattr(pricing, "PRICES", {})


def test_gemini_2_5_pro_s_higher_tier_starts_when_the_prompt_with_its_cached_tokens_passes_200k():
    # Google's published prices per million tokens: up to 200k prompt tokens input 1.25,
    # cached 0.125, output 10; above, 2.50, 0.25 and 15.
    below = Usage(input=150_000, cache_read=40_000, output=1_000)
    assert cost_of("gemini:gemini-2.5-pro", below) == pytest.approx(0.1875 + 0.005 + 0.01)
    above = Usage(input=150_000, cache_read=60_000, output=1_000)  # 150k alone is under the tier
    assert cost_of("gemini:gemini-2.5-pro", above) == pytest.approx(0.375 + 0.015 + 0.015)
    assert price_for("gemini:gemini-2.5-pro") == Price(1.25, 10.0, 0.125, None, 200_000)


def test_an_own_price_counts_each_kind_of_token_at_its_price_up_to_its_prompt_limit():
    register_price("local:m", input=2.0, output=8.0, cache_read=0.5, cache_write=2.5, max_input_tokens=1_000)
    at_limit = Usage(input=600, cache_read=300, cache_write=100, output=50)
    assert cost_of("local:m", at_limit) == pytest.approx((600 * 2.0 + 300 * 0.5 + 100 * 2.5 + 50 * 8.0) / 1e6)
    for one_more in (
        Usage(input=601, cache_read=300, cache_write=100),
        Usage(input=600, cache_read=301, cache_write=100),
        Usage(input=600, cache_read=300, cache_write=101),
    ):
        assert cost_of("local:m", one_more) is None


def test_cached_tokens_of_an_unknown_price_make_the_cost_unknown_and_none_of_them_do_not():
    register_price("local:plain", input=1.0, output=2.0)
    assert cost_of("local:plain", Usage(input=10, output=5)) == pytest.approx(20 / 1e6)
    assert cost_of("local:plain", Usage(input=10, cache_read=1, output=5)) is None
    assert cost_of("local:plain", Usage(input=10, cache_write=1, output=5)) is None


def test_a_model_is_looked_up_under_its_full_name_bare_id_undated_id_and_without_a_region():
    assert pricing.lookup_keys("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0") == [
        "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
    ]
    assert pricing.lookup_keys("gpt-4.1-mini-2025-04-14") == [
        "gpt-4.1-mini-2025-04-14",
        "gpt-4.1-mini",
        "gpt-4.1-mini-2025-04-14",
    ]
    register_price("anthropic.claude-sonnet-4-5-20250929-v1:0", input=1.0, output=1.0)
    usage = Usage(input=1_000_000, output=0)
    assert cost_of("bedrock:eu.anthropic.claude-sonnet-4-5-20250929-v1:0", usage) == 1.0


def test_the_library_s_price_keeps_each_kind_of_token_and_where_its_first_tier_ends():
    assert price_for("anthropic:claude-sonnet-4-5") == Price(3.0, 15.0, 0.3, 3.75, 200_000)
    assert price_for("openai:gpt-4.1-mini") == Price(0.4, 1.6, 0.1, None, None)


def test_an_own_price_s_cost_is_exact_and_a_model_no_provider_sells_costs_nothing_known():
    register_price("local:m", input=3.0, output=0.0)
    assert cost_of("local:m", Usage(input=1_000_000)) == 3.0  # not a hair under: per million exactly
    assert cost_of("local:unknown", Usage(input=10)) is None  # no such provider: unknown, no error
    assert cost_of("gemini:gpt-4.1-mini", Usage(input=10)) is None  # another provider's model is not priced
