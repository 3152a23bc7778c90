"""What our provider layer and loop cost on the wire, against the same loopback OpenAI server.

One run = 60 rounds of one tool call each, then a final text, over Chat Completions. Each
variant plays the same scripted turns from ``tests/fakeserver`` (the server answers a
request holding N tool results with call N+1, so every variant sees identical replies):

- ``floor``        a minimal hand-written streaming loop on the ``openai`` SDK;
- ``ours``         ``op.Runtime(model="openai:…", base_url=…).arun(...)`` (streaming), on
                   the SDK's aiohttp transport, and on httpx2's (``OPENPROGRAM_HTTP``);
- ``pydantic-ai``  ``Agent.run(..., event_stream_handler=…)`` (streaming) and ``Agent.run``;
- ``openai-agents`` ``Runner.run_streamed`` and ``Runner.run`` with
  ``OpenAIChatCompletionsModel`` (tracing disabled: nothing leaves 127.0.0.1).

The first run of each variant (imports, client set-up) is timed separately as warm-up.
Then the variants run in interleaved repetitions (a shuffled order each repetition, since
the machine is shared and noisy) and the report gives medians and each variant's ratio to
the floor. Goal: ours ≤ 1.10 × floor. ``--imports`` adds the import time of
``openprogram_jupyter`` next to ``ipywidgets`` (fresh interpreters, interleaved, medians).
``--abort`` measures, per provider, the time from cancelling a streaming round to the
server seeing the connection close. ``--long ROUNDS`` times the client's turnaround near
round 10 and near round ROUNDS of a long run, for each of ``--long-providers`` (OpenAI
and Anthropic by default; Gemini, Bedrock and Responses too), against a server that
counts each body's tool results without parsing it, so that its own work, which would
slow the client beside it, stays the same all run (``--parsing-server``: it parses and
checks each body, as in the tests).

The server keeps each connection open after a stream, as the providers' APIs do (HTTP
keep-alive: a client's pool reuses one connection for the next round);
``--close-streams`` closes it after every stream instead, as the test suite's server does,
so every round also pays for a new connection. ``--server-process`` serves the rounds
benchmark from a child process (``bench/server_process.py``) instead of a thread of the
bench's own process, whose interpreter lock the server would share with the client.

    python bench/provider_overhead.py [--rounds 60] [--repeats 15] [--imports] [--abort]
    python bench/provider_overhead.py --only-extras --long 2000 [--long-providers gemini,bedrock] [--parsing-server]

Needs the ``[bench]`` extra (pydantic-ai-slim[openai], openai-agents); a missing one is
skipped with a note. Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import itertools
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from fakeserver import FakeServer, Turn
from raw_floors import (
    ASYNC_CLIENTS,
    SYNC_CLIENTS,
    add,
    answer_calls,
    make_raw_anthropic,
    make_raw_async_anthropic,
    make_raw_async_openai,
    make_raw_openai,
    make_sync_anthropic,
)
from server_process import ServerProcess, Timing, lean, responder

import openprogram_jupyter as op

KEY = "sk-bench-not-a-real-key"
PROMPT = "Add the numbers one round at a time."
CLIENTS: list[Any] = []  # the comparison variants' clients, closed on their own loop at the end


def openai_client(base_url: str) -> Any:
    import openai

    client = openai.AsyncOpenAI(api_key=KEY, base_url=base_url, max_retries=0)
    CLIENTS.append(client)
    return client


def add_tool_declarations() -> list[dict[str, Any]]:
    parameters = op.function(add, register_globally=False).spec["parameters"]
    return [
        {"type": "function", "function": {"name": "add", "description": "Add two integers.", "parameters": parameters}}
    ]


def collect_chunk(chunk: Any, text: str, calls: dict[int, dict[str, str]]) -> str:
    """Fold one streamed Chat Completions chunk into ``calls``; return the text so far."""
    for choice in chunk.choices:
        if choice.delta.content:
            text += choice.delta.content
        for piece in choice.delta.tool_calls or []:
            call = calls.setdefault(piece.index, {"id": piece.id, "name": "", "arguments": ""})
            if piece.function and piece.function.name:
                call["name"] = piece.function.name
            if piece.function and piece.function.arguments:
                call["arguments"] += piece.function.arguments
    return text


# -- the variants ------------------------------------------------------------------------


def make_sync_floor(base_url: str, rounds: int) -> Callable[[], int]:
    """The cheapest official loop: the synchronous ``openai`` client, streaming."""
    import openai

    client = openai.OpenAI(api_key=KEY, base_url=base_url, max_retries=0)
    SYNC_CLIENTS.append(client)
    tools = add_tool_declarations()

    def run() -> int:
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        calls_made = 0
        while True:
            text, calls = "", {}
            with client.chat.completions.create(
                model="gpt-bench", messages=messages, tools=tools, stream=True, stream_options={"include_usage": True}
            ) as stream:
                for chunk in stream:
                    text = collect_chunk(chunk, text, calls)
            if not calls:
                return calls_made
            calls_made += answer_calls(messages, text, calls)

    return run


def make_floor(base_url: str, rounds: int) -> Callable[[], Awaitable[int]]:
    """The same loop on ``AsyncOpenAI`` (the floor earlier versions of this report used)."""
    client = openai_client(base_url)
    tools = add_tool_declarations()

    async def run() -> int:
        messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
        calls_made = 0
        while True:
            stream = await client.chat.completions.create(
                model="gpt-bench", messages=messages, tools=tools, stream=True, stream_options={"include_usage": True}
            )
            text, calls = "", {}
            async with stream:
                async for chunk in stream:
                    text = collect_chunk(chunk, text, calls)
            if not calls:
                return calls_made
            calls_made += answer_calls(messages, text, calls)

    return run


async def add_async(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First integer.
        b: Second integer.
    """
    return add(a, b)


