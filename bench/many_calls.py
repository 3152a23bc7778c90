"""Per-call cost of one reply with many calls: 10,000 calls against 1,000, in one run.

One ``ScriptedModel`` reply holds N calls of one sync tool, then a final text; the run
goes through ``Runtime.run`` (events, validation, results, worker threads: everything).
If bookkeeping per call grew with the calls already made, the 10,000-call reply would
cost far more per call than the 1,000-call one.

    python bench/many_calls.py [--small 1000] [--large 10000] [--repeats 5]

Reports medians of interleaved repetitions (the machine is shared and noisy) as
microseconds per call and the ratio large / small. Goal: at most 1.5. Never part of the
test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import statistics
import time

import openprogram_jupyter as op


def one_reply(calls: int) -> float:
    """Seconds per call for one run whose single reply holds ``calls`` calls."""

    @op.function(register_globally=False)
    def echo(n: int) -> int:
        """Echo a number."""
        return n

    reply = [op.ToolCall(name="echo", arguments={"n": i}) for i in range(calls)]
    runtime = op.Runtime(model=op.ScriptedModel([reply, "done"]))
    started = time.perf_counter()
    run = runtime.run("go", tools=[echo], max_tool_calls=None)
    elapsed = time.perf_counter() - started
    assert run.stop_reason == "stop" and len(run.tool_results) == calls, run.error
    return elapsed / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    one_reply(100)  # warm up: imports, worker threads
    small, large = [], []
    for _ in range(options.repeats):
        small.append(one_reply(options.small))
        large.append(one_reply(options.large))
    small_us, large_us = statistics.median(small) * 1e6, statistics.median(large) * 1e6
    print(f"{options.repeats} interleaved repeats, medians:")
    print(f"  {options.small:>6} calls in one reply   {small_us:8.1f} µs per call")
    print(f"  {options.large:>6} calls in one reply   {large_us:8.1f} µs per call")
    print(f"ratio per call, {options.large} / {options.small}: {large_us / small_us:.2f} (goal <= 1.5)")


if __name__ == "__main__":
    main()
