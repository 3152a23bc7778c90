"""The browser tests' Jupyter servers on 127.0.0.1 with fresh settings, no token.

Each worker process starts one server per frontend, the first time one of its tests asks
for that frontend, and stops it at the end of the session. Each test gets a folder of its
own under the server's root (its :attr:`lab.Server.root`) and, in JupyterLab, a workspace
of its own for a page it loads itself (so that page never restores another test's tabs;
a page kept by :func:`lab.notebook_page` has a workspace of its own); when the test ends, every
session and kernel left on the server is shut down. The ``lab`` fixture is JupyterLab's
:class:`lab.Server`; the ``jupyter`` fixture is JupyterLab's, then Notebook 7's. The
worker's shared Playwright driver and chromium (:mod:`shared_chromium`) are stopped at the
end of the session too, and the JupyterLab pages it keeps for :func:`lab.notebook_page`
after the last browser test it runs in a row.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import shared_chromium
from .lab import FRONTENDS, REPO, Server, close_app_pages


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts real kernels or a browser (part of the default suite)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _server_command(frontend: str, port: int, root: Path) -> list[str]:
    """JupyterLab's, Notebook 7's or nbclassic's server on 127.0.0.1:``port``: no token, no
    password, no XSRF check; JupyterLab's and Notebook 7's app exposed to the page as
    ``window.jupyterapp``."""
    app, app_class = {
        "lab": ("jupyterlab", "LabApp"),
        "notebook7": ("notebook", "JupyterNotebookApp"),
        "nbclassic": ("nbclassic", None),
    }[frontend]
    command = [
        sys.executable,
        "-m",
        app,
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--ServerApp.root_dir={root}",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
    ]
    if app_class is not None:  # nbclassic's page has its own global, ``Jupyter``
        command.append(f"--{app_class}.expose_app_in_browser=True")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return command


@contextlib.contextmanager
def _serve(home: Path, frontend: str) -> Iterator[str]:
    """A ``frontend`` server of ``home / "root"`` with fresh settings and workspaces under
    ``home``; yields its URL; stopped on exit."""
    root = home / "root"
    root.mkdir()
    # No "get notified about Jupyter news?" toast over the notebook (and no fetching it).
    notification = home / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "OPENPROGRAM_MODEL": "offline",
    }
    log = open(home / "server.log", "w")  # handed to the server process, closed below
    server = subprocess.Popen(
        _server_command(frontend, port, root), env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server, home / "server.log")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _wait_until_up(url: str, server: subprocess.Popen, log: Path) -> None:
    """Return once ``url`` answers ``/api/status``; fail with the log's tail if the server
    exits or 90 s pass first."""
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                # the log says why; the last refused connection adds nothing
                raise AssertionError("the Jupyter server did not start:\n" + log.read_text()[-3000:]) from None
            time.sleep(0.3)


class _Servers:
    """This worker's servers, one per frontend, each started the first time it is asked
    for (under ``base / frontend``) and stopped by :meth:`close`."""

    def __init__(self, base: Path) -> None:
        self._base = base
        self._urls: dict[str, str] = {}
        self._stack = contextlib.ExitStack()

    def url(self, frontend: str) -> str:
        if frontend not in self._urls:
            home = self._base / frontend
            home.mkdir()
            self._urls[frontend] = self._stack.enter_context(_serve(home, frontend))
        return self._urls[frontend]

    def root(self, frontend: str) -> Path:
        return self._base / frontend / "root"

    def close(self) -> None:
        self._stack.close()


def pytest_runtest_teardown(item, nextitem):
    """After the last browser test this process runs in a row, its kept JupyterLab pages
    are closed: an open page polls its server, about 0.03 CPU-s a second, through all the
    tests that follow."""
    if nextitem is None or nextitem.path.parent != item.path.parent:
        close_app_pages()


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory) -> Path:
    """The JupyterLite site as a teacher builds it: ``bash scripts/build_lite.sh OUTPUT_DIR``,
    from the environment ``OPENPROGRAM_LITE_PYTHON`` names (``.ci/run``'s ``.venvs/lite``:
    the [lite] extra is kept out of this one, whose JupyterLab its lab extension would
    break), else this interpreter. Built once per process (about 5 CPU-s); no test writes
    to it."""
    site = tmp_path_factory.mktemp("lite") / "site"
    built = subprocess.run(
        ["bash", str(REPO / "scripts" / "build_lite.sh"), str(site)],
        env={**os.environ, "PYTHON": os.environ.get("OPENPROGRAM_LITE_PYTHON", sys.executable)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return site


@pytest.fixture(scope="session", autouse=True)
def _shared_chromium_stopped() -> Iterator[None]:
    """This process's Playwright driver and chromium (:mod:`shared_chromium`), stopped at
    the end of the session."""
    yield
    shared_chromium.stop()


@pytest.fixture(scope="session")
def _jupyter_servers(tmp_path_factory) -> Iterator[_Servers]:
    servers = _Servers(tmp_path_factory.mktemp("jupyter-servers"))
    try:
        yield servers
    finally:
        servers.close()


def _api(method: str, address: str) -> object:
    """The JSON answer of the Jupyter server's REST call (``None`` for an empty answer)."""
    with urllib.request.urlopen(urllib.request.Request(address, method=method), timeout=30) as answer:
        body = answer.read()
    return json.loads(body) if body else None


def _shut_down_kernels(url: str) -> None:
    """Delete every session on the server at ``url`` (which shuts its kernel down), then
    every kernel left without a session."""
    for session in _api("GET", f"{url}/api/sessions"):  # type: ignore[union-attr]
        _api("DELETE", f"{url}/api/sessions/{session['id']}")
    for kernel in _api("GET", f"{url}/api/kernels"):  # type: ignore[union-attr]
        _api("DELETE", f"{url}/api/kernels/{kernel['id']}")


@contextlib.contextmanager
def _test_place(servers: _Servers, frontend: str) -> Iterator[Server]:
    """A :class:`Server` of this worker's ``frontend`` server whose root is a new folder
    of its own and whose JupyterLab workspace is named after that folder; the sessions and
    kernels left on the server are shut down on exit."""
    url = servers.url(frontend)
    server_root = servers.root(frontend)
    folder = Path(tempfile.mkdtemp(prefix="test-", dir=server_root))
    try:
        yield Server(url, folder, frontend, folder.relative_to(server_root).as_posix(), folder.name)
    finally:
        _shut_down_kernels(url)


@pytest.fixture
def lab(_jupyter_servers):
    """JupyterLab's :class:`Server` on 127.0.0.1 (this worker's, shared), a folder and a
    workspace of this test's own."""
    with _test_place(_jupyter_servers, "lab") as server:
        yield server


@pytest.fixture(params=FRONTENDS)
def jupyter(_jupyter_servers, request):
    """A :class:`Server` of each frontend in turn — JupyterLab, then Notebook 7 — on
    127.0.0.1 (this worker's, shared), a folder and a workspace of this test's own; a test
    that parametrizes ``jupyter`` indirectly gets the frontends it names (``"nbclassic"``
    too)."""
    with _test_place(_jupyter_servers, request.param) as server:
        yield server