def make_ours(
    base_url: str,
    rounds: int,
    *,
    blocking: bool = False,
    model: str = "openai:gpt-bench",
    wire: bool = False,
    async_tool: bool = False,
    http: str | None = None,
) -> Callable[[], Any]:
    """``Runtime.arun`` awaited, or (``blocking``) ``Runtime.run``, what a notebook cell
    calls: the run goes on the runtime's own loop thread. ``wire``: ``capture_wire=True``.
    ``async_tool``: the tool is ``async def`` (it runs on the loop; a plain function runs
    on a worker thread, so that Stop never waits for it). ``http``: the SDK client's
    transport, as ``OPENPROGRAM_HTTP`` names it (``"aiohttp"``, ``"httpx"``), set while
    the runtime's client is made (on its first run); else the default."""
    runtime = op.Runtime(model=model, api_key=KEY, base_url=base_url, capture_wire=wire)
    tool = op.function(add_async if async_tool else add, name="add", register_globally=False)

    limits = {"max_iterations": None, "max_tool_calls": None}  # a long run is not cut short

    def checked(result: Any) -> int:
        assert result.stop_reason == "stop", result.error
        refused = [r for r in result.tool_results if r.is_error]
        assert not refused, refused[0].content
        return len(result.tool_results)

    async def run() -> int:
        return checked(await runtime.arun(PROMPT, tools=[tool], **limits))

    def run_blocking() -> int:
        return checked(runtime.run(PROMPT, tools=[tool], **limits))

    runner = run_blocking if blocking else run
    return runner if http is None else _on_transport(http, runner)


def _on_transport(http: str, runner: Callable[[], Any]) -> Callable[[], Any]:
    """``runner`` with ``OPENPROGRAM_HTTP=http`` for the length of each call (awaited, if
    it is async), and what the variable was restored after."""

    def restore(before: str | None) -> None:
        if before is None:
            os.environ.pop("OPENPROGRAM_HTTP", None)
        else:
            os.environ["OPENPROGRAM_HTTP"] = before

    async def awaited(value: Awaitable[int], before: str | None) -> int:
        try:
            return await value
        finally:
            restore(before)

    def call() -> Any:
        before = os.environ.get("OPENPROGRAM_HTTP")
        os.environ["OPENPROGRAM_HTTP"] = http
        try:
            value = runner()
        except BaseException:
            restore(before)
            raise
        if inspect.isawaitable(value):
            return awaited(value, before)
        restore(before)
        return value

    return call


