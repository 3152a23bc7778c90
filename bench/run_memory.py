"""What a finished ``Runtime.run`` retains, per round, for runs of several lengths.

Each run is N rounds of one tool call each, then a final text, through the OpenAI SDK
against the loopback server of ``tests/fakeserver`` (in this process). tracemalloc counts
what was allocated during the run and is still held once it has ended, with the run kept
(``kept = runtime.run(...)``, also ``runtime.last_run``). The loopback server records every
request body and the frames it sent; those records are the test server's, not the run's,
so they are cleared before the reading (a 300-round run's 301 request bodies add up to
about 10 MB, which once counted made the run look as if it grew with the square of its
length).

    python bench/run_memory.py [--rounds 40,100,300]

Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeserver import FakeServer
from provider_overhead import KEY, PROMPT, add  # the same tool as the timing bench
from server_process import responder  # and the same scripted server

import openprogram_jupyter as op


def retained_by_one_run(rounds: int) -> tuple[int, int]:
    """Bytes a finished ``rounds``-round run retains, and the bytes of the server's records
    of it that were cleared before the reading."""
    with FakeServer() as server:
        server.responder = responder(rounds)
        runtime = op.Runtime(model="openai:gpt-bench", api_key=KEY, base_url=server.openai_base_url)
        tool = op.function(add, register_globally=False)
        runtime.run(PROMPT, tools=[tool], max_iterations=None, max_tool_calls=None)  # warm: imports, client, caches
        runtime.last_run = None
        server.requests.clear()
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        kept = runtime.run(PROMPT, tools=[tool], max_iterations=None, max_tool_calls=None)
        with_records = tracemalloc.get_traced_memory()[0] - before
        server.requests.clear()
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert kept.stop_reason == "stop" and len(kept.tool_results) == rounds, kept.error
        return retained, with_records - retained


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", default="40,100,300", help="comma-separated run lengths")
    args = parser.parse_args()
    print("| rounds | retained by the run | per round | the server's records (cleared, not counted) |")
    print("|---:|---:|---:|---:|")
    for rounds in (int(n) for n in args.rounds.split(",")):
        retained, records = retained_by_one_run(rounds)
        print(f"| {rounds} | {retained / 1e6:.2f} MB | {retained / rounds / 1e3:.1f} KB | {records / 1e6:.1f} MB |")


if __name__ == "__main__":
    main()
