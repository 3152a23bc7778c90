"""How many tokens each model's request may carry: its context window.

From the same maintained data as prices (genai-prices, :func:`.pricing.library_model`),
unless you registered a window of your own (:func:`register_context_window`, looked up
like your prices: :func:`.pricing.lookup_keys`). A model neither knows has no window, and
nothing is checked; the run setting ``context_window`` names one for a run.
"""

from __future__ import annotations

from .pricing import library_model, lookup_keys

__all__ = ["CONTEXT_WINDOWS", "context_window_for", "register_context_window"]

CONTEXT_WINDOWS: dict[str, int] = {}
"""Your own windows (:func:`register_context_window`), looked up before the library's."""


def context_window_for(model_name: str) -> int | None:
    """The context window of ``model_name`` in tokens, or ``None`` when it is not known."""
    own = next((CONTEXT_WINDOWS[key] for key in lookup_keys(model_name) if key in CONTEXT_WINDOWS), None)
    if own is not None:
        return own
    model = library_model(model_name)
    window = getattr(model, "context_window", None) if model is not None else None
    return window if isinstance(window, int) else None


def register_context_window(model: str, tokens: int) -> None:
    """Add or replace the context window of ``model`` (a bare id or ``"provider:model"``)."""
    CONTEXT_WINDOWS[model] = tokens
