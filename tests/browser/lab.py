"""What the browser tests share: Debian's chromium, a page in it, notebooks to open and run.

Needs ``/usr/bin/chromium`` (``apt-get install -y chromium``; CI's script installs it) and
the Python ``playwright`` package — never ``playwright install``.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat

OUTPUT = Path(__file__).parent / "output"
REPO = Path(__file__).resolve().parents[2]
# Debian's chromium, found on PATH as .ci/run finds it (never a Playwright browser download).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextlib.contextmanager
def chromium_page(width: int, height: int, failure_picture: str) -> Iterator[Any]:
    """A page in headless chromium; if the block fails, a full-page screenshot goes to
    ``output/<failure_picture>`` before the error is raised."""
    from playwright.sync_api import sync_playwright

    OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            yield page
        except BaseException:
            try:
                page.screenshot(path=str(OUTPUT / failure_picture), full_page=True)
            except Exception as screenshot_error:  # the test's own failure is the one to report
                print(f"(no failure screenshot: {screenshot_error})")
            raise
        finally:
            browser.close()


def write_notebook(root: Path, name: str, cells: list[str], kernel: str = "python3") -> str:
    """A notebook of code ``cells`` at ``root/name`` for ``kernel``; returns ``name``."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nbformat.write(notebook, root / name)
    return name


def open_and_run_all(page: Any, address: str) -> None:
    """Open the notebook at ``address`` in JupyterLab, wait for its kernel, and Run All."""
    page.goto(address)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel",
        timeout=60_000,
    )
    # Not awaited: the command's promise resolves only when every cell has run.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
