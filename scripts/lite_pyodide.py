"""The Pyodide a JupyterLite site serves itself, for scripts/build_lite.sh.

    python scripts/lite_pyodide.py PYODIDE_DIR WHEEL_DIR OUT_DIR

PYODIDE_DIR is the npm ``pyodide`` package: its runtime (``pyodide.mjs``, the WebAssembly
module, the standard library) but none of the packages of its lock file, which Pyodide
fetches beside the runtime. OUT_DIR gets the runtime, the micropip wheel of WHEEL_DIR, and a
``pyodide-lock.json`` that lists micropip alone, at that wheel's hash: the kernel loads
micropip from the lock at start, and every other package comes from the site's own index, so
no request leaves the site for a package the lock names and the site lacks.

Exits with a message naming the problem when a file is missing or the runtime's Python or
ABI is not the one the wheels of WHEEL_DIR were chosen for.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.js")
# The Python and ABI that requirements/pyodide.txt's wheels are downloaded for (.ci/run).
EXPECTED_PYTHON = "3.14"
EXPECTED_ABI = "2026_0"


def site_pyodide(pyodide_dir: Path, wheel_dir: Path, out_dir: Path) -> str:
    """Write OUT_DIR as described above; returns the runtime's version."""
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text(encoding="utf-8"))
    info = lock["info"]
    if not info["python"].startswith(EXPECTED_PYTHON + ".") or info["abi_version"] != EXPECTED_ABI:
        raise SystemExit(
            f"{pyodide_dir} is Python {info['python']} with ABI {info['abi_version']}; the site's wheels "
            f"are for Python {EXPECTED_PYTHON} and ABI pyemscripten_{EXPECTED_ABI}"
        )
    micropips = sorted(wheel_dir.glob("micropip-*-py3-none-any.whl"))
    if not micropips:
        raise SystemExit(f"no micropip wheel in {wheel_dir}")
    micropip = micropips[-1]
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        if not (pyodide_dir / name).is_file():
            raise SystemExit(f"{pyodide_dir} has no {name}: is it the npm pyodide package?")
        shutil.copy(pyodide_dir / name, out_dir / name)
    shutil.copy(micropip, out_dir / micropip.name)
    entry = dict(lock["packages"]["micropip"])
    entry.update(
        file_name=micropip.name,
        version=micropip.name.split("-")[1],
        sha256=hashlib.sha256(micropip.read_bytes()).hexdigest(),
        depends=[],
    )
    lock["packages"] = {"micropip": entry}
    (out_dir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")
    version: str = json.loads((pyodide_dir / "package.json").read_text(encoding="utf-8"))["version"]
    return version


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    pyodide_dir, wheel_dir, out_dir = (Path(arg) for arg in sys.argv[1:])
    print(f"Pyodide {site_pyodide(pyodide_dir, wheel_dir, out_dir)} for the site, from {pyodide_dir}")
