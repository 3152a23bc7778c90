"""Token prices, and the cost of one reply's usage.

:data:`PRICES` maps a model id to its :class:`Price` in US dollars per million tokens.
It is deliberately small: a price that is not in the table gives a cost of ``None``, never
an estimate. Add your own models (or correct a price that changed) with
:func:`register_price`::

    from openprogram_jupyter.models import pricing
    pricing.register_price("qwen2.5:7b", input=0.0, output=0.0)          # a local model
    pricing.register_price("gpt-4.1-mini", input=0.40, output=1.60, cache_read=0.10)

Lookup (:func:`price_for`) tries the full model name first (``"openai:gpt-4.1-mini"``),
then the bare model id (``"gpt-4.1-mini"``), then the bare id with a trailing dated
snapshot or alias suffix removed (``"gpt-4.1-mini-2025-04-14"`` → ``"gpt-4.1-mini"``,
``"claude-sonnet-4-0"`` → ``"claude-sonnet-4"``, ``-latest``), and for
Bedrock ids a leading cross-region prefix (``"us."``, ``"eu."``, ``"apac."``, ``"global."``).
The same model id under several providers (``openai:`` and ``openai-responses:``) shares
one entry; register a full ``"provider:model"`` name to price one provider differently.

The prices below are the providers' published list prices for standard (non-batch,
non-priority) requests, as of 2025; providers change them, so check before relying on a
total. Where a price has tiers (Gemini 2.5 Pro above 200k prompt tokens) only the first
tier is listed and ``max_input_tokens`` marks its end: a larger prompt costs ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..messages import Usage

__all__ = ["PRICES", "Price", "cost_of", "price_for", "register_price"]


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens. ``None`` for a kind of token means "price unknown".

    ``cache_read`` / ``cache_write`` are the prices of cached input tokens read and
    written. A reply that used tokens of a kind whose price is ``None`` costs ``None``.
    ``max_input_tokens``: above this many input tokens (all kinds together) the listed
    prices no longer apply, and the cost is ``None``.
    """

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
    max_input_tokens: int | None = None


PRICES: dict[str, Price] = {
    # OpenAI (https://openai.com/api/pricing)
    "gpt-4.1": Price(2.00, 8.00, cache_read=0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, cache_read=0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, cache_read=0.025),
    "gpt-4o": Price(2.50, 10.00, cache_read=1.25),
    "gpt-4o-mini": Price(0.15, 0.60, cache_read=0.075),
    "gpt-5": Price(1.25, 10.00, cache_read=0.125),
    "gpt-5-mini": Price(0.25, 2.00, cache_read=0.025),
    "gpt-5-nano": Price(0.05, 0.40, cache_read=0.005),
    "o4-mini": Price(1.10, 4.40, cache_read=0.275),
    # Anthropic (https://www.anthropic.com/pricing); cache_write is the 5-minute cache.
    "claude-opus-4-1": Price(15.00, 75.00, cache_read=1.50, cache_write=18.75),
    "claude-sonnet-4-5": Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    "claude-sonnet-4": Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    "claude-haiku-4-5": Price(1.00, 5.00, cache_read=0.10, cache_write=1.25),
    "claude-3-5-haiku": Price(0.80, 4.00, cache_read=0.08, cache_write=1.00),
    # Gemini (https://ai.google.dev/gemini-api/docs/pricing); cached-input prices omitted.
    "gemini-2.5-pro": Price(1.25, 10.00, max_input_tokens=200_000),
    "gemini-2.5-flash": Price(0.30, 2.50),
    "gemini-2.5-flash-lite": Price(0.10, 0.40),
    # Bedrock on-demand prices for Anthropic models equal Anthropic's list prices.
    "anthropic.claude-sonnet-4-5-20250929-v1:0": Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    "anthropic.claude-haiku-4-5-20251001-v1:0": Price(1.00, 5.00, cache_read=0.10, cache_write=1.25),
}

_DATED_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest|0)$")
_BEDROCK_REGION_PREFIX = re.compile(r"^(us|eu|apac|jp|au|global)\.")


def register_price(
    model: str,
    *,
    input: float,
    output: float,
    cache_read: float | None = None,
    cache_write: float | None = None,
    max_input_tokens: int | None = None,
) -> Price:
    """Add or replace the price of ``model`` (a bare id or a ``"provider:model"`` name)."""
    price = Price(input, output, cache_read, cache_write, max_input_tokens)
    PRICES[model] = price
    return price


def lookup_keys(model_name: str) -> list[str]:
    """The names a model's data is looked up under, in order: ``model_name`` itself, the
    bare id after ``provider:``, the id without a dated snapshot suffix, and without a
    Bedrock cross-region prefix (for prices and context windows alike)."""
    candidates = [model_name]
    _, sep, bare = model_name.partition(":")
    if sep and bare:
        candidates.append(bare)
    else:
        bare = model_name
    candidates.append(_DATED_SUFFIX.sub("", bare))
    candidates.append(_BEDROCK_REGION_PREFIX.sub("", bare))
    return candidates


def price_for(model_name: str) -> Price | None:
    """The price of ``model_name`` (``"provider:model"`` or a bare id), or ``None``."""
    return next((PRICES[key] for key in lookup_keys(model_name) if key in PRICES), None)


def cost_of(model_name: str, usage: Usage) -> float | None:
    """The cost of ``usage`` in dollars, or ``None`` when any needed price is unknown."""
    price = price_for(model_name)
    if price is None:
        return None
    prompt = usage.input + usage.cache_read + usage.cache_write
    if price.max_input_tokens is not None and prompt > price.max_input_tokens:
        return None
    total = usage.input * price.input + usage.output * price.output
    for tokens, per_million in ((usage.cache_read, price.cache_read), (usage.cache_write, price.cache_write)):
        if tokens:
            if per_million is None:
                return None
            total += tokens * per_million
    return total / 1_000_000
