"""How close ``op.evaluate`` comes to what the provider allows, against pydantic-evals.

A loopback OpenAI-compatible server (``tests/fakeserver`` in a child process, so it never
shares our interpreter lock) answers every request after ``--latency`` seconds (0.25 by
default). Each run is two requests: the model calls ``lookup``, then answers. With a judge,
each run is graded by one more request. The ideal wall time is
``requests × latency ÷ concurrency`` (the slots never idle, the client costs nothing).
Each row gives, as medians:

- how far from the ideal it came, and where fewer runs are left than slots, from the
  reachable bound (a run's requests go one after another, so 96 runs in 64 slots take two
  waves: 1.0 s where the ideal says 0.75 s);
- how many requests the server had in flight while the evaluation ran;
- how busy each process was: the CPU seconds of the bench's process (the client, all its
  threads; a Dask worker is a process of its own and not counted) and of the server's,
  divided by the wall (1.0: one core busy the whole time).

The variants:

- ``op.evaluate``            ``op.evaluate(prompts, models=[...], tools=[lookup], concurrency=C)``;
- ``+ op.judge``             the same with ``expect=op.judge(...)`` on the same server;
- ``pydantic-evals``         ``Dataset.evaluate(task, max_concurrency=C)``, the task a
  pydantic-ai ``Agent`` with the same tool (and ``LLMJudge`` for the judged row);
- ``op.evaluate on Dask``    ``executor=Client(LocalCluster(2 workers)).get_executor()``
  at ``--dask-runs`` runs (``--dask``).

The server keeps each connection open after a streamed reply, as the providers' APIs do
(HTTP keep-alive: a client's pool reuses it for a later request); ``--close-streams``
closes it after every stream instead, as the test suite's server does, so every request
also pays for a new connection.

Each variant runs once untimed first (imports, clients), then ``--repeats`` times in a
shuffled order; the table gives the median wall.

    python bench/evaluate_throughput.py [--prompts 96] [--concurrency 16,64] [--repeats 3] [--jitter 0.05] [--dask]

Needs the ``[bench]`` extra (pydantic-evals, pydantic-ai-slim[openai]) for the comparison
rows and ``[distributed]`` for ``--dask``; a missing one is skipped with a note.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeserver import Call, FakeServer, Turn

import openprogram_jupyter as op

KEY = "sk-bench-not-a-real-key"
MODEL = "gpt-bench"
RUBRIC = "The answer gives the value the lookup tool returned."
VERDICT = json.dumps({"call": "pass", "args": {"reason": "it gives the looked-up value"}})


def lookup(key: str) -> str:
    """The value stored under a key."""
    return f"value of {key}"


# -- the server, in a child process ------------------------------------------------------


def _judged(body: dict[str, Any]) -> bool:
    """A judge's request: ours sends the rubric in its prompt, pydantic-evals' in its system prompt."""
    return RUBRIC in json.dumps(body.get("messages", []))


def _responder(latency: float, jitter: float, spans: list[tuple[float, float]]) -> Callable[[Any, Any], Turn]:
    """Answers after ``latency`` seconds (give or take up to ``jitter``, uniformly),
    appending each request's (start, end) of that wait to ``spans``."""
    chance = random.Random(0)

    def reply(recorded: Any, wire: Any) -> Turn:
        started = time.monotonic()
        time.sleep(latency + chance.uniform(-jitter, jitter))
        spans.append((started, time.monotonic()))
        body = recorded.body
        if _judged(body):
            if body.get("tools"):  # pydantic-evals' LLMJudge answers through its output tool
                name = body["tools"][0]["function"]["name"]
                return Turn(calls=[Call(name, {"reason": "it gives the looked-up value", "pass": True, "score": 1.0})])
            return Turn(text=VERDICT)
        if wire.result_count(body) == 0:
            return Turn(calls=[Call("lookup", {"key": "k"})])
        return Turn(text="The value is value of k.")

    return reply


def _serve(pipe: Any, latency: float, jitter: float, keep_alive: bool) -> None:
    # http.server listens with a backlog of 5: more connections than that opened at once
    # wait for the server to accept earlier ones, which caps the requests in flight.
    ThreadingHTTPServer.request_queue_size = 1024
    spans: list[tuple[float, float]] = []
    with FakeServer() as server:
        server.responder = _responder(latency, jitter, spans)
        server.keep_alive = keep_alive
        pipe.send(server.openai_base_url)
        while pipe.recv() != "stop":
            taken, spans[:] = list(spans), []
            server.requests.clear()
            pipe.send(taken)


