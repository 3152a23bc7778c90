"""Run notebooks/quickstart.ipynb headless with the offline model and print what it shows.

    python scripts/run_quickstart.py [NOTEBOOK]

The same as ``python -m openprogram_jupyter run NOTEBOOK`` (the README's command, in
openprogram_jupyter/jupyter/headless.py), with the quickstart notebook as the default.
"""

from __future__ import annotations

import sys
from pathlib import Path

from openprogram_jupyter.__main__ import main

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"

if __name__ == "__main__":
    sys.exit(main(["run", *(sys.argv[1:] or [str(NOTEBOOK)])]))
