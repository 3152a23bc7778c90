"""How many tokens each model's request may carry: its context window.

Looked up like prices (:func:`.pricing.lookup_keys`: ``"provider:model"``, the bare id,
without a dated suffix or a Bedrock region prefix). The figures are the providers'
documented windows as of 2025, when the table was written; a model that is not here has
no window known — give one with the run setting ``context_window``, or add it with
:func:`register_context_window`.
"""

from __future__ import annotations

from .pricing import lookup_keys

__all__ = ["CONTEXT_WINDOWS", "context_window_for", "register_context_window"]

CONTEXT_WINDOWS: dict[str, int] = {
    # OpenAI (https://platform.openai.com/docs/models)
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "o4-mini": 200_000,
    # Anthropic (https://docs.anthropic.com/en/docs/about-claude/models)
    "claude-opus-4-1": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-3-5-haiku": 200_000,
    # Gemini (https://ai.google.dev/gemini-api/docs/models)
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    "gemini-2.5-flash-lite": 1_048_576,
    # Bedrock: Anthropic's models have Anthropic's windows.
    "anthropic.claude-sonnet-4-5-20250929-v1:0": 200_000,
    "anthropic.claude-haiku-4-5-20251001-v1:0": 200_000,
}


def context_window_for(model_name: str) -> int | None:
    """The context window of ``model_name`` in tokens, or ``None`` when it is not known."""
    return next((CONTEXT_WINDOWS[key] for key in lookup_keys(model_name) if key in CONTEXT_WINDOWS), None)


def register_context_window(model: str, tokens: int) -> None:
    """Add or replace the context window of ``model`` (a bare id or ``"provider:model"``)."""
    CONTEXT_WINDOWS[model] = tokens
