"""Does a round cost more late in a long run than early on?

One run of ``--rounds`` rounds (one tool call each, then a final text), timed round by
round from the ``turn_start`` events. The model is a minimal one that does constant work
per round: ``ScriptedModel`` itself records every request it is sent (a copy of the
history each round, by design: ``model.requests``), which would be measured too. Reports the median
time per round over the first and the last ``--window`` rounds and their ratio (the goal:
at most 1.5×). Growth here is work that rescans the run so far every round (it was
``Run.usage`` summing every event: 2.3 ms a round at 500 rounds, 11.8 ms at 2,000).

    python bench/long_run.py [--rounds 2000] [--window 200]

Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import AsyncIterator

import openprogram_jupyter as op
from openprogram_jupyter.core.events import AssistantUpdate, TurnStartEvent
from openprogram_jupyter.models.base import MessageBuilder, Model, ModelRequest


class CountingModel(Model):
    """Calls ``add`` in each of its first ``rounds - 1`` rounds, then answers."""

    name = "counting"

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.played = 0

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        self.played += 1
        if self.played >= self.rounds:
            yield out.text_delta("done")
            return
        start = out.start_tool_call("add", f"call_{self.played}", None)
        yield start
        yield out.end_tool_call(start.content_index, {"a": self.played, "b": 1})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--window", type=int, default=200)
    args = parser.parse_args()

    @op.function
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    starts: list[float] = []

    def on_event(event: object) -> None:
        if type(event) is TurnStartEvent:
            starts.append(time.perf_counter())

    run = op.Runtime(model=CountingModel(args.rounds)).run(
        "Add.",
        tools=[add],
        max_iterations=None,
        max_tool_calls=None,  # the model ends the run itself
        on_event=on_event,
    )
    assert run.stop_reason == "stop" and run.rounds == args.rounds, (run.stop_reason, run.rounds)
    refused = [r for r in run.tool_results if r.is_error]
    assert not refused, refused[0].content  # every round ran its call: none was refused at a limit
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    first = statistics.median(gaps[: args.window])
    last = statistics.median(gaps[-args.window :])
    print(
        f"{args.rounds} rounds: first {args.window} {first * 1e3:.2f} ms/round, "
        f"last {args.window} {last * 1e3:.2f} ms/round, ratio {last / first:.2f}×"
    )


if __name__ == "__main__":
    main()
