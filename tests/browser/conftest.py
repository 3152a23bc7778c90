"""The browser tests' servers on 127.0.0.1 with fresh settings: JupyterLab (the ``lab``
fixture), or JupyterLab then Notebook 7 (the ``jupyter`` fixture, a :class:`lab.Server`)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .lab import FRONTENDS, Server


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
def _serve(tmp_path: Path, frontend: str) -> Iterator[Server]:
    """A ``frontend`` server with fresh settings and workspaces, stopped on exit."""
    root = tmp_path / "root"
    root.mkdir()
    # No "get notified about Jupyter news?" toast over the notebook (and no fetching it).
    notification = tmp_path / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "OPENPROGRAM_MODEL": "offline",
    }
    log = open(tmp_path / "server.log", "w")  # handed to the server process, closed below
    server = subprocess.Popen(
        _server_command(frontend, port, root), env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server, tmp_path / "server.log")
        yield Server(url, root, frontend)
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


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 with fresh settings and workspaces, no token:
    ``(url, root)``."""
    with _serve(tmp_path, "lab") as server:
        yield server.url, server.root


@pytest.fixture(params=FRONTENDS)
def jupyter(tmp_path, request):
    """A :class:`Server` of each frontend in turn — JupyterLab, then Notebook 7 — on
    127.0.0.1 with fresh settings, no token; a test that parametrizes ``jupyter``
    indirectly gets the frontends it names (``"nbclassic"`` too)."""
    with _serve(tmp_path, request.param) as server:
        yield server
