"""Issue 47 item 3: a 300-round run on a 20,000-token window with a 4,000-character result
each round, compact=0.8, a pinned message: no request over the window, the pin in every
request, the summaries and their cost. Offline (a model that calls the tool every round and
answers summary requests), so the figures measure the package, not a provider.

    python bench/compaction_long_run.py
"""

from __future__ import annotations

import dataclasses
import time

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.engine._compaction import SUMMARY_SYSTEM
from openprogram_jupyter.engine._context import request_tokens

ROUNDS, WINDOW, RESULT = 300, 20_000, "r" * 4000


class LongModel(op.Model):
    name = "long"
    context_window = WINDOW

    def __init__(self) -> None:
        self.requests: list[op.ModelRequest] = []
        self.replies = 0

    async def stream(self, request, out):
        self.requests.append(dataclasses.replace(request, messages=list(request.messages)))
        if request.system == SUMMARY_SYSTEM:
            yield out.text_delta(f"summary of {len(request.messages[0].text):,} characters")
        elif self.replies < ROUNDS:
            self.replies += 1
            for update in out.tool_call("fetch", {"n": self.replies}, id=f"call_{self.replies}"):
                yield update
        else:
            yield out.text_delta("done")
        out.finish()


@op.function(register_globally=False)
def fetch(n: int) -> str:
    """Fetch page n."""
    return f"page {n}: {RESULT}"


def main() -> None:
    model = LongModel()
    pinned = op.pin(UserMessage(content="PINNED: answer in French"))
    started = time.perf_counter()
    run = op.Runtime(model=model).run(
        "Read every page.", tools=[fetch], messages=[pinned], compact=0.8, keep_last=4, max_iterations=None
    )
    seconds = time.perf_counter() - started
    agent = [r for r in model.requests if r.system != SUMMARY_SYSTEM]
    sizes = [request_tokens(r) for r in agent]
    with_pin = sum("PINNED: answer in French" in [m.text for m in r.messages] for r in agent)
    print(
        f"stop_reason {run.stop_reason}, rounds {run.rounds}, requests {len(agent)}, compactions {len(run.compactions)}"
    )
    print(
        f"largest request ~{max(sizes):,} tokens of a {WINDOW:,} window; "
        f"requests over it: {sum(s > WINDOW for s in sizes)}"
    )
    print(f"pin present in {with_pin} of {len(agent)} requests")
    print(
        f"compaction time {sum(c.seconds for c in run.compactions):.3f} s of {seconds:.2f} s; summary tokens "
        f"{sum(c.summary.usage.output for c in run.compactions)} (this offline model reports none)"
    )


if __name__ == "__main__":
    main()
