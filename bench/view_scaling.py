"""A `%%agent` cell against the same run through ``Runtime.run``, in one kernel.

Two long runs, each played by a ``ScriptedModel`` with one sync tool:

- **wide**: one reply of N calls (default 10,000), then a final text;
- **long**: M rounds of one call each (default 1,000), then a final text.

Each is timed twice in the same kernel, interleaved: as ``op.Runtime(...).run(...)`` in a
plain cell, and as an ``%%agent`` cell (the live view ticking, its widgets sent over the
kernel's comms to nbclient, the static transcript at the end). Cells are timed inside
the kernel, from IPython's ``pre_run_cell`` to its ``post_run_cell``. The live view's
widgets are counted in the kernel (the most open at once, how many were built) and at
the client (comms opened by the cell: widgets, their layouts and styles), and its
slowest redraw is timed.

    python bench/view_scaling.py [--calls 10000] [--rounds 1000] [--repeats 3] [--python PATH]

``--python`` runs the kernel of another interpreter (e.g. ``.venvs/legacy-kernel/bin/python``
for ipykernel 6.29 with ipywidgets 7.7). Reports medians and the ratio ``%%agent`` /
``Runtime.run`` per case. Goal: at most 2, and a widget count that does not grow with
the run. Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

SETUP = """\
%load_ext openprogram_jupyter
import gc, json, time
import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _view

@op.function(register_globally=False)
def echo(n: int) -> int:
    '''Echo a number.'''
    return n

def script(case, size):
    if case == "wide":
        return [[op.ToolCall(name="echo", arguments={"n": i}) for i in range(size)], "done"]
    return [op.ToolCall(name="echo", arguments={"n": i}) for i in range(size)] + ["done"]

_cell = {"started": 0.0, "took": []}
get_ipython().events.register("pre_run_cell", lambda info: _cell.update(started=time.perf_counter()))
get_ipython().events.register("post_run_cell",
                              lambda result: _cell["took"].append(time.perf_counter() - _cell["started"]))

# Instruments the live view (not the run): the views made, their widgets, their ticks
# (folding the new events, then redrawing) and their redraws alone.
_views, _slowest = [], {"tick": 0.0, "redraw": 0.0}
_init, _tick, _redraw = _view.RunView.__init__, _view.RunView.tick, _view.RunView._redraw
def _counted_init(self, *args, **kwargs):
    self.widgets_peak = 0
    _init(self, *args, **kwargs)
    _views.append(self)
def _timed(name, method):
    def timed(self, *args, **kwargs):
        started = time.perf_counter()
        done = method(self, *args, **kwargs)
        _slowest[name] = max(_slowest[name], time.perf_counter() - started)
        self.widgets_peak = max(self.widgets_peak, self.pool.count)
        return done
    return timed
_view.RunView.__init__ = _counted_init
_view.RunView.tick, _view.RunView._redraw = _timed("tick", _tick), _timed("redraw", _redraw)

def report():
    view = _views[-1]
    print(json.dumps({"took": _cell["took"][-1], "peak": view.widgets_peak, "built": view.pool.created,
                      "slowest_tick": _slowest["tick"], "slowest_redraw": _slowest["redraw"],
                      "stop": r.stop_reason, "results": len(r.tool_results)}))
    _slowest.update(tick=0.0, redraw=0.0)
"""

PLAIN = 'r = op.Runtime(model=m).run("go", tools=[echo], max_tool_calls=None, max_iterations=None)'
AGENT = "%%agent -m m --tools echo --max-tool-calls none --max-iterations none -o r\ngo"


class Kernel:
    def __init__(self, client: NotebookClient, notebook: nbformat.NotebookNode) -> None:
        self.client, self.notebook = client, notebook

    async def run(self, code: str) -> str:
        cell = nbformat.v4.new_code_cell(code)
        self.notebook.cells.append(cell)
        await self.client.async_execute_cell(cell, len(self.notebook.cells) - 1)
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if errors:
            raise RuntimeError("\n".join(errors[0].traceback))
        return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")

    async def plain(self, case: str, size: int) -> float:
        await self.run(f'r = None; m = op.ScriptedModel(script("{case}", {size})); gc.collect()')
        await self.run(PLAIN)
        return float(await self.run('print(_cell["took"][-1])'))

    async def agent(self, case: str, size: int) -> dict[str, float]:
        await self.run(f'r = None; m = op.ScriptedModel(script("{case}", {size})); gc.collect()')
        comms = len(self.client.widget_state)
        await self.run(AGENT)
        measured = json.loads(await self.run("report()"))
        assert measured.pop("stop") == "stop" and measured.pop("results") == size, measured
        measured["comms"] = len(self.client.widget_state) - comms
        return measured


def kernel_name(python: str | None, root: Path) -> str:
    if python is None:
        return "python3"
    spec = root / "kernels" / "bench"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "bench",
                "language": "python",
            }
        )
    )
    return "bench"


async def measure(options: argparse.Namespace) -> dict[str, dict[str, list]]:
    with tempfile.TemporaryDirectory() as root:
        name = kernel_name(options.python, Path(root))
        if options.python is not None:
            os.environ["JUPYTER_PATH"] = root
        notebook = nbformat.v4.new_notebook()
        client = NotebookClient(
            notebook, timeout=3600, kernel_name=name, resources={"metadata": {"path": str(Path(__file__).parent)}}
        )
        async with client.async_setup_kernel():
            kernel = Kernel(client, notebook)
            print(
                await kernel.run(
                    "import ipykernel, ipywidgets, sys\n"
                    "print(sys.version.split()[0], ipykernel.__version__, ipywidgets.__version__)"
                ),
                end="",
            )
            await kernel.run(SETUP)
            await kernel.plain("wide", 50)
            await kernel.agent("wide", 50)  # warm-up: imports, worker threads, the first view
            results: dict[str, dict[str, list]] = {}
            for repeat in range(options.repeats):
                for case, size in (("wide", options.calls), ("long", options.rounds)):
                    entry = results.setdefault(case, {"plain": [], "agent": []})
                    pair = [("plain", kernel.plain), ("agent", kernel.agent)]
                    for label, how in pair if repeat % 2 == 0 else pair[::-1]:
                        entry[label].append(await how(case, size))
                    print(
                        f"  repeat {repeat + 1} {case}: plain {entry['plain'][-1]:.2f} s, "
                        f"%%agent {entry['agent'][-1]['took']:.2f} s",
                        flush=True,
                    )
            return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--python", default=None, help="the kernel's interpreter (default: this one's ipykernel)")
    options = parser.parse_args()
    results = asyncio.run(measure(options))
    print(f"{options.repeats} interleaved repeats, medians:")
    for case, size, what in (("wide", options.calls, "calls in one reply"), ("long", options.rounds, "rounds")):
        plain = statistics.median(results[case]["plain"])
        agents = results[case]["agent"]
        agent = statistics.median(a["took"] for a in agents)
        print(
            f"  {size:>6} {what:<19} Runtime.run {plain:6.2f} s   %%agent {agent:6.2f} s   "
            f"ratio {agent / plain:.2f} (goal <= 2)"
        )
        print(
            f"  {'':>6} {'':<19} widgets open at most {max(a['peak'] for a in agents)}, "
            f"built {max(a['built'] for a in agents)}, comms opened {max(a['comms'] for a in agents)}, "
            f"slowest redraw {max(a['slowest_redraw'] for a in agents) * 1000:.0f} ms "
            f"(tick, folding the new events too: {max(a['slowest_tick'] for a in agents) * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    sys.exit(main())
