"""Run the fuzzers of tests/fuzz for a while (the long profile), and say how many examples
each ran and what failed.

    python scripts/fuzz.py --minutes 10          # every fuzzer, in turn, for ten minutes
    python scripts/fuzz.py --minutes 2 run wire  # only these (test_fuzz_run.py, test_fuzz_wire.py)

Each fuzzer runs as its own pytest with ``OPENPROGRAM_FUZZ=long``: hypothesis draws
``--examples`` examples from a fresh random seed, then the next fuzzer runs, round after
round, until the time is up (a pytest still running then is stopped; what it ran counts).
A failure is printed with hypothesis's minimal example, which then becomes a named
``@example`` of its fuzzer before the fix. Exit status 1 if anything failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tests" / "fuzz"


def fuzzers(names: list[str]) -> list[Path]:
    """The fuzzer files named (``run`` → ``test_fuzz_run.py``), or all of them."""
    every = sorted(FUZZ.glob("test_fuzz_*.py"))
    if not names:
        return every
    chosen = [FUZZ / f"test_fuzz_{name}.py" for name in names]
    missing = [path.name for path in chosen if path not in every]
    if missing:
        sys.exit(f"no such fuzzer: {', '.join(missing)} (there are {', '.join(p.stem[10:] for p in every)})")
    return chosen


def run_one(path: Path, examples: int, seconds: float, counts: Path) -> tuple[bool, str]:
    """One pytest of ``path`` in the long profile, stopped after ``seconds``: whether it
    failed, and the end of its output when it did."""
    env = {
        **os.environ,
        "OPENPROGRAM_FUZZ": "long",
        "OPENPROGRAM_FUZZ_EXAMPLES": str(examples),
        "OPENPROGRAM_FUZZ_COUNTS": str(counts),
    }
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", str(path)]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        return False, ""
    failed = done.returncode != 0
    return failed, (done.stdout + done.stderr)[-4000:] if failed else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="fuzzers to run (default: all)")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--examples", type=int, default=300, help="examples per fuzzer per pytest")
    options = parser.parse_args()
    deadline = time.monotonic() + options.minutes * 60
    failures: Counter[str] = Counter()
    pytests = 0
    with tempfile.TemporaryDirectory() as folder:
        counts = Path(folder) / "counts.txt"
        counts.touch()
        while time.monotonic() < deadline:
            for path in fuzzers(options.names):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                failed, output = run_one(path, options.examples, left, counts)
                pytests += 1
                if failed:
                    failures[path.stem] += 1
                    print(f"== FAILED: {path.name}\n{output}", flush=True)
        examples = Counter(counts.read_text(encoding="utf-8").split())
    print(f"== {options.minutes:g} minutes, {pytests} pytest runs")
    for name, number in sorted(examples.items()):
        print(f"{name:28} {number:8,} examples")
    print(f"{'total':28} {sum(examples.values()):8,} examples, {sum(failures.values())} failing pytest runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
