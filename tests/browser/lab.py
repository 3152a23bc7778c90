"""What the browser tests share: Debian's chromium, a page in it, notebooks to open and run.

Each worker process runs one Playwright driver and one chromium (:mod:`shared_chromium`);
each :func:`chromium_page` is a new browser context in it, closed after the test. A test of
JupyterLab alone may take :func:`notebook_page` instead: the worker's one JupyterLab page of
that server, loaded once and kept, in which each test opens its notebooks.

Needs ``/usr/bin/chromium`` (``apt-get install -y chromium``; CI's script installs it) and
the Python ``playwright`` package — never ``playwright install``.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import nbformat

from . import shared_chromium

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


FRONTENDS = ("lab", "notebook7")


@dataclass(frozen=True)
class Server:
    """A test's place on a running Jupyter server: the server's ``url``, the test's own
    ``root`` folder, which ``frontend`` its pages are — ``"lab"`` (JupyterLab),
    ``"notebook7"`` (Notebook 7) or ``"nbclassic"`` (the Notebook 6 interface) — that
    folder's ``path`` relative to the server's root, and the name of the test's own
    JupyterLab ``workspace``."""

    url: str
    root: Path
    frontend: str
    path: str
    workspace: str

    def notebook_address(self, name: str) -> str:
        """The page that opens notebook ``name`` (a path under ``root``) in this frontend;
        JupyterLab's in this test's workspace, so it restores no other test's tabs."""
        notebook = quote(f"{self.path}/{name}")
        page = {
            "lab": f"lab/workspaces/{quote(self.workspace, safe='')}/tree",
            "notebook7": "notebooks",
            "nbclassic": "nbclassic/notebooks",
        }[self.frontend]
        return f"{self.url}/{page}/{notebook}"


