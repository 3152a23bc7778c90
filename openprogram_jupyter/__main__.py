"""``python -m openprogram_jupyter run NOTEBOOK``: execute a notebook headless with the
offline model (no key, no network) and print each cell with its transcript
(:mod:`openprogram_jupyter.jupyter.headless`). Exit status 0 when every cell ran, 1 when
one failed, 2 for a usage error (no such file, not a notebook, a missing dependency)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .core.errors import SetupError


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (``sys.argv[1:]`` when None) and run the command it names."""
    parser = argparse.ArgumentParser(prog="python -m openprogram_jupyter")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="execute a notebook headless with the offline model and print its cells")
    run.add_argument("notebook", type=Path, help="the .ipynb file to run")
    arguments = parser.parse_args(argv)
    from .jupyter.headless import run_notebook

    try:
        return run_notebook(arguments.notebook)
    except SetupError as error:
        sys.stderr.write(f"python -m openprogram_jupyter run: {error}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