class Server:
    """The server in a child process; ``timings()`` takes each request's (start, end) of
    its wait, for the requests since the last call."""

    def __init__(self, latency: float, keep_alive: bool = True, jitter: float = 0.0) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, latency, jitter, keep_alive), daemon=True)
        self.base_url = ""

    def __enter__(self) -> Server:
        self._process.start()
        self.base_url = self._pipe.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        self._pipe.send("stop")
        self._process.join(10)

    def cpu_seconds(self) -> float | None:
        """The CPU seconds the server's process has spent so far (user and system, every
        thread), from ``/proc``; ``None`` where there is no ``/proc``."""
        try:
            stat = Path(f"/proc/{self._process.pid}/stat").read_text()
        except OSError:
            return None
        fields = stat.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def timings(self) -> list[tuple[float, float]]:
        self._pipe.send("timings")
        timings: list[tuple[float, float]] = self._pipe.recv()
        return timings


def in_flight_median(timings: list[tuple[float, float]]) -> float:
    """The median, over the time the requests span, of how many were in flight."""
    if not timings:
        return 0.0
    edges = sorted([(start, 1) for start, _ in timings] + [(end, -1) for _, end in timings])
    weighted: list[tuple[int, float]] = []
    level, last = 0, edges[0][0]
    for at, step in edges:
        if at > last:
            weighted.append((level, at - last))
        level, last = level + step, at
    weighted.sort()
    half, seen = sum(w for _, w in weighted) / 2, 0.0
    for value, width in weighted:
        seen += width
        if seen >= half:
            return float(value)
    return float(weighted[-1][0])


# -- the variants ------------------------------------------------------------------------


def point_at(base_url: str) -> None:
    """Every OpenAI client made from now on — ours, pydantic-ai's, a Dask worker's (started
    after this) — talks to ``base_url`` with the bench's key, as a user's environment would set it."""
    os.environ["OPENAI_BASE_URL"] = base_url
    os.environ["OPENAI_API_KEY"] = KEY


def make_ours(base_url: str, prompts: list[str], concurrency: int, judged: bool) -> Callable[[], int]:
    tool = op.function(lookup)
    judge = op.judge(RUBRIC, model=f"openai:{MODEL}") if judged else None

    def run() -> int:
        ev = op.evaluate(
            prompts, models=[f"openai:{MODEL}"], tools=[tool], expect=judge, concurrency=concurrency, progress=False
        )
        failed = [row for row in ev.rows if not row.passed]
        if failed:
            raise RuntimeError(f"{len(failed)} runs did not pass: {failed[0].why}")
        return len(ev.rows)

    return run


def make_pydantic_evals(base_url: str, prompts: list[str], concurrency: int, judged: bool) -> Callable[[], int] | None:
    try:
        from pydantic_ai import Agent
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider
        from pydantic_evals import Case, Dataset
        from pydantic_evals.evaluators import LLMJudge
    except ImportError as error:
        print(f"(pydantic-evals skipped: {error})")
        return None
    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(base_url=base_url, api_key=KEY))
    agent = Agent(model, tools=[lookup])
    evaluators = [LLMJudge(rubric=RUBRIC, model=model, include_input=True)] if judged else []
    dataset = Dataset(
        name="lookup", cases=[Case(name=f"case {i}", inputs=p) for i, p in enumerate(prompts)], evaluators=evaluators
    )

    async def task(prompt: str) -> str:
        return (await agent.run(prompt)).output

    def run() -> int:
        report = asyncio.run(dataset.evaluate(task, max_concurrency=concurrency, progress=False))
        if report.failures:
            raise RuntimeError(f"{len(report.failures)} cases failed: {report.failures[0].error_message}")
        return len(report.cases)

    return run