def make_pydantic_ai(base_url: str, rounds: int, *, stream: bool) -> Callable[[], Awaitable[int]]:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    client = openai_client(base_url)
    agent = Agent(OpenAIChatModel("gpt-bench", provider=OpenAIProvider(openai_client=client)), tools=[add])
    limits = UsageLimits(request_limit=None)

    async def drain(_ctx: Any, events: Any) -> None:
        async for _ in events:
            pass

    async def run() -> int:
        result = await agent.run(PROMPT, usage_limits=limits, event_stream_handler=drain if stream else None)
        return sum(1 for m in result.all_messages() for p in m.parts if p.part_kind == "tool-return")

    return run


def make_openai_agents(base_url: str, rounds: int, *, stream: bool) -> Callable[[], Awaitable[int]]:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled

    set_tracing_disabled(True)
    client = openai_client(base_url)
    agent = Agent(
        name="bench",
        instructions="Use the tool.",
        tools=[function_tool(add)],
        model=OpenAIChatCompletionsModel("gpt-bench", openai_client=client),
    )

    async def run() -> int:
        if stream:
            result = Runner.run_streamed(agent, PROMPT, max_turns=rounds + 5)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, PROMPT, max_turns=rounds + 5)
        return sum(1 for item in result.new_items if item.type == "tool_call_output_item")

    return run


SYNC_FLOOR = "floor: hand-written loop, sync `openai` client, streaming"
ASYNC_FLOOR = "hand-written loop, `AsyncOpenAI`, streaming"
RAW_FLOOR = "physical floor: the same loop on raw `httpx`, streaming"
LONG_FLOOR = "long-run floor: raw `httpx`, each message encoded once"
LONG_ASYNC_FLOOR = "long-run floor on `httpx.AsyncClient`"
OURS_RUN = "ours: `Runtime.run`, streaming"
OURS_WIRE = "ours: `Runtime.run`, streaming, `capture_wire=True`"
VARIANTS: dict[str, Callable[..., Callable[[], Any]]] = {
    SYNC_FLOOR: make_sync_floor,
    ASYNC_FLOOR: make_floor,
    RAW_FLOOR: make_raw_openai,
    "the same loop on raw `httpx.AsyncClient`, streaming": make_raw_async_openai,
    OURS_RUN: lambda u, r: make_ours(u, r, blocking=True, http="aiohttp"),
    "ours: `Runtime.arun`, streaming": lambda u, r: make_ours(u, r, http="aiohttp"),
    "ours: `Runtime.arun`, streaming, httpx2 transport": lambda u, r: make_ours(u, r, http="httpx"),
    "pydantic-ai Agent.run (streaming handler)": lambda u, r: make_pydantic_ai(u, r, stream=True),
    "pydantic-ai Agent.run (non-streaming)": lambda u, r: make_pydantic_ai(u, r, stream=False),
    "openai-agents Runner.run_streamed": lambda u, r: make_openai_agents(u, r, stream=True),
    "openai-agents Runner.run (non-streaming)": lambda u, r: make_openai_agents(u, r, stream=False),
}
ANTHROPIC = "anthropic:claude-bench"
ANTHROPIC_SYNC_FLOOR = "floor: hand-written loop, sync `anthropic` client, streaming"
ANTHROPIC_VARIANTS: dict[str, Callable[..., Callable[[], Any]]] = {
    ANTHROPIC_SYNC_FLOOR: make_sync_anthropic,
    RAW_FLOOR: make_raw_anthropic,
    OURS_RUN: lambda u, r: make_ours(u, r, blocking=True, model=ANTHROPIC, http="aiohttp"),
    "ours: `Runtime.arun`, streaming": lambda u, r: make_ours(u, r, model=ANTHROPIC, http="aiohttp"),
    "ours: `Runtime.arun`, streaming, `async def` tool": lambda u, r: make_ours(
        u, r, model=ANTHROPIC, async_tool=True, http="aiohttp"
    ),
    "ours: `Runtime.run`, streaming, httpx2 transport": lambda u, r: make_ours(
        u, r, blocking=True, model=ANTHROPIC, http="httpx"
    ),
    "ours: `Runtime.arun`, streaming, httpx2 transport": lambda u, r: make_ours(u, r, model=ANTHROPIC, http="httpx"),
}
PROVIDERS = {  # provider -> (its variants, its SDK floor, the base URL its clients take)
    "openai": (VARIANTS, SYNC_FLOOR, lambda server: server.openai_base_url),
    "anthropic": (ANTHROPIC_VARIANTS, ANTHROPIC_SYNC_FLOOR, lambda server: server.url),
}


