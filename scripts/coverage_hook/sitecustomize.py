"""Start coverage in every Python process that scripts/coverage.sh launches, kernels included.

This folder is on ``PYTHONPATH`` only while ``scripts/coverage.sh`` runs, so normal test
runs never load it. Python imports ``sitecustomize`` at start-up from the first folder on
``sys.path`` that has one; ``coverage.process_startup()`` does nothing unless
``COVERAGE_PROCESS_START`` names the configuration, which the script sets.
"""

import os
import sys

_lib = os.environ.get("OPENPROGRAM_COVERAGE_LIB")
if _lib and os.environ.get("COVERAGE_PROCESS_START"):
    if _lib not in sys.path:
        # After the folders of PYTHONPATH, before the interpreter's own site-packages, so a
        # kernel venv without coverage still finds the one the script installed.
        sys.path.insert(0, _lib)
    import coverage

    coverage.process_startup()