@contextlib.contextmanager
def chromium_page(width: int, height: int, failure_picture: str, extra_args: tuple[str, ...] = ()) -> Iterator[Any]:
    """A page of its own (in a new browser context, closed after the block) in this
    process's headless chromium — or, with ``extra_args``, in a chromium of its own started
    with them too and closed after the block; if the block fails, a full-page screenshot
    goes to ``output/<failure_picture>`` before the error is raised."""
    OUTPUT.mkdir(exist_ok=True)
    with shared_chromium.playwright_turn() as playwright, contextlib.ExitStack() as cleanup:
        if extra_args:
            browser = shared_chromium.launch(playwright, CHROMIUM, [*CHROMIUM_ARGS, *extra_args])
            cleanup.callback(browser.close)
        else:
            browser = shared_chromium.browser(playwright, CHROMIUM, CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": width, "height": height})
        cleanup.callback(context.close)  # before the browser's close: callbacks run last first
        page = context.new_page()
        try:
            yield page
        except BaseException:
            _failure_screenshot(page, failure_picture)
            raise


def _failure_screenshot(page: Any, failure_picture: str) -> None:
    """A full-page screenshot of ``page`` to ``output/<failure_picture>``, or a line saying
    why there is none: the test's own failure is the one to report."""
    try:
        page.screenshot(path=str(OUTPUT / failure_picture), full_page=True)
    except Exception as screenshot_error:
        print(f"(no failure screenshot: {screenshot_error})")


# This process's JupyterLab pages kept between tests, by server URL (notebook_page).
_app_pages: dict[str, Any] = {}
_app_workspaces = itertools.count()

# After a test: every document of the main area closed without a "save?" question (the
# notebooks are on disk, and the server shuts their kernels down), then whether a dialog is
# left open over the app, which would make the page unfit for the next test.
_CLOSE_DOCUMENTS = """() => {
    for (const widget of Array.from(window.jupyterapp.shell.widgets('main'))) widget.dispose();
    return document.querySelector('.jp-Dialog') === null;
}"""


@contextlib.contextmanager
def notebook_page(server: Server, width: int, height: int, failure_picture: str) -> Iterator[Any]:
    """A page for ``server``'s notebooks, ``width`` × ``height``. In JupyterLab, this process's
    one page of the app on that server: loaded by the first block that asks for it (in a
    workspace of its own), kept for the next ones, its viewport set to the size asked.
    :func:`open_notebook` opens a notebook in it without loading the app again (a JupyterLab
    page load costs about 4 CPU-s, opening a notebook in the loaded app about 1); after the
    block every document is closed. If the block fails, a full-page screenshot goes to
    ``output/<failure_picture>`` and the page is closed, as it is when the block leaves a
    dialog open, so the next block loads the app afresh. Other frontends open each notebook
    as a page of its own: there it is a :func:`chromium_page`."""
    if server.frontend != "lab":
        with chromium_page(width, height, failure_picture) as page:
            yield page
        return
    OUTPUT.mkdir(exist_ok=True)
    with shared_chromium.playwright_turn() as playwright:
        page = _app_pages.get(server.url)
        if page is None or page.is_closed():
            page = _app_pages[server.url] = _load_app(playwright, server.url)
        page.set_viewport_size({"width": width, "height": height})
        try:
            yield page
            fit_for_the_next = page.evaluate(_CLOSE_DOCUMENTS)
        except BaseException:
            _failure_screenshot(page, failure_picture)
            fit_for_the_next = False
            raise
        finally:
            if not fit_for_the_next:
                del _app_pages[server.url]
                page.context.close()


def _load_app(playwright: Any, url: str) -> Any:
    """A page of JupyterLab at ``url``, in a new context and a new workspace, once the app
    has restored its layout; the context is closed if the app does not load."""
    context = shared_chromium.browser(playwright, CHROMIUM, CHROMIUM_ARGS).new_context()
    try:
        page = context.new_page()
        page.goto(f"{url}/lab/workspaces/openprogram-app-{next(_app_workspaces)}")
        page.wait_for_function("() => window.jupyterapp", timeout=60_000)
        page.evaluate("async () => { await window.jupyterapp.restored; }")
    except BaseException:
        context.close()
        raise
    return page


def close_app_pages() -> None:
    """Close this process's kept JupyterLab pages (:func:`notebook_page`), if any."""
    if not _app_pages:
        return
    with shared_chromium.playwright_turn():
        for page in _app_pages.values():
            if not page.is_closed():
                page.context.close()
    _app_pages.clear()


def write_notebook(root: Path, name: str, cells: list[str], kernel: str = "python3") -> str:
    """A notebook of code ``cells`` at ``root/name`` for ``kernel``; returns ``name``."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nbformat.write(notebook, root / name)
    return name


def open_notebook(page: Any, address: str) -> None:
    """Open the notebook at ``address`` (JupyterLab's or Notebook 7's page) and wait for its
    kernel: in a kept JupyterLab page of its server (:func:`notebook_page`) as a new tab of
    the loaded app, in any other page by going to ``address``."""
    if any(page is kept and address.startswith(f"{url}/lab/") for url, kept in _app_pages.items()):
        path = unquote(address.split("/tree/", 1)[1])
        page.evaluate("async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
        page.wait_for_function(
            "(path) => { const widget = window.jupyterapp.shell.currentWidget;"
            " return widget && widget.context && widget.context.path === path; }",
            arg=path,
            timeout=60_000,
        )
    else:
        page.goto(address)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel",
        timeout=60_000,
    )


def open_and_run_all(page: Any, address: str) -> None:
    """Open the notebook at ``address``, wait for its kernel, and Run All."""
    open_notebook(page, address)
    # Not awaited: the command's promise resolves only when every cell has run.
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")


EXECUTION_COUNT = "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.executionCount"


def start_cell(page: Any, index: int) -> int | None:
    """Run the open notebook's cell ``index`` alone (Run ▸ Run Selected Cell, without
    advancing) and return its execution count from before, for :func:`wait_cell`."""
    before = page.evaluate(EXECUTION_COUNT, index)
    page.evaluate(
        """(i) => { const panel = window.jupyterapp.shell.currentWidget;
                    panel.content.activeCellIndex = i;
                    window.jupyterapp.commands.execute('notebook:run-cell'); }""",
        index,
    )
    return before


def wait_cell(page: Any, index: int, before: int | None, timeout: int = 60_000) -> str:
    """Wait until cell ``index`` has a new execution count (the kernel has answered its
    run) and return its output area's text."""
    page.wait_for_function(
        f"(a) => {{ const n = ({EXECUTION_COUNT})(a[0]); return n !== null && n !== a[1]; }}",
        arg=[index, before],
        timeout=timeout,
    )
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea").inner_text()


def run_cell(page: Any, index: int, timeout: int = 60_000) -> str:
    """Run cell ``index`` alone, wait until the kernel has answered it, return its output's text."""
    return wait_cell(page, index, start_cell(page, index), timeout)
