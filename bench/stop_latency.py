"""Stop latency: from the Stop click (a comm message) to the cell's kernel going idle.

One real kernel (this interpreter's ipykernel, driven by nbclient; ``tests/notebook/
kernels.py``) is reused for every trial: each trial runs an ``%%agent`` cell that would
go on for 15–30 s, waits until the live view shows it running, then sends what a browser
sends when the Stop button is clicked — a ``comm_msg`` with ``{"method": "custom",
"content": {"event": "click"}}`` on the shell channel — and times, in this process, from
just before that message is sent to the arrival of the iopub ``status: idle`` whose parent
is the cell's execute request (the kernel is free again; the static transcript has been
sent before it). After each trial an untimed cell checks that the run ended as a Stop
should (``stop_reason == "aborted"``, the call's result status), so a case that ran to its
end or failed is reported as an error, not as a latency.

The cases, interleaved in a fresh random order each repetition:

- ``streaming``: ``openai:gpt-bench`` against the loopback fake server
  (``tests/fakeserver``), one reply of 2,000 words streamed 6 characters a frame, 20 ms
  apart; stopped once streamed text shows in the view.
- ``async tool``: a scripted model calls an ``async`` tool that awaits
  ``asyncio.sleep(30)`` (cancelled on Stop).
- ``sync tool, cooperative``: a sync tool (on its worker thread) that waits on
  ``context.cancelled.wait(30)`` — the documented way for a long sync tool.
- ``sync tool, ignores Stop``: a sync tool that calls ``time.sleep(15)`` in one go; the
  run abandons it after the Runtime's ``cancel_grace`` (0.5 s by default), and the thread
  sleeps on.
- ``MCP call``: ``demo_wait`` (30 s) on the FastMCP demo server over stdio
  (``tests/tool_sources/demo_server.py``); stopped once the server has started the call.
- ``side by side``: ``%%agent -m openai:gpt-a,openai:gpt-b``, both streaming from the
  fake server; stopped with "Stop all" once both views show text.

Tool cases are stopped once the call's card shows ``▶ running`` and what the tool printed
when it started. The click then waits a random 0–200 ms: this process sees the view
right after one of its 100 ms redraws, and on ipykernel 6.29 a click is only read at
the next redraw (jupyter-ui-poll), so clicking at once would always measure the longest
wait; a person clicks at no particular moment. One repetition of every case runs first, untimed (``--warmup``), so the
first timed trial does not pay for first-use imports. Medians, min and max of
``--repeats``; the 1-minute load average is printed before and after.

    python bench/stop_latency.py [--repeats 7] [--warmup 1] [--cases streaming,mcp]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakeserver import FakeServer, Turn
from notebook.kernels import LiveKernel, error_of, live_kernel, plain_output, write_kernelspec
from tool_sources.servers import DEMO_SERVER

KEY = "sk-bench-not-a-real-key"
CLICK_JITTER = 0.2  # seconds: the click comes this long at most after the view shows the run going
WORDS = {"gpt-bench": "word ", "gpt-a": "tick ", "gpt-b": "tock "}


def setup_cell(openai_base_url: str) -> str:
    return f"""\
import os, sys, asyncio, time
os.environ["OPENAI_API_KEY"] = {KEY!r}
os.environ["OPENAI_BASE_URL"] = {openai_base_url!r}
%load_ext openprogram_jupyter
import openprogram_jupyter as op

@op.function
async def nap() -> str:
    '''Sleep 30 s, cancellably.'''
    print("nap started")
    await asyncio.sleep(30)
    return "rested"

@op.function
def wait(context: op.ToolContext) -> str:
    '''Wait 30 s unless the run is stopped.'''
    print("wait started")
    context.cancelled.wait(30)
    return "waited"

@op.function
def block() -> str:
    '''Sleep 15 s in one go, ignoring Stop.'''
    print("block started")
    time.sleep(15)
    return "blocked"

try:
    import mcp
    demo = op.mcp(command=[sys.executable, {str(DEMO_SERVER)!r}])
