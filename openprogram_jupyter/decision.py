"""Decisions: ``exec(choices=...)`` and :func:`make` (DESIGN 2.8).

Placeholder until the decisions work lands: the names exist so the public API imports.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DecisionError", "arun_with_choices", "make"]


class DecisionError(ValueError):
    """The model's final message did not hold a valid pick among the options."""


async def arun_with_choices(runtime: Any, content: Any, choices: Any, options: dict[str, Any]) -> Any:
    raise NotImplementedError("choices= is not implemented yet")


def make(prompt: str, options: Any, runtime: Any = None) -> Any:
    raise NotImplementedError("decision.make is not implemented yet")
