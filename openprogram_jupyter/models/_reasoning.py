"""The run setting ``reasoning`` in each provider's terms.

Providers ask for reasoning in one of two ways: an effort (OpenAI: ``reasoning_effort``,
``reasoning.effort``) or a budget of thinking tokens (Anthropic and Bedrock's Claude:
``thinking.budget_tokens``; Gemini: ``thinkingConfig.thinkingBudget``). The setting takes
either, and each is turned into the other by one table:

========  ==============
effort    token budget
========  ==============
low       1,024
medium    4,096
high      16,384
========  ==============

A budget becomes the effort of the smallest row it does not exceed (above 4,096: high).
"""

from __future__ import annotations

__all__ = ["BUDGETS", "reasoning_budget", "reasoning_effort"]

BUDGETS = {"low": 1024, "medium": 4096, "high": 16384}


def reasoning_budget(reasoning: str | int | None) -> int | None:
    """The thinking budget in tokens for ``reasoning`` (``None`` stays ``None``)."""
    if reasoning is None or isinstance(reasoning, int):
        return reasoning
    return BUDGETS[reasoning]


def reasoning_effort(reasoning: str | int | None) -> str | None:
    """The effort (``"low"``, ``"medium"``, ``"high"``) for ``reasoning``."""
    if reasoning is None or isinstance(reasoning, str):
        return reasoning
    return next((effort for effort, budget in BUDGETS.items() if reasoning <= budget), "high")
