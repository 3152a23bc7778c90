"""The first cell after a kernel start: from sending the cell to the first request at the server.

Each trial starts a fresh kernel (this interpreter's ipykernel, driven by nbclient), runs
a setup cell that points the provider's SDK at a loopback fake server (``tests/fakeserver``)
and, for the ``%%agent`` variant, ``%load_ext openprogram_jupyter``; then one timed cell:

- ``%%agent -m PROVIDER:MODEL`` with a one-line prompt (what a user's first cell is), or
- a plain cell that imports the provider's SDK and sends the same streamed request.

The timed cell is sent ``--pause`` seconds (default 3) after the setup cell ends, the time
a user takes to type it; ``--pause 0`` sends it at once. Set ``OPENPROGRAM_WARM_UP=0`` to
measure without the background warm-up ``%load_ext`` starts.

The time is taken in this process, from just before the cell's execute request is sent to
the moment the fake server has the request. Kernels, providers and variants interleave;
medians of ``--repeats`` trials. Goal (issue 14): the ``%%agent`` cell at most 0.5 × the
plain cell.

    python bench/first_cell.py [--repeats 5] [--providers openai,anthropic]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import nbformat
from fakeserver import FakeServer, Turn
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-bench-not-a-real-key"
MODELS = {"openai": "gpt-bench", "anthropic": "claude-bench"}
ENVIRONMENT = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}
PLAIN = {
    "openai": """
import openai
client = openai.OpenAI(max_retries=0)
with client.chat.completions.create(model="gpt-bench", messages=[{"role": "user", "content": "Say hi."}],
                                    stream=True) as stream:
    for chunk in stream:
        pass
""",
    "anthropic": """
import anthropic
client = anthropic.Anthropic(max_retries=0)
with client.messages.create(model="claude-bench", max_tokens=64, stream=True,
                            messages=[{"role": "user", "content": "Say hi."}]) as stream:
    for event in stream:
        pass
""",
}


def setup_cell(provider: str, url: str, agent: bool) -> str:
    key_name, url_name = ENVIRONMENT[provider]
    lines = ["import os", f"os.environ[{key_name!r}] = {KEY!r}", f"os.environ[{url_name!r}] = {url!r}"]
    if agent:
        lines.append("%load_ext openprogram_jupyter")
    return "\n".join(lines)


def timed_cell(provider: str, agent: bool) -> str:
    if agent:
        return f"%%agent -m {provider}:{MODELS[provider]}\nSay hi."
    return PLAIN[provider]


async def one_trial(server: FakeServer, provider: str, agent: bool, pause: float) -> float:
    """Seconds from sending the timed cell (``pause`` s after the setup cell ended, the time
    a user takes to type it) to the server holding its first request."""
    base = server.openai_base_url if provider == "openai" else server.url
    notebook = nbformat.v4.new_notebook()
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", allow_errors=False, resources={"metadata": {"path": str(REPO)}}
    )
    async with client.async_setup_kernel():
        for index, source in enumerate((setup_cell(provider, base, agent), timed_cell(provider, agent))):
            cell = nbformat.v4.new_code_cell(source)
            notebook.cells.append(cell)
            if index:
                await asyncio.sleep(pause)
            seen = len(server.requests)
            sent = time.monotonic()
            await client.async_execute_cell(cell, index)
        assert len(server.requests) == seen + 1, f"the cell sent {len(server.requests) - seen} requests"
        return server.requests[seen].received_at - sent


async def bench(providers: list[str], repeats: int, pause: float) -> None:
    samples = {(p, agent): [] for p in providers for agent in (True, False)}
    with FakeServer() as server:
        server.responder = lambda recorded, wire: Turn(text="Hi.")
        for _ in range(repeats):
            for provider, agent in random.sample(list(samples), len(samples)):
                samples[(provider, agent)].append(await one_trial(server, provider, agent, pause))
    print(
        f"\nFirst cell after a kernel start, sent {pause:g} s after the setup cell: cell sent → request at "
        f"the server; median (min) of {repeats}\n"
    )
    print("| provider | plain cell (imports the SDK, sends) | `%%agent` cell after `%load_ext` | ratio |")
    print("|---|---:|---:|---:|")
    for provider in providers:
        plain, agent = samples[(provider, False)], samples[(provider, True)]
        print(
            f"| {provider} | {statistics.median(plain) * 1000:.0f} ms ({min(plain) * 1000:.0f}) "
            f"| {statistics.median(agent) * 1000:.0f} ms ({min(agent) * 1000:.0f}) "
            f"| {statistics.median(agent) / statistics.median(plain):.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--providers", default="openai,anthropic")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between the setup cell and the timed one")
    args = parser.parse_args()
    asyncio.run(bench(args.providers.split(","), args.repeats, args.pause))


if __name__ == "__main__":
    main()
