"""What importing the package costs in a fresh interpreter, next to ``import ipywidgets``.

Each measurement is a new ``python -c CODE`` process timed from start to exit; the cases
are interleaved, and each is reported as its median (and minimum) minus the median of
``python -c pass`` in the same run, so the interpreter's own start-up is not counted:

- ``import openprogram_jupyter``;
- the first use of the core: ``import openprogram_jupyter as op; op.function`` (pydantic,
  the tools layer and the loop load then);
- ``import ipywidgets``, for scale (in a fresh interpreter it also imports IPython and
  ipykernel's comm modules).

    python bench/import_time.py [--repeats 15] [--python PATH]

Never part of the test suite's pass/fail.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass": "pass",
    "import openprogram_jupyter": "import openprogram_jupyter",
    "first use of op.function (loads the core)": "import openprogram_jupyter as op; op.function",
    "import ipywidgets": "import ipywidgets",
}


def time_process(python: str, code: str) -> float:
    """Seconds from starting ``python -c code`` to its exit (it must exit 0)."""
    start = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, env={**os.environ, "OPENPROGRAM_WARM_UP": "0"})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.repeats):
        for name, code in CASES.items():
            times[name].append(time_process(args.python, code))
    baseline = statistics.median(times["python -c pass"])
    print(f"{args.repeats} interleaved fresh processes each; python -c pass: {baseline * 1000:.1f} ms (median)")
    print(f"{'case':45} {'median':>9} {'min':>9}   (minus python -c pass)")
    for name, samples in times.items():
        if name == "python -c pass":
            continue
        median = (statistics.median(samples) - baseline) * 1000
        least = (min(samples) - baseline) * 1000
        print(f"{name:45} {median:7.1f} ms {least:7.1f} ms")


if __name__ == "__main__":
    main()
