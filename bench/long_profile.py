"""Where a long run's rounds grow: cProfile of a window of rounds near round 10 and of the
last rounds of a ``--rounds`` run, and each function's own time per round, late minus early.

The run is ``Runtime.run`` on the bench's script (a tool call a round, the server in a
child process, as ``provider_overhead.py --long``). The profiler is switched on and off in
the run's own thread, when the model prepares the window's first and last requests, so it
sees the loop, the provider model, the SDK and the transport, not the caller waiting.
Profiling slows every call about twofold: read the figures against each other, not as
times. Waiting for the server (``epoll.poll``: it parses the body, which grows) is
listed with the rest; what grows on the client is everything else.

    python bench/long_profile.py [--provider anthropic] [--rounds 2000] [--window 40] [--wire]

Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
from typing import Any

from provider_overhead import KEY, LONG_MODELS, PROMPT
from raw_floors import add
from server_process import ServerProcess

import openprogram_jupyter as op
from openprogram_jupyter.models import resolve_model

OwnTimes = dict[str, float]  # function -> own time per round (ms)


def profile_windows(provider: str, rounds: int, window: int, wire: bool) -> tuple[OwnTimes, OwnTimes]:
    """Own time per round of each function over rounds 10..10+``window`` and over the last
    ``window`` rounds of one run (a first, unprofiled run warms the process up)."""
    os.environ.update(AWS_ACCESS_KEY_ID="AKIABENCHBENCHBENC", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1")
    starts, ends = (10, rounds - window), (10 + window, rounds)
    profiles: list[cProfile.Profile] = []
    with ServerProcess(rounds) as server:
        url = server.openai_base_url if provider.startswith("openai") else server.url
        model: Any = resolve_model(LONG_MODELS[provider], api_key=KEY, base_url=url)
        runtime = op.Runtime(model=model, capture_wire=wire)
        tool = op.function(add, register_globally=False)
        runtime.run(PROMPT, tools=[tool], max_iterations=None, max_tool_calls=None)
        prepare, prepared = model._prepare, [0]

        def counted(request: Any) -> Any:
            prepared[0] += 1
            if prepared[0] in starts:
                profiles.append(cProfile.Profile())
                profiles[-1].enable()
            elif prepared[0] in ends:
                profiles[-1].disable()
            return prepare(request)

        model._prepare = counted
        result = runtime.run(PROMPT, tools=[tool], max_iterations=None, max_tool_calls=None)
    assert result.stop_reason == "stop" and not any(r.is_error for r in result.tool_results), result.error
    early, late = (_own_times(profile, window) for profile in profiles)
    return early, late


def _own_times(profile: cProfile.Profile, window: int) -> OwnTimes:
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return {f"{_short(path)}:{line}({name})": entry[2] / window * 1000 for (path, line, name), entry in stats.items()}


def _short(path: str) -> str:
    """``path`` from its package (or the standard library's folder) on."""
    for marker in ("site-packages/", "openprogram_jupyter/"):
        if marker in path:
            return path.split(marker)[-1]
    head, _, rest = path.partition("/lib/python3.")
    return rest.partition("/")[2] if rest else head


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", default="anthropic", choices=sorted(LONG_MODELS))
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--window", type=int, default=40)
    parser.add_argument("--wire", action="store_true", help="capture_wire=True")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    if args.rounds < 10 + 2 * args.window:
        parser.error(f"--rounds must be at least 10 + 2 x --window ({10 + 2 * args.window})")
    early, late = profile_windows(args.provider, args.rounds, args.window, args.wire)
    print(
        f"\n{args.provider}{', capture_wire=True' if args.wire else ''}: own time per round (ms, under cProfile), "
        f"rounds 10-{10 + args.window} and the last {args.window} of {args.rounds}; "
        f"totals {sum(early.values()):.2f} and {sum(late.values()):.2f}\n"
    )
    print("| growth | early | late | function |")
    print("|---:|---:|---:|---|")
    grown = sorted(((late.get(k, 0.0) - early.get(k, 0.0), k) for k in early.keys() | late.keys()), reverse=True)
    for growth, key in grown[: args.top]:
        print(f"| {growth:+.3f} | {early.get(key, 0.0):.3f} | {late.get(key, 0.0):.3f} | `{key}` |")


if __name__ == "__main__":
    main()