def make_dask(prompts: list[str], concurrency: int) -> tuple[Callable[[], int], Callable[[], None]] | None:
    try:
        from distributed import Client, LocalCluster
    except ImportError as error:
        print(f"(Dask skipped: {error})")
        return None
    cluster = LocalCluster(n_workers=2, threads_per_worker=concurrency // 2, processes=True, dashboard_address=None)
    client = Client(cluster)
    executor = client.get_executor()
    tool = op.function(lookup)

    def run() -> int:
        ev = op.evaluate(
            prompts,
            models=[f"openai:{MODEL}"],
            tools=[tool],
            concurrency=concurrency,
            executor=executor,
            progress=False,
        )
        failed = [row for row in ev.rows if not row.passed]
        if failed:
            raise RuntimeError(f"{len(failed)} runs did not pass: {failed[0].why}")
        return len(ev.rows)

    def close() -> None:
        client.close()
        cluster.close()

    return run, close


# -- measuring ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Measured:
    """One timed run: its wall, the median requests in flight, and the CPU seconds the
    bench's process (the client: every thread of it) and the server's process spent."""

    wall: float
    in_flight: float
    client_cpu: float
    server_cpu: float | None  # None where /proc cannot tell (not Linux)


def measure(server: Server, run: Callable[[], int]) -> Measured:
    """Time one ``run`` against ``server``."""
    server.timings()
    server_before = server.cpu_seconds()
    started, started_cpu = time.perf_counter(), time.process_time()
    run()
    wall, client_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    server_after = server.cpu_seconds()
    served = None if server_before is None or server_after is None else server_after - server_before
    return Measured(wall, in_flight_median(server.timings()), client_cpu, served)


def reachable(runs: int, per_run: int, latency: float, concurrency: int) -> float:
    """The least wall any client can take: the ideal, or where the runs cannot keep every
    slot busy, the waves of runs (``concurrency`` at once, each run's requests one after
    another) times a run's requests times the latency. 96 runs in 64 slots are two waves
    of 0.5 s: 1.0 s, where the ideal says 0.75 s."""
    waves = math.ceil(runs / concurrency)
    return max(runs * per_run * latency / concurrency, waves * per_run * latency)


def table_row(name: str, concurrency: int, ideal: float, bound: float, measured: list[Measured]) -> list[str]:
    """The row of ``measured`` (its repetitions): medians of the wall, in flight, and each
    process's CPU as a share of the wall (1.0: one core busy all along); the ratio to the
    ideal and, where the two differ, to the reachable ``bound``."""
    wall = statistics.median(m.wall for m in measured)
    flight = statistics.median(m.in_flight for m in measured)
    client = statistics.median(m.client_cpu / m.wall for m in measured)
    servers = [m.server_cpu / m.wall for m in measured if m.server_cpu is not None]
    server = f"{statistics.median(servers):.2f}" if servers else "—"
    return [
        name,
        str(concurrency),
        f"{wall:.2f} s",
        f"{ideal:.2f} s",
        f"{wall / ideal:.2f}×",
        "=" if bound == ideal else f"{wall / bound:.2f}× of {bound:.2f} s",
        f"{flight:g}",
        f"{client:.2f}",
        server,
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--prompts", type=int, default=96)
    parser.add_argument("--concurrency", default="16,64")
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument(
        "--jitter",
        type=float,
        default=0.0,
        help="each answer's latency varies by up to this many seconds either way (uniformly; the mean "
        "and so the ideal stay the same): replies to a wave no longer all arrive in the same instant",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated variant names to run (default: all)")
    parser.add_argument("--dask", action="store_true", help="also op.evaluate on a Dask LocalCluster of 2 workers")
    parser.add_argument("--dask-runs", type=int, default=1000)
    parser.add_argument("--dask-concurrency", type=int, default=16, help="for --dask: runs in flight (both workers)")
    parser.add_argument(
        "--close-streams",
        action="store_true",
        help="close the connection after every streamed reply (as the test suite's server does), not keep it alive",
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    prompts = [f"Look up key number {i}." for i in range(args.prompts)]
    rows: list[list[str]] = []
    with Server(args.latency, keep_alive=not args.close_streams, jitter=args.jitter) as server:
        point_at(server.base_url)
        for concurrency in [int(c) for c in args.concurrency.split(",")]:
            variants: dict[str, tuple[Callable[[], int], int]] = {}
            for judged in (False, True):
                suffix = " + judge" if judged else ""
                per_run = 3 if judged else 2
                variants["op.evaluate" + suffix] = (
                    make_ours(server.base_url, prompts, concurrency, judged),
                    per_run,
                )
                theirs = make_pydantic_evals(server.base_url, prompts, concurrency, judged)
                if theirs is not None:
                    variants["pydantic-evals" + suffix] = (theirs, per_run)
            if args.only:
                variants = {k: v for k, v in variants.items() if k in args.only.split(",")}
            for run, _ in variants.values():
                run()  # warm-up, untimed
            walls: dict[str, list[Measured]] = {name: [] for name in variants}
            for _ in range(args.repeats):
                for name in random.sample(list(variants), len(variants)):
                    walls[name].append(measure(server, variants[name][0]))
            for name, (_, per_run) in variants.items():
                ideal = len(prompts) * per_run * args.latency / concurrency
                bound = reachable(len(prompts), per_run, args.latency, concurrency)
                rows.append(table_row(name, concurrency, ideal, bound, walls[name]))
                print(" | ".join(rows[-1]), flush=True)
        if args.dask:
            concurrency = args.dask_concurrency
            dask_prompts = [f"Look up key number {i}." for i in range(args.dask_runs)]
            made = make_dask(dask_prompts, concurrency)
            if made is not None:
                run, close = made
                try:
                    run()  # warm-up: the workers import the package
                    measured = measure(server, run)
                    ideal = len(dask_prompts) * 2 * args.latency / concurrency
                    name = f"op.evaluate on Dask (2 workers), {args.dask_runs} runs"
                    bound = reachable(len(dask_prompts), 2, args.latency, concurrency)
                    rows.append(table_row(name, concurrency, ideal, bound, [measured]))
                    print(" | ".join(rows[-1]), flush=True)
                finally:
                    close()
    print()
    connections = "closed after every stream" if args.close_streams else "kept alive"
    print(
        f"{args.prompts} prompts, one model, a server answering every request after {args.latency} s"
        f"{f' ± {args.jitter} s' if args.jitter else ''}, "
        f"connections {connections}:"
    )
    print(
        "| variant | concurrency | wall | ideal | ratio | × reachable | in flight (median) "
        "| client CPU ÷ wall | server CPU ÷ wall |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
