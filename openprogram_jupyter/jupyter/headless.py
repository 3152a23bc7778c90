"""Run a notebook headless with the offline model and print what it shows.

``python -m openprogram_jupyter run NOTEBOOK`` (the README's Quickstart) calls
:func:`run_notebook`. It needs nbclient and ipykernel (the ``notebook`` extra). The
notebook runs in a fresh kernel of this very Python, so it runs against this install,
talking over local IPC sockets in a temporary folder, with ``OPENPROGRAM_MODEL=offline``
and the provider keys emptied, so nothing leaves the machine. The notebook file is not
changed.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from ..core.errors import SetupError

__all__ = ["OFFLINE_ENV", "format_cells", "run_notebook"]

OFFLINE_ENV = {"OPENPROGRAM_MODEL": "offline", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "GEMINI_API_KEY": ""}
_KERNEL_NAME = "openprogram-headless"
CELL_TIMEOUT_SECONDS = 120


def run_notebook(path: Path, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Execute the notebook at ``path`` top to bottom, print each code cell and its
    plain-text outputs to ``out`` (see :func:`format_cells`), and return the exit status:
    0 when every cell ran, 1 when a cell failed (every cell is printed, with outputs up to
    the failing one, and ``err`` gets the error's name and message).

    Raises :class:`~openprogram_jupyter.SetupError` when ``path`` is not a readable
    notebook or nbclient / ipykernel are not installed.
    """
    notebook = _read(path)
    try:
        from jupyter_client.manager import AsyncKernelManager
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
    except ModuleNotFoundError as error:
        raise SetupError(
            f"running a notebook headless needs {error.name}: pip install 'openprogram-jupyter[notebook]'"
        ) from None
    failed: CellExecutionError | None = None
    with tempfile.TemporaryDirectory() as jupyter_path:
        _write_kernelspec(Path(jupyter_path))
        environment = {**os.environ, **OFFLINE_ENV}
        environment["JUPYTER_PATH"] = os.pathsep.join(filter(None, [jupyter_path, os.environ.get("JUPYTER_PATH")]))
        # IPC sockets in the temporary folder: local only (and no warning about plain TCP).
        kernel = AsyncKernelManager(kernel_name=_KERNEL_NAME, transport="ipc", ip=str(Path(jupyter_path) / "kernel"))
        client = NotebookClient(
            notebook,
            km=kernel,
            timeout=CELL_TIMEOUT_SECONDS,
            kernel_name=_KERNEL_NAME,
            resources={"metadata": {"path": str(path.resolve().parent)}},
        )
        previous = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = environment["JUPYTER_PATH"]  # where the kernel manager finds the spec
        try:
            client.execute(env=environment)
        except CellExecutionError as error:
            failed = error
        finally:
            if previous is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = previous
    out.write(format_cells(notebook))
    if failed is not None:
        err.write(f"a cell failed: {failed.ename}: {failed.evalue}\n")
        return 1
    return 0


def format_cells(notebook: Any) -> str:
    """Each code cell that has a source or outputs, as ``In [N]: SOURCE`` followed by its
    outputs as plain text: streams as printed, an error as ``Name: message``, a display or
    result by its ``text/plain`` form (for ``%%agent`` cells, the saved transcript); other
    outputs are left out. Cells are separated by a blank line."""
    lines: list[str] = []
    number = 0
    for cell in notebook.cells:
        if cell.cell_type != "code" or (not cell.get("outputs") and not cell.source):
            continue
        number += 1
        lines.append(f"In [{number}]: " + cell.source.replace("\n", "\n" + " " * (len(str(number)) + 7)))
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                lines.append(output.text.rstrip("\n"))
            elif output.output_type == "error":
                lines.append(f"{output.ename}: {output.evalue}")
            elif "text/plain" in output.get("data", {}):
                lines.append(output.data["text/plain"])
        lines.append("")
    return "".join(line + "\n" for line in lines)


def _read(path: Path) -> Any:
    import nbformat

    if not path.is_file():
        raise SetupError(f"no notebook at {path}")
    try:
        return nbformat.read(path, as_version=4)
    except Exception as error:  # nbformat raises several kinds for a file that is not a notebook
        raise SetupError(f"{path} is not a notebook nbformat can read: {type(error).__name__}") from None


def _write_kernelspec(jupyter_path: Path) -> None:
    """A kernelspec for this very Python, so the notebook runs against this install."""
    spec = jupyter_path / "kernels" / _KERNEL_NAME
    spec.mkdir(parents=True)
    kernel = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "openprogram headless",
        "language": "python",
    }
    (spec / "kernel.json").write_text(json.dumps(kernel))
