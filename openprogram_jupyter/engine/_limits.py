"""A run's limits — rounds, cost, tokens — and the last round that answers at one.

:func:`limit_reached` is asked before each round. When a limit is reached while the model
still wants to call tools, the loop (with ``finish_at_limit``, the default) makes one last
round with ``tool_choice="none"`` and :func:`final_round_system` added to the system
prompt, so the run ends with an answer made of what the model has instead of a dangling
tool result. For the round cap that round is the cap's own last round
(:func:`answer_round_under_cap`): ``max_iterations=3`` sends 3 requests, the third
tool-free. A cost or token limit cannot be known ahead, so its answer round comes after;
until then :func:`output_cap` lowers each round's output cap so that the round cannot take
the spend past the budget. docs/semantics.md, "Limits", states the rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..core._money import dollars
from ..core.messages import Usage
from ..models.pricing import price_for
from .settings import RunSettings

__all__ = [
    "LimitName",
    "LimitReached",
    "answer_round_under_cap",
    "final_round_system",
    "limit_reached",
    "output_cap",
    "tokens_of",
    "unpriced_notice",
]

LimitName = Literal["max_iterations", "max_cost", "max_tokens"]

FINAL_ROUND_INSTRUCTION = (
    "Do not call any tool now: answer with what you have so far, and say briefly what is left undone."
)


@dataclass(frozen=True)
class LimitReached:
    """Which limit was reached (``name``, the run option) and ``what`` it is, with the
    numbers: ``its cost limit (max_cost=$0.05; spent $0.0612)``."""

    name: LimitName
    what: str

    @property
    def notice(self) -> str:
        """What the last round's notice says."""
        return f"the run reached {self.what}: this last round has no tools, so the model answers with what it has"

    def not_run_text(self) -> str:
        """The result of a call the model still made in the last, tool-free round."""
        return f"not run: the run reached {self.what}, and this last round was for the answer, without tools"


def tokens_of(usage: Usage) -> int:
    """The tokens ``usage`` counts: its total where the provider gave one, else every kind summed."""
    return usage.total_tokens or usage.input + usage.output + usage.cache_read + usage.cache_write


def answer_round_under_cap(settings: RunSettings, rounds: int) -> LimitReached | None:
    """The round cap, when the next round (after ``rounds``) is its last and must be the
    tool-free answer round; else ``None``. Only with ``finish_at_limit`` and a cap of at
    least 2 rounds: a run capped at one round keeps its tools in that round."""
    cap = settings["max_iterations"]
    if not settings["finish_at_limit"] or cap is None or cap < 2 or rounds + 1 != cap:
        return None
    return LimitReached("max_iterations", f"the last round of its round cap (max_iterations={cap})")


def output_cap(settings: RunSettings, spent: Usage, model: str, next_input: int) -> int | None:
    """The most output tokens the next round may spend and keep the run within its
    ``max_tokens`` and ``max_cost``, or ``None`` when neither applies (no such limit, or —
    for ``max_cost`` — an unknown price). ``next_input`` estimates the tokens the round's
    request will take as input (the last round's; the conversation only grows), which
    count against both. At least 1: a round is only asked while the limits are not yet
    reached (:func:`limit_reached`)."""
    caps = []
    max_tokens, max_cost = settings["max_tokens"], settings["max_cost"]
    if max_tokens is not None:
        caps.append(max_tokens - tokens_of(spent) - next_input)
    price = price_for(model) if max_cost is not None and spent.cost is not None else None
    if max_cost is not None and price is not None and price.output > 0:
        left = max_cost - (spent.cost or 0.0) - next_input * price.input / 1e6
        caps.append(math.floor(left * 1e6 / price.output))
    return max(1, min(caps)) if caps else None


def limit_reached(settings: RunSettings, rounds: int, spent: Usage) -> LimitReached | None:
    """The first limit of ``settings`` that ``rounds`` rounds and ``spent`` (this run's
    replies, nested runs' included) have reached, or ``None``.

    The round cap is reached at ``max(1, max_iterations)`` rounds; ``max_tokens`` when the
    tokens spent are at least it; ``max_cost`` when the cost is known and at least it (an
    unknown cost — a model without a price — never reaches it: see :func:`unpriced_notice`).
    """
    cap = settings["max_iterations"]
    if cap is not None and rounds >= max(1, cap):
        return LimitReached("max_iterations", f"its round cap (max_iterations={cap})")
    tokens, max_tokens, max_cost = tokens_of(spent), settings["max_tokens"], settings["max_cost"]
    if max_tokens is not None and tokens >= max_tokens:
        return LimitReached("max_tokens", f"its token limit (max_tokens={max_tokens:,}; spent {tokens:,})")
    if max_cost is not None and spent.cost is not None and spent.cost >= max_cost:
        return LimitReached("max_cost", f"its cost limit (max_cost=${max_cost:g}; spent {dollars(spent.cost)})")
    return None


def unpriced_notice(settings: RunSettings, spent: Usage, model: str) -> str | None:
    """A sentence for a run whose ``max_cost`` cannot be checked because the cost of what
    it spent is unknown; ``None`` when there is no such problem."""
    max_cost = settings["max_cost"]
    if max_cost is None or spent.cost is not None:
        return None
    return (
        f"max_cost=${max_cost:g} cannot be checked: the price of {model} is unknown "
        "(add it with openprogram_jupyter.models.pricing.register_price); max_tokens and "
        "max_iterations still apply"
    )


def final_round_system(system: str | None, limit: LimitReached) -> str:
    """The system prompt of the last round: ``system``, then why the round is the last and
    what the model is asked to do."""
    instruction = f"This run has reached {limit.what}. {FINAL_ROUND_INSTRUCTION}"
    return f"{system}\n\n{instruction}" if system else instruction
