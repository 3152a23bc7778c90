"""Run notebooks/quickstart.ipynb headless with the offline model and print what it shows.

    python scripts/run_quickstart.py [NOTEBOOK]

Needs this package with nbclient and ipykernel (``pip install -e '.[notebook]'``). The
notebook runs in a fresh kernel of this Python, talking over local IPC sockets, with
OPENPROGRAM_MODEL=offline and no provider keys, so nothing leaves the machine. Each code
cell is printed with its plain-text outputs — for ``%%agent`` cells that is the saved
transcript. Exits non-zero if a cell fails.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "quickstart.ipynb"
OFFLINE_ENV = {"OPENPROGRAM_MODEL": "offline", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "GEMINI_API_KEY": ""}


def main(argv: list[str]) -> int:
    import nbformat
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(argv[0]) if argv else NOTEBOOK
    notebook = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as jupyter_path:
        # A kernelspec for this very Python, so the notebook runs against this install.
        spec = Path(jupyter_path) / "kernels" / "openprogram-quickstart"
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "openprogram quickstart",
                    "language": "python",
                }
            )
        )
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [jupyter_path, os.environ.get("JUPYTER_PATH")]))
        # IPC sockets in the temporary folder: local only (and no warning about plain TCP).
        kernel = AsyncKernelManager(
            kernel_name="openprogram-quickstart", transport="ipc", ip=str(Path(jupyter_path) / "kernel")
        )
        client = NotebookClient(
            notebook,
            km=kernel,
            timeout=120,
            kernel_name="openprogram-quickstart",
            resources={"metadata": {"path": str(path.parent)}},
        )
        failed = None
        try:
            client.execute(env={**os.environ, **OFFLINE_ENV})
        except CellExecutionError as error:
            failed = error
    number = 0
    for cell in notebook.cells:
        if cell.cell_type != "code" or (not cell.get("outputs") and not cell.source):
            continue
        number += 1
        print(f"In [{number}]: " + cell.source.replace("\n", "\n" + " " * (len(str(number)) + 7)))
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                print(output.text.rstrip("\n"))
            elif output.output_type == "error":
                print(f"{output.ename}: {output.evalue}")
            elif "text/plain" in output.get("data", {}):
                print(output.data["text/plain"])
        print()
    if failed is not None:
        print(f"a cell failed: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
