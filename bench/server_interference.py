"""How much the loopback server's own work slows the client it serves, on this machine.

In a long run the fake server parses and checks a body that grows every round (at round
2,000: 5 ms for Chat Completions, 14 ms for Anthropic, 34 ms for Responses). The client's
turnaround (``provider_overhead.py --long``) leaves that time out, but the server and the
client share two cores and their caches: a client round that follows more server work may
itself take longer. This bench measures that alone, with the history kept short: the same
``--rounds``-round runs against a server that only serves, and against one that also
parses ``--extra-mb`` of JSON before each answer (:func:`server_process.parsing_extra`;
1.8 MB is about 10 ms here). Each repetition starts both servers anew and alternates them;
each run's figure is its median client turnaround over rounds 10 to ``rounds - 10``.

    python bench/server_interference.py [--rounds 300] [--repeats 3] [--extra-mb 1.8]

Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from typing import Any

from provider_overhead import ANTHROPIC, KEY, PROMPT, _turnarounds
from raw_floors import add, make_raw_anthropic
from server_process import ServerProcess

import openprogram_jupyter as op


def variants(server: ServerProcess, rounds: int) -> dict[str, Callable[[], Any]]:
    """Ours (``Runtime.run`` on Anthropic) and the Anthropic long-run floor, on ``server``."""
    runtime = op.Runtime(model=ANTHROPIC, api_key=KEY, base_url=server.url)
    tool = op.function(add, register_globally=False)
    return {
        "ours: `Runtime.run`, anthropic": lambda: runtime.run(
            PROMPT, tools=[tool], max_iterations=None, max_tool_calls=None
        ),
        "long-run floor: raw `httpx`, anthropic": make_raw_anthropic(server.url, rounds, incremental=True),
    }


def one_repetition(rounds: int, extra_bytes: int) -> dict[str, float]:
    """Each variant's median turnaround (ms) over one run, against a new server."""
    medians = {}
    with ServerProcess(rounds, extra_bytes=extra_bytes) as server:
        runs = variants(server, rounds)
        for run in runs.values():  # warm-up: imports, clients, the server's first requests
            run()
        server.take_timings()
        for name, run in runs.items():
            run()
            gaps = _turnarounds(server.take_timings())
            medians[name] = statistics.median(gaps[10 : rounds - 10]) * 1000
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--extra-mb", type=float, default=1.8)
    args = parser.parse_args()
    loads = {"server only serves": 0, f"server parses {args.extra_mb:g} MB more per request": int(args.extra_mb * 1e6)}
    samples: dict[str, dict[str, list[float]]] = {load: {} for load in loads}
    for _ in range(args.repeats):
        for load, extra in loads.items():
            for name, value in one_repetition(args.rounds, extra).items():
                samples[load].setdefault(name, []).append(value)
    names = list(next(iter(samples.values())))
    print(
        f"\nclient turnaround per round (ms), rounds 10-{args.rounds - 10} of {args.rounds}, "
        f"median of {args.repeats} repetitions\n"
    )
    print("| variant | " + " | ".join(loads) + " | increase |")
    print("|---|" + "---:|" * (len(loads) + 1))
    for name in names:
        idle, busy = (statistics.median(samples[load][name]) for load in loads)
        print(f"| {name} | {idle:.2f} | {busy:.2f} | {busy - idle:+.2f} ({busy / idle - 1:+.0%}) |")


if __name__ == "__main__":
    main()
