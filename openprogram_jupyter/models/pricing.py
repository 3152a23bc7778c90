"""Token prices, and the cost of one reply's usage.

Prices come from `genai-prices <https://github.com/pydantic/genai-prices>`_, the pydantic
team's maintained data (bundled with it, read without a network): every major provider,
cache reads and writes at their own prices, tiered prices (Gemini 2.5 Pro above 200k
prompt tokens) and price changes over time. A model it does not know costs ``None`` —
"price unknown" in every view — never an estimate.

Your own models (a local server, a fine-tune, a private deployment), or a price you know
better, go in first with :func:`register_price`, in US dollars per million tokens::

    from openprogram_jupyter.models import pricing
    pricing.register_price("qwen2.5:7b", input=0.0, output=0.0)          # a local model
    pricing.register_price("openai:my-finetune", input=3.0, output=12.0, cache_read=0.75)

Such a price is found under the full model name (``"openai:gpt-4.1-mini"``), the bare id,
the id without a dated snapshot suffix (``"gpt-4.1-mini-2025-04-14"``) or without a
Bedrock cross-region prefix (``"us."``, ``"eu."``, …): :func:`lookup_keys`. The library is
asked with the provider's own id (``ProviderInfo.prices_id``) and the bare model id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..core.messages import Usage

__all__ = ["PRICES", "Price", "cost_of", "library_model", "lookup_keys", "price_for", "register_price"]


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


PRICES: dict[str, Price] = {}
"""The user's own prices (:func:`register_price`), looked up before the library's."""

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
    """The price of ``model_name`` (``"provider:model"`` or a bare id): yours if you
    registered one, else the library's first tier; ``None`` when neither knows it."""
    own = _own_price(model_name)
    if own is not None:
        return own
    model = library_model(model_name)
    if model is None:
        return None
    prices = model.get_prices(datetime.now(timezone.utc))
    input_price, tier_end = _first_tier(prices.input_mtok)
    output_price, _ = _first_tier(prices.output_mtok)
    if input_price is None or output_price is None:
        return None
    return Price(
        input_price,
        output_price,
        _first_tier(prices.cache_read_mtok)[0],
        _first_tier(prices.cache_write_mtok)[0],
        tier_end,
    )


def cost_of(model_name: str, usage: Usage) -> float | None:
    """The cost of ``usage`` in dollars, or ``None`` when any needed price is unknown:
    your price if you registered one, else the library's calculation (tiers included)."""
    price = _own_price(model_name)
    if price is None:
        return _library_cost(model_name, usage)
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


def _own_price(model_name: str) -> Price | None:
    return next((PRICES[key] for key in lookup_keys(model_name) if key in PRICES), None)


def library_ids(model_name: str) -> tuple[str | None, str]:
    """``(provider id, model id)`` as genai-prices names them, for ``"prefix:model"`` (the
    provider's declared ``prices_id``; ``None`` for a model of no declared provider)."""
    from ._provider_info import declared

    prefix, sep, model_id = model_name.partition(":")
    info = declared(prefix) if sep else None
    return (info.prices_id if info is not None else None), model_id


def library_model(model_name: str) -> Any:
    """The library's record of ``model_name`` (price, context window), or ``None``."""
    found = _library_entry(model_name)
    return found[1] if found is not None else None


# (provider id, model id) -> the library's (provider, model), None for a model it does not
# know; with the snapshot it was found in (a price update replaces the snapshot).
_FOUND: dict[tuple[str, str], tuple[Any, tuple[Any, Any] | None]] = {}


def _library_entry(model_name: str) -> tuple[Any, Any] | None:
    """The library's ``(provider, model)`` for ``model_name``, or ``None``: looked up once
    per model and price snapshot. The library's own lookup scans every model of the
    provider for one it does not know (and keeps no answer for it), which cost every
    reply's cost and every round's context window about half a millisecond."""
    provider_id, model_id = library_ids(model_name)
    if provider_id is None:
        return None
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    key = (provider_id, model_id)
    kept = _FOUND.get(key)
    if kept is None or kept[0] is not snapshot:
        try:
            found: tuple[Any, Any] | None = snapshot.find_provider_model(model_id, None, provider_id, None)
        except LookupError:
            found = None
        kept = _FOUND[key] = (snapshot, found)
    return kept[1]


def _library_cost(model_name: str, usage: Usage) -> float | None:
    """The library's price of ``usage`` (``genai_prices.calc_price`` with the model found
    once: the tiers, cache prices and the price in force now are worked out per reply)."""
    found = _library_entry(model_name)
    if found is None:
        return None
    import genai_prices
    from genai_prices import data_snapshot

    provider, model = found
    snapshot = data_snapshot.get_snapshot()
    counted = genai_prices.Usage(
        input_tokens=usage.input + usage.cache_read + usage.cache_write,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        output_tokens=usage.output,
    )
    try:  # what DataSnapshot.calc does after its lookup
        price = model.calc_price(
            counted,
            provider,
            genai_request_timestamp=datetime.now(timezone.utc),
            auto_update_timestamp=snapshot.timestamp if snapshot.from_auto_update else None,
        )
    except LookupError:
        return None
    return float(price.total_price)


def _first_tier(price: Any) -> tuple[float | None, int | None]:
    """A library price per million tokens as ``(first tier's price, where it ends)``."""
    if price is None:
        return None, None
    tiers = getattr(price, "tiers", None)
    if tiers is None:
        return float(price), None
    return float(price.base), min(tier.start for tier in tiers) if tiers else None
