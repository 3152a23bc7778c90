"""Per-round cost of our loop against a minimal hand-written loop doing the same work.

Both loops play the same ``ScriptedModel`` script (one tool call per round, then a final
text) through the same ``MessageBuilder``, so the model's own cost is identical; the
difference is what the framework adds: events, validation, the menu, results, threads.

    python bench/loop_overhead.py [--rounds 200] [--repeats 9]

Reports medians of interleaved repetitions (the machine is shared and noisy) as
microseconds per round and as the ratio ours / hand-written, for 5, 50 and 500
registered tools. Goal: extra cost under 300 µs per round, flat in the number of tools.
Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import openprogram_jupyter as op
from openprogram_jupyter.models.base import MessageBuilder, ModelRequest
from openprogram_jupyter.tools.registry import default_registry


def register_tools(count: int, *, async_tools: bool = False) -> op.Tool:
    """Register ``count`` tools named tool_0, tool_1, ...; sync ones run on a worker thread."""
    default_registry.clear()
    tools = []
    for index in range(count):
        if async_tools:

            async def tool(a: float, b: float, index: int = index) -> float:
                """Add two numbers and an index."""
                return a + b + index
        else:

            def tool(a: float, b: float, index: int = index) -> float:
                """Add two numbers and an index."""
                return a + b + index

        tool.__name__ = f"tool_{index}"
        tools.append(op.function(tool))
    return tools[0]


def script(rounds: int) -> list:
    return [op.ToolCall(name="tool_0", arguments={"a": i, "b": 1}) for i in range(rounds)] + ["done"]


async def ours(rounds: int) -> float:
    runtime = op.Runtime(model=op.ScriptedModel(script(rounds)))
    started = time.perf_counter()
    run = await runtime.arun("go", max_iterations=None)
    elapsed = time.perf_counter() - started
    assert run.rounds == rounds + 1 and run.stop_reason == "stop", run.error
    return elapsed


async def hand_written(rounds: int, tool: op.Tool, run_tool_in_thread: bool) -> float:
    """The floor: stream, find the call, validate nothing, call the function, append."""
    model = op.ScriptedModel(script(rounds))
    functions = {t.name: t.fn for t in default_registry}
    is_async = tool.is_async
    specs = [t.spec for t in default_registry]
    messages: list = [op.UserMessage(content="go")]
    started = time.perf_counter()
    while True:
        out = MessageBuilder(model.name)
        async for _ in model.stream(ModelRequest(messages=messages, tools=specs), out):
            pass
        reply = out.message
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            fn = functions[call.name]
            if is_async:
                value = await fn(**call.arguments)
            elif run_tool_in_thread:
                value = await asyncio.to_thread(fn, **call.arguments)
            else:
                value = fn(**call.arguments)
            messages.append(
                op.ToolResultMessage(
                    tool_call_id=call.id, tool_name=call.name, content=[op.TextContent(text=json.dumps(value))]
                )
            )
    return time.perf_counter() - started


def measure(tool_counts: list[int], rounds: int, repeats: int, *, async_tools: bool) -> list[dict]:
    rows = []
    for count in tool_counts:
        tool = register_tools(count, async_tools=async_tools)
        samples: dict[str, list[float]] = {"ours": [], "floor": [], "floor_thread": []}
        asyncio.run(ours(5))  # warm-up: imports and first-call caches are not loop cost
        for _ in range(repeats):  # interleaved, so drift hits all three alike
            samples["ours"].append(asyncio.run(ours(rounds)))
            samples["floor"].append(asyncio.run(hand_written(rounds, tool, False)))
            samples["floor_thread"].append(asyncio.run(hand_written(rounds, tool, True)))
        per_round = {k: statistics.median(v) / (rounds + 1) * 1e6 for k, v in samples.items()}
        rows.append(
            {
                "tools": count,
                **per_round,
                "extra_us": per_round["ours"] - per_round["floor"],
                "extra_vs_thread_floor_us": per_round["ours"] - per_round["floor_thread"],
                "ratio": per_round["ours"] / per_round["floor"],
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    print(f"{args.rounds} rounds, median of {args.repeats} interleaved repetitions (µs per round)")
    for async_tools in (True, False):
        kind = "async tool (awaited on the loop)" if async_tools else "sync tool (ours: on a worker thread)"
        print(f"\n{kind}\n")
        print(
            "| registered tools | ours | hand-written | hand-written + to_thread | our extra "
            "| extra vs to_thread floor | ratio |"
        )
        print("|---|---|---|---|---|---|---|")
        for row in measure([5, 50, 500], args.rounds, args.repeats, async_tools=async_tools):
            thread_floor = f"{row['floor_thread']:.0f}" if not async_tools else "—"
            thread_extra = f"{row['extra_vs_thread_floor_us']:.0f}" if not async_tools else "—"
            print(
                f"| {row['tools']} | {row['ours']:.0f} | {row['floor']:.0f} | {thread_floor} "
                f"| {row['extra_us']:.0f} | {thread_extra} | {row['ratio']:.2f}× |"
            )


if __name__ == "__main__":
    main()