async def bench_rounds(
    provider: str, rounds: int, repeats: int, *, keep_alive: bool = True, in_process: bool = True
) -> None:
    """Each variant's median run against the same scripted server: in a thread of this
    process (``in_process``, sharing its interpreter lock: while the server works, the
    client waits for the lock), or in a child process (``ServerProcess``), as a provider
    is never inside its client's process."""
    variants, sync_floor, url = PROVIDERS[provider]
    with _rounds_server(rounds, keep_alive, in_process) as server:
        runners: dict[str, Callable[[], Awaitable[int]]] = {}
        warmup: dict[str, float] = {}
        for name, make in variants.items():
            try:
                runner = make(url(server), rounds)
            except ImportError as error:
                print(f"skipped {name}: {error}")
                continue
            started = time.perf_counter()
            calls = await settled(runner())
            warmup[name] = time.perf_counter() - started
            assert calls == rounds, f"{name} made {calls} calls, expected {rounds}"
            runners[name] = runner
        wall: dict[str, list[float]] = {name: [] for name in runners}
        cpu: dict[str, list[float]] = {name: [] for name in runners}
        for _ in range(repeats):
            for name in random.sample(list(runners), len(runners)):
                started, started_cpu = time.perf_counter(), time.process_time()
                await settled(runners[name]())
                wall[name].append(time.perf_counter() - started)
                cpu[name].append(time.process_time() - started_cpu)
        await close_clients()
    floor, raw = statistics.median(wall[sync_floor]), statistics.median(wall[RAW_FLOOR])
    where = "a thread of this process (CPU includes it)" if in_process else "a child process"
    print(
        f"\n{provider}: {rounds} rounds of one tool call each + a final text; {repeats} interleaved "
        f"repetitions; connections {'kept alive' if keep_alive else 'closed after every stream'}; "
        f"the server in {where}; medians\n"
    )
    print(
        "| variant | warm-up run (s) | median run (ms) | per round (ms) | × sync SDK floor | × raw httpx "
        "| CPU × raw httpx |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    raw_cpu = statistics.median(cpu[RAW_FLOOR])
    for name in runners:
        median, median_cpu = statistics.median(wall[name]), statistics.median(cpu[name])
        print(
            f"| {name} | {warmup[name]:.2f} | {median * 1000:.0f} | {median * 1000 / (rounds + 1):.1f} "
            f"| {median / floor:.2f} | {median / raw:.2f} | {median_cpu / raw_cpu:.2f} |"
        )


async def close_clients() -> None:
    for client in CLIENTS:
        await client.close()
    for client in ASYNC_CLIENTS:
        await client.aclose()
    for client in SYNC_CLIENTS:
        client.close()
    CLIENTS.clear()
    ASYNC_CLIENTS.clear()
    SYNC_CLIENTS.clear()


async def settled(value: Any) -> Any:
    """``value``, awaited if the variant is async (a sync variant has already run)."""
    return await value if inspect.isawaitable(value) else value


def _turnarounds(timings: list[Timing]) -> list[float]:
    """Per round of a run, from its requests' ``(read_at, answered_at)``: the client's own
    time, from the server's last byte of one answer to the next request's body read whole
    (what the server does with a request — parse, check, record — is left out; it grows
    with the body and is the server's, not the client's)."""
    return [read_at - answered_at for (_, answered_at), (read_at, _) in itertools.pairwise(timings)]


LONG_MODELS = {
    "openai": "openai:gpt-bench",
    "openai-responses": "openai-responses:gpt-bench",
    "anthropic": ANTHROPIC,
    "gemini": "gemini:gemini-bench",
    "bedrock": "bedrock:anthropic.claude-bench-v1:0",
}


def _long_makers(provider: str) -> dict[str, Callable[..., Callable[[], Any]]]:
    """The variants of a long run: ours with and without wire capture, and where there is
    one (OpenAI, Anthropic) the raw-httpx floor, whole and with each message encoded once
    (the floor of a long run: what grows there is the body's bytes alone), and that floor
    on ``httpx.AsyncClient``, the HTTP stack the SDKs (and ours) run on."""
    model = LONG_MODELS[provider]
    makers: dict[str, Callable[..., Callable[[], Any]]] = {}
    if provider in PROVIDERS:
        raw = PROVIDERS[provider][0][RAW_FLOOR]
        makers[RAW_FLOOR] = raw
        makers[LONG_FLOOR] = lambda u, r: raw(u, r, incremental=True)
        raw_async = make_raw_async_openai if provider == "openai" else make_raw_async_anthropic
        makers[LONG_ASYNC_FLOOR] = lambda u, r: raw_async(u, r, incremental=True)
    makers[OURS_RUN] = lambda u, r: make_ours(u, r, blocking=True, model=model)
    makers[OURS_WIRE] = lambda u, r: make_ours(u, r, blocking=True, wire=True, model=model)
    return makers


async def bench_long(rounds: int, repeats: int, providers: list[str], *, in_process: bool, flat: bool = False) -> None:
    """Per-round client time near round 10 and near round ``rounds``, medians over
    interleaved repetitions: ours with and without wire capture, and the raw-httpx floor
    (the SDK floors walk the history every round: minutes per run at 2,000 rounds). The
    server runs in a child process (``ServerProcess``), or with ``in_process`` in a
    thread of this one, sharing its interpreter lock. What a run retains:
    bench/run_memory.py."""
    os.environ.update(AWS_ACCESS_KEY_ID="AKIABENCHBENCHBENC", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1")
    os.environ.setdefault("GEMINI_API_KEY", KEY)
    near = {"round 10": slice(5, 15), f"round {rounds}": slice(rounds - 10, rounds)}
    for provider in providers:
        with _long_server(rounds, in_process, flat) as server:
            url = server.openai_base_url if provider.startswith("openai") else server.url
            runners = {name: make(url, rounds) for name, make in _long_makers(provider).items()}
            samples: dict[str, dict[str, list[float]]] = {name: {k: [] for k in near} for name in runners}
            server.take_timings()
            for _ in range(repeats):
                for name in random.sample(list(runners), len(runners)):
                    await settled(runners[name]())
                    gaps = _turnarounds(server.take_timings())
                    for label, where in near.items():
                        samples[name][label].append(statistics.median(gaps[where]))
            await close_clients()
        where = "a thread of the client's process" if in_process else "a child process"
        where += ", reading each body without parsing it" if flat else ""
        print(
            f"\n{provider}: {rounds} rounds, the client's time per round (ms) near round 10 and round "
            f"{rounds}; {repeats} interleaved repetitions; the server in {where}\n"
        )
        print("| variant | " + " | ".join(near) + f" | round {rounds} / round 10 |")
        print("|---|" + "---:|" * (len(near) + 1))
        for name in runners:
            values = [statistics.median(samples[name][label]) for label in near]
            print(f"| {name} | " + " | ".join(f"{v * 1000:.2f}" for v in values) + f" | {values[1] / values[0]:.2f} |")


class _ThreadServer(FakeServer):
    """``FakeServer`` in this process, with ``ServerProcess``'s ``take_timings``."""

    def take_timings(self) -> list[Timing]:
        taken, self.requests[:] = list(self.requests), []  # the records grow with the square of the run
        return [(r.read_at, r.answered_at) for r in taken]


def _rounds_server(rounds: int, keep_alive: bool, in_process: bool) -> Any:
    if not in_process:
        return ServerProcess(rounds, keep_alive=keep_alive)
    server = FakeServer()
    server.responder = responder(rounds)
    server.keep_alive = keep_alive
    return server


def _long_server(rounds: int, in_process: bool, flat: bool) -> Any:
    if not in_process:
        return ServerProcess(rounds, flat=flat)
    server = _ThreadServer()
    server.responder = lean(responder(rounds))
    return server


def bench_imports(repeats: int) -> None:
    code = "import time; t = time.perf_counter(); import {0}; print(time.perf_counter() - t)"
    samples: dict[str, list[float]] = {"openprogram_jupyter": [], "ipywidgets": []}
    for _ in range(repeats):
        for module in random.sample(list(samples), len(samples)):
            out = subprocess.run(
                [sys.executable, "-c", code.format(module)], capture_output=True, text=True, check=True
            )
            samples[module].append(float(out.stdout))
    print(f"\nimport time, fresh interpreter, median of {repeats}:\n")
    print("| module | median (ms) | min (ms) |")
    print("|---|---:|---:|")
    for module, values in samples.items():
        print(f"| `import {module}` | {statistics.median(values) * 1000:.0f} | {min(values) * 1000:.0f} |")


async def bench_abort(trials: int) -> None:
    from openprogram_jupyter.core.messages import UserMessage
    from openprogram_jupyter.models import resolve_model
    from openprogram_jupyter.models.base import MessageBuilder, Model, ModelRequest

    async def consume(model: Model, out: MessageBuilder, first: asyncio.Event) -> None:
        """Stream one reply, setting ``first`` at its first text delta."""
        async for update in model.stream(ModelRequest(messages=[UserMessage(content="go")]), out):
            if update.kind == "text_delta":
                first.set()

    os.environ.update(AWS_ACCESS_KEY_ID="AKIABENCHBENCHBENC", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1")
    models = {
        "openai": "openai:gpt-bench",
        "openai-responses": "openai-responses:gpt-bench",
        "anthropic": "anthropic:claude-bench",
        "gemini": "gemini:gemini-bench",
        "bedrock": "bedrock:anthropic.claude-bench-v1:0",
    }
    print(f"\nabort: cancel mid-stream → server sees the socket close; {trials} trials per provider\n")
    print("| provider | median (ms) | max (ms) |")
    print("|---|---:|---:|")
    for prefix, name in models.items():
        latencies = []
        for _ in range(trials):
            with FakeServer() as server:
                server.script(Turn(text="word " * 200, chunk_size=5, frame_delay=0.02))
                base = server.openai_base_url if prefix.startswith("openai") else server.url
                model = resolve_model(name, api_key=KEY, base_url=base)
                out = MessageBuilder(model.name)
                first = asyncio.Event()
                task = asyncio.create_task(consume(model, out, first))
                await first.wait()
                cancelled = time.monotonic()
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                await asyncio.to_thread(server.closed.wait, 5)
                latencies.append((server.closes[0].at - cancelled) * 1000)
        print(f"| {prefix} | {statistics.median(latencies):.1f} | {max(latencies):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--providers", default="openai,anthropic", help="comma-separated: openai, anthropic")
    parser.add_argument("--imports", action="store_true", help="also time the package import")
    parser.add_argument("--abort", action="store_true", help="also time closing a stream on cancel")
    parser.add_argument("--long", type=int, metavar="ROUNDS", help="also time rounds 10 and ROUNDS of a long run")
    parser.add_argument(
        "--long-providers",
        default="openai,anthropic",
        help="comma-separated, for --long: openai, openai-responses, anthropic, gemini, bedrock",
    )
    parser.add_argument(
        "--server-in-process",
        action="store_true",
        help="for --long: the fake server in a thread of this process (default: a child process)",
    )
    parser.add_argument(
        "--parsing-server",
        action="store_true",
        help="for --long: the server parses and checks each body, as in the tests; its work then "
        "grows with the run and slows the client beside it (bench/server_interference.py). "
        "Default: it counts each body's results without parsing it",
    )
    parser.add_argument(
        "--server-process",
        action="store_true",
        help="for the rounds benchmark: the fake server in a child process (default: a thread of this process)",
    )
    parser.add_argument("--only-extras", action="store_true", help="skip the rounds benchmark")
    parser.add_argument(
        "--close-streams",
        action="store_true",
        help="the server closes the connection after every stream (default: kept alive, as the APIs do)",
    )
    args = parser.parse_args()
    if not args.only_extras:
        for provider in args.providers.split(","):
            asyncio.run(
                bench_rounds(
                    provider,
                    args.rounds,
                    args.repeats,
                    keep_alive=not args.close_streams,
                    in_process=not args.server_process,
                )
            )
    if args.imports:
        bench_imports(max(5, args.repeats))
    if args.long:
        asyncio.run(
            bench_long(
                args.long,
                max(3, args.repeats // 5),
                args.long_providers.split(","),
                in_process=args.server_in_process,
                flat=not args.parsing_server,
            )
        )
    if args.abort:
        asyncio.run(bench_abort(10))


if __name__ == "__main__":
    main()
