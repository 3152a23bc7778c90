"""What an evaluation will cost before it runs (``dry_run=True``), and its cap (``max_cost=``).

Before running, the plan counts the runs (prompts × models × variants × repeats) and the
requests they can make: at least one per run and one per judge grading, at most
``max_iterations`` per run and two per grading (a judge's one re-ask). Where a model's
price is known, the cost of every run's first request is estimated from what it sends —
the prompt, the system prompt and the tools' schemas, at 4 characters a token, priced as
input — which is a floor: later rounds, and what the model writes, cost more.

``max_cost`` caps the whole evaluation: once the runs finished so far cost that much, no
run starts; the rows not started say so. A run already going on ends on its own terms.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ...core._money import dollars
from ...core.messages import Usage
from ...models.pricing import cost_of
from ._jobs import EvalJob, EvalOutcome

__all__ = ["Budget", "EvaluationPlan", "plan_of"]

_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class EvaluationPlan:
    """What ``op.evaluate(..., dry_run=True)`` returns: the ``runs`` it would make, the
    ``requests`` they could take (``(at least, at most)``), and ``cost_floor``: per model,
    the estimated cost of the runs' first requests in dollars (``None`` when its price is
    not known). ``str()`` says it in a sentence, as the progress bar's first line does."""

    runs: int
    prompts: int
    models: list[str]
    variants: list[str]
    repeats: int
    requests: tuple[int, int]
    cost_floor: dict[str, float | None] = field(default_factory=dict)

    @property
    def known_cost_floor(self) -> float | None:
        """The sum of :attr:`cost_floor` (``None`` if any model's price is unknown)."""
        costs = list(self.cost_floor.values())
        return None if not costs or any(c is None for c in costs) else sum(c for c in costs if c is not None)

    def __str__(self) -> str:
        shape = f"{self.prompts} prompt(s) × {len(self.models)} model(s)"
        shape += f" × {len(self.variants)} variant(s)" if self.variants else ""
        shape += f" × {self.repeats} repeat(s)" if self.repeats > 1 else ""
        low, high = self.requests
        text = f"{self.runs} run(s) ({shape}), {low:,} to {high:,} requests"
        total = self.known_cost_floor
        if total is not None:
            return f"{text}; at least {dollars(total)} (every run's first request, input only)"
        unknown = [name for name, cost in self.cost_floor.items() if cost is None]
        return f"{text}; cost not estimated: no price known for {', '.join(unknown)}"

    def __repr__(self) -> str:
        return f"<EvaluationPlan: {self}>"


def plan_of(jobs: list[EvalJob], judges: int, max_iterations: int, shape: dict[str, object]) -> EvaluationPlan:
    """The plan of ``jobs`` graded by ``judges`` judges, each run at most ``max_iterations``
    rounds; ``shape`` holds ``prompts``, ``models``, ``variants`` and ``repeats``."""
    floors: dict[str, float | None] = {}
    for job in jobs:
        if floors.get(job.model_label, 0.0) is None:
            continue
        name = _model_name(job.model)
        cost = cost_of(name, Usage(input=_first_request_tokens(job))) if name else None
        floors[job.model_label] = None if cost is None else (floors.get(job.model_label) or 0.0) + cost
    runs = len(jobs)
    return EvaluationPlan(
        runs,
        int(str(shape["prompts"])),
        list(shape["models"]),  # type: ignore[call-overload]
        list(shape["variants"]),  # type: ignore[call-overload]
        int(str(shape["repeats"])),
        (runs + runs * judges, runs * max_iterations + runs * judges * 2),
        floors,
    )


def _model_name(model: object) -> str | None:
    if isinstance(model, str):
        return model
    name = getattr(model, "name", None)
    return name if isinstance(name, str) else None


def _first_request_tokens(job: EvalJob) -> int:
    tools = job.options.get("tools") or []
    schemas = [getattr(tool, "spec", None) or getattr(tool, "__name__", "") for tool in tools]
    sent = job.prompt + str(job.options.get("system") or "") + json.dumps(schemas, default=str)
    return max(1, len(sent) // _CHARS_PER_TOKEN)


class Budget:
    """``max_cost`` dollars for the whole evaluation (``None``: no cap): :meth:`spend` adds
    a finished run's cost; :meth:`refusal` says why a run may not start, once it is spent."""

    def __init__(self, cap: float | None) -> None:
        self.cap = cap
        self.spent = 0.0
        self._lock = threading.Lock()

    def charging(self, record: Callable[[EvalOutcome], None]) -> Callable[[EvalOutcome], None]:
        """``record``, after spending each outcome's cost."""

        def charge(outcome: EvalOutcome) -> None:
            self.spend(outcome)
            record(outcome)

        return charge

    def spend(self, outcome: EvalOutcome) -> None:
        run = outcome.run
        cost = run.usage.cost if run is not None else None
        with self._lock:
            self.spent += cost or 0.0

    def refusal(self) -> str | None:
        """``None`` while a run may start; else the row's reason."""
        with self._lock:
            if self.cap is None or self.spent < self.cap:
                return None
            return (
                f"not started: the evaluation's runs had cost {dollars(self.spent)}, "
                f"reaching its max_cost of {dollars(self.cap)}"
            )