except ImportError:  # the ipykernel 6.29 venv is locked without the mcp extra
    mcp = None
import ipykernel, ipywidgets
m_nap = op.ScriptedModel([op.ToolCall(name='nap'), 'never'])
m_wait = op.ScriptedModel([op.ToolCall(name='wait'), 'never'])
m_block = op.ScriptedModel([op.ToolCall(name='block'), 'never'])
print(ipykernel.__version__, ipywidgets.__version__, mcp is not None)
"""


@dataclass
class Case:
    name: str
    cell: Callable[[Path], str]  # the %%agent cell, given a scratch folder
    running: Callable[[LiveKernel, Path], bool]  # the view shows the run going
    stop_button: str = "Stop"
    check: str = "print(r.stop_reason)"  # what the run must print once stopped
    expected: str = "aborted"


def shows(kernel: LiveKernel, *parts: str) -> bool:
    """Some one HTML widget of the live view holds every one of ``parts``."""
    return any(all(part in value for part in parts) for value in kernel.widget_values())


def tool_case(name: str, tool: str, expected_status: str) -> Case:
    return Case(
        name,
        cell=lambda folder: f"%%agent -m m_{tool} -o r --tools {tool}\nGo.",
        running=lambda kernel, folder: (
            shows(kernel, f"<code>{tool}</code>", "▶ running") and shows(kernel, f"{tool} started")
        ),
        check="print(r.stop_reason, r.tool_results[0].status)",
        expected=f"aborted {expected_status}",
    )


def mcp_marker(folder: Path) -> Path:
    return folder / "mcp-marker"


CASES = [
    Case(
        "streaming",
        cell=lambda folder: "%%agent -m openai:gpt-bench -o r\nTalk for a long time.",
        running=lambda kernel, folder: shows(kernel, "word word word"),
    ),
    tool_case("async tool", "nap", "cancelled"),
    tool_case("sync tool, cooperative", "wait", "cancelled"),
    tool_case("sync tool, ignores Stop", "block", "interrupted"),
    Case(
        "MCP call",
        cell=lambda folder: "%%agent -m m_mcp -o r --mcp demo\nWait.",
        running=lambda kernel, folder: (
            mcp_marker(folder).exists()
            and "started" in mcp_marker(folder).read_text()
            and shows(kernel, "<code>demo_wait</code>", "▶ running")
        ),
        check="print(r.stop_reason, r.tool_results[0].status)",
        expected="aborted cancelled",
    ),
    Case(
        "side by side",
        cell=lambda folder: "%%agent -m openai:gpt-a,openai:gpt-b -o r\nTalk for a long time.",
        running=lambda kernel, folder: shows(kernel, "tick tick tick") and shows(kernel, "tock tock tock"),
        stop_button="Stop all",
        check="print(r['openai:gpt-a'].stop_reason, r['openai:gpt-b'].stop_reason)",
        expected="aborted aborted",
    ),
]
KEYS = {
    "streaming": "streaming",
    "async": "async tool",
    "cooperative": "sync tool, cooperative",
    "ignoring": "sync tool, ignores Stop",
    "mcp": "MCP call",
    "side-by-side": "side by side",
}


class IdleClock:
    """Notes when the iopub ``status: idle`` of the running cell arrives (nbclient passes
    ``process_message`` only the messages whose parent is the cell's execute request)."""

    def __init__(self, kernel: LiveKernel) -> None:
        self.idle_at: float | None = None
        client = kernel.client
        original = client.process_message

        def process_message(msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
            if msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle":
                self.idle_at = time.monotonic()
            return original(msg, cell, cell_index)

        client.process_message = process_message


async def trial(kernel: LiveKernel, clock: IdleClock, case: Case, folder: Path) -> float:
    """Seconds from the Stop click to the cell's kernel going idle."""
    kernel.client.widget_state.clear()  # only this cell's widgets are looked at
    if case.name == "MCP call":
        marker = mcp_marker(folder)
        marker.unlink(missing_ok=True)
        await kernel.text(
            f"m_mcp = op.ScriptedModel([op.ToolCall(name='demo_wait', "
            f"arguments={{'seconds': 30, 'marker': {str(marker)!r}}}), 'never'])"
        )
    clock.idle_at = None
    cell, task = kernel.start(case.cell(folder))
    await kernel.wait_for(
        lambda: case.running(kernel, folder) or task.done(),
        timeout=60,
        what=f"{case.name}: the run to show it is going",
    )
    if task.done():
        raise AssertionError(f"{case.name}: the cell ended before it was stopped:\n{plain_output(cell)}")
    stop = await kernel.find_widget("ButtonModel", f"the {case.stop_button} button", description=case.stop_button)
    await asyncio.sleep(random.uniform(0, CLICK_JITTER))  # a person clicks at no particular moment of a tick
    clicked = time.monotonic()
    kernel.click(stop)
    await task
    assert clock.idle_at is not None, "no idle status seen for the cell"
    latency = clock.idle_at - clicked
    error = error_of(cell)
    assert error is None, f"{case.name}: the cell failed: {error.ename}: {error.evalue}"
    outcome = (await kernel.text(case.check)).strip()
    assert outcome == case.expected, f"{case.name}: the run ended as {outcome!r}, not {case.expected!r}"
    return latency


def load() -> float:
    return os.getloadavg()[0]


async def bench(cases: list[Case], repeats: int, warmup: int, python: str | None) -> None:
    samples: dict[str, list[float]] = {case.name: [] for case in cases}
    load_before = load()
    started = time.monotonic()
    with FakeServer() as server, tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        server.responder = lambda recorded, wire: Turn(
            text=WORDS.get(str(recorded.body.get("model")), "word ") * 2000, frame_delay=0.02
        )
        kernel_name = "python3"
        if python is not None:  # a kernelspec for that interpreter, found first on JUPYTER_PATH
            kernel_name = "stop-latency-bench"
            write_kernelspec(folder, kernel_name, python)
            os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(folder), os.environ.get("JUPYTER_PATH")]))
        async with live_kernel(kernel_name, timeout=120) as kernel:
            ipykernel, ipywidgets, has_mcp = (await kernel.text(setup_cell(server.openai_base_url))).split()
            if has_mcp != "True" and any(case.name == "MCP call" for case in cases):
                print("(no mcp package in this kernel: the MCP case is left out)")
                cases = [case for case in cases if case.name != "MCP call"]
            clock = IdleClock(kernel)
            for repetition in range(warmup + repeats):
                for case in random.sample(cases, len(cases)):
                    latency = await trial(kernel, clock, case, folder)
                    if repetition >= warmup:
                        samples[case.name].append(latency)
    load_after = load()
    print(
        f"\nStop latency: Stop click (comm_msg sent) → the cell's iopub status idle; one kernel "
        f"(ipykernel {ipykernel}, ipywidgets {ipywidgets}; nbclient) for all trials, "
        f"{warmup} untimed warm-up round(s), {repeats} timed, "
        f"cases interleaved; {time.monotonic() - started:.0f} s in all\n"
    )
    print("| case | median | min | max |")
    print("|---|---:|---:|---:|")
    for case in cases:
        values = samples[case.name]
        print(
            f"| {case.name} | {statistics.median(values) * 1000:.0f} ms | {min(values) * 1000:.0f} ms "
            f"| {max(values) * 1000:.0f} ms |"
        )
    print(f"\nload average (1 min): {load_before:.2f} before, {load_after:.2f} after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds of every case first")
    parser.add_argument("--cases", default=",".join(KEYS), help=f"a comma-separated subset of {','.join(KEYS)}")
    parser.add_argument(
        "--python", default=None, help="the kernel's interpreter, an absolute path (default: this one's ipykernel)"
    )
    args = parser.parse_args()
    wanted = [KEYS[key.strip()] for key in args.cases.split(",") if key.strip()]
    cases = [case for case in CASES if case.name in wanted]
    asyncio.run(bench(cases, args.repeats, args.warmup, args.python))


if __name__ == "__main__":
    main()
