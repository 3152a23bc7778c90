"""Real kernels for the notebook tests, and a client that can click like a browser.

Two kernels are tested: this interpreter's ipykernel (7.4 or later) and ipykernel 6.29
with ipywidgets 7.7 and jupyter-ui-poll (what Colab-era kernels look like). The 6.29 one
lives in its own virtual environment, locked by ``requirements/legacy-kernel.txt``
(:func:`ensure_legacy_venv`); it installs this repository in editable mode, so it always
runs the code under test.

:class:`LiveKernel` drives a kernel through nbclient. ``click`` sends exactly what a
browser sends when a Button is clicked — a ``comm_msg`` with ``{"method": "custom",
"content": {"event": "click"}}`` on the shell channel — while a cell is still running.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
LEGACY_LOCK = REPO / "requirements" / "legacy-kernel.txt"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STATIC_MIMES = {"text/plain", "text/html", "text/markdown"}


def legacy_venv_dir() -> Path:
    """Where the ipykernel 6.29 venv lives: ``$OPENPROGRAM_LEGACY_VENV`` or ``.venvs/legacy-kernel``."""
    configured = os.environ.get("OPENPROGRAM_LEGACY_VENV")
    return Path(configured) if configured else REPO / ".venvs" / "legacy-kernel"


def ensure_legacy_venv() -> Path:
    """The Python of the ipykernel 6.29 venv, built from ``requirements/legacy-kernel.txt`` if missing.

    ``.ci/run`` builds it fresh and points ``OPENPROGRAM_LEGACY_VENV`` at it; a bare
    ``pytest`` run builds it once under the repository's ignored ``.venvs/`` folder (about
    150 MB) from the same lock, so both runs test the same kernel.
    """
    venv = legacy_venv_dir()
    python = venv / "bin" / "python"
    marker = venv / "openprogram-lock.txt"
    lock = LEGACY_LOCK.read_text()
    built_by_ci = bool(os.environ.get("OPENPROGRAM_LEGACY_VENV"))
    if python.exists() and (built_by_ci or (marker.exists() and marker.read_text() == lock)):
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--require-hashes", "-r", str(LEGACY_LOCK)], check=True)
    subprocess.run([*pip, "--no-deps", "--no-build-isolation", "-e", str(REPO)], check=True)
    marker.write_text(lock)
    return python


def write_kernelspec(root: Path, name: str, python: Path | str) -> None:
    spec_dir = root / "kernels" / name
    spec_dir.mkdir(parents=True, exist_ok=True)
    (spec_dir / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": name,
                "language": "python",
            }
        )
    )


class LiveKernel:
    """One running kernel and the notebook its cells are recorded in."""

    def __init__(self, client: NotebookClient, notebook: Any) -> None:
        self.client = client
        self.notebook = notebook

    async def run(self, code: str) -> Any:
        """Execute ``code`` as a new cell and return the cell (errors are in its outputs)."""
        cell, task = self.start(code)
        await task
        return cell

    def start(self, code: str) -> tuple[Any, asyncio.Task[Any]]:
        cell = nbformat.v4.new_code_cell(code)
        self.notebook.cells.append(cell)
        index = len(self.notebook.cells) - 1
        return cell, asyncio.ensure_future(self.client.async_execute_cell(cell, index))

    async def text(self, code: str) -> str:
        """Run ``code`` and return what it printed (stdout), failing on an error."""
        cell = await self.run(code)
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, "\n".join(errors[0].traceback)
        return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")

    def widgets(self, model: str, **state: Any) -> list[str]:
        """Comm ids of the widgets of ``model`` (e.g. ``"ButtonModel"``) whose state matches."""
        return [
            comm_id
            for comm_id, values in self.client.widget_state.items()
            if values.get("_model_name") == model and all(values.get(k) == v for k, v in state.items())
        ]

    def widget_values(self, model: str = "HTMLModel") -> list[str]:
        return [v.get("value", "") for v in self.client.widget_state.values() if v.get("_model_name") == model]

    async def wait_for(self, condition: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out after {timeout} s waiting for {what or condition}")

    async def find(self, lookup: Callable[[], Sequence[str]], what: str, timeout: float = 30.0) -> str:
        """The first widget ``lookup`` returns, waiting until it returns one.

        Every widget a test acts on is looked up this way: a widget's state, the text
        shown beside it and the container that puts it on screen arrive as separate comm
        messages, so a lookup made the moment something else appeared can come up empty
        (on ipykernel 6.29 with jupyter-ui-poll it did, one run in two).
        """
        return (await self.wait_for(lookup, timeout, what))[0]

    async def find_widget(self, model: str, what: str, timeout: float = 30.0, **state: Any) -> str:
        """The first widget of ``model`` whose state matches ``state``, once there is one."""
        return await self.find(lambda: self.widgets(model, **state), what, timeout)

    def send_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        kc = self.client.kc
        kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))

    def click(self, comm_id: str) -> None:
        """What a browser sends when a Button is clicked."""
        self.send_comm(comm_id, {"method": "custom", "content": {"event": "click"}})

    def type_into(self, comm_id: str, value: str) -> None:
        """What a browser sends when a Text box's value changes."""
        self.send_comm(comm_id, {"method": "update", "state": {"value": value}, "buffer_paths": []})

    async def interrupt(self) -> None:
        await self.client.km.interrupt_kernel()


@asynccontextmanager
async def live_kernel(kernel_name: str, timeout: int = 120) -> AsyncIterator[LiveKernel]:
    notebook = nbformat.v4.new_notebook()
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name=kernel_name,
        allow_errors=True,
        resources={"metadata": {"path": str(REPO)}},
    )
    async with client.async_setup_kernel():
        yield LiveKernel(client, notebook)


def outputs_mimes(cell: Any) -> list[set[str]]:
    return [set(o.get("data", {})) for o in cell.outputs if o.output_type in ("display_data", "execute_result")]


def error_of(cell: Any) -> Any | None:
    return next((o for o in cell.outputs if o.output_type == "error"), None)


def plain_output(cell: Any) -> str:
    return "\n".join(o["data"].get("text/plain", "") for o in cell.outputs if "data" in o)
