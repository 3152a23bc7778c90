"""What ``%load_ext openprogram_jupyter`` costs, next to ``import ipywidgets``.

Each measurement is a fresh Python process that first sets up what a kernel already has
(IPython's shell, ipykernel's modules), then times one thing:

- ``import ipywidgets`` — the baseline every widget-based extension pays;
- ``%load_ext openprogram_jupyter`` — our magics, the cell rewrite and the ``runtime``
  (ipywidgets and the core — pydantic models, tools, loop — load only when the first cell
  needs them), split into importing the package and the notebook layer's own part;
- the first ``%%agent`` view: ``%load_ext`` plus ``import ipywidgets`` plus the view's
  modules, for reference.

    python bench/load_ext.py [--repeats 15]

Reports medians of interleaved repetitions (the machine is shared and noisy) and the
ratio load_ext / ipywidgets. Goal: under 1.2. Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

SETUP = (
    "import time\n"
    "import ipykernel.ipkernel\n"  # what a running kernel has imported already
    "from IPython.core.interactiveshell import InteractiveShell\n"
    "ip = InteractiveShell.instance()\n"
)

CASES = {
    "import ipywidgets": "import ipywidgets",
    "%load_ext openprogram_jupyter": "ip.run_line_magic('load_ext', 'openprogram_jupyter')",
    "  of which: import openprogram_jupyter": "import openprogram_jupyter",
    "  of which: the notebook layer itself": (
        "t0 = time.perf_counter() - t; import openprogram_jupyter; t = time.perf_counter() - t0\n"
        "ip.run_line_magic('load_ext', 'openprogram_jupyter')"
    ),
    "%load_ext + first view's imports": (
        "ip.run_line_magic('load_ext', 'openprogram_jupyter')\n"
        "import ipywidgets\n"
        "import openprogram_jupyter.jupyter._view, openprogram_jupyter.jupyter._cell"
    ),
}


def measure(body: str) -> float:
    code = SETUP + "t = time.perf_counter()\n" + body + "\nprint(time.perf_counter() - t)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()

    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.repeats):
        for name, body in CASES.items():  # interleaved, so drift hits every case alike
            times[name].append(measure(body))
    medians = {name: statistics.median(values) for name, values in times.items()}
    baseline = medians["import ipywidgets"]
    ratio = medians["%load_ext openprogram_jupyter"] / baseline
    if args.json:
        print(
            json.dumps(
                {
                    "medians_ms": {k: round(v * 1000, 1) for k, v in medians.items()},
                    "ratio_load_ext_to_ipywidgets": round(ratio, 2),
                }
            )
        )
        return
    print(f"python {sys.version.split()[0]}, {args.repeats} interleaved repeats, medians:")
    for name, value in medians.items():
        print(f"  {name:<36} {value * 1000:8.1f} ms   ({value / baseline:.2f}× import ipywidgets)")
    print(f"ratio %load_ext / import ipywidgets: {ratio:.2f} (goal < 1.2)")


if __name__ == "__main__":
    main()
