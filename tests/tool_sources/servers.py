"""Starting the demo MCP server: the stdio command, and an HTTP server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

DEMO_SERVER = Path(__file__).with_name("demo_server.py")
STDIO_COMMAND = [sys.executable, str(DEMO_SERVER)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def http_server() -> Iterator[str]:
    """The demo server on streamable HTTP at 127.0.0.1; yields its URL, ends its process."""
    port = free_port()
    with listening([sys.executable, str(DEMO_SERVER), "http", str(port)], port, "the demo MCP server") as url:
        yield url


@contextlib.contextmanager
def listening(command: list[str], port: int, what: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``command`` (an MCP server that listens on ``port`` of 127.0.0.1), wait up to 30 s
    for the port to take connections, yield its ``/mcp`` URL, and end the process after."""
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start listening on 127.0.0.1")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def process_exists(pid: int) -> bool:
    """Whether a process with this id is still running (a zombie counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone between the two looks
        return False


def wait_until_gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process_exists(pid):
            return True
        time.sleep(0.05)
    return False


__all__ = ["DEMO_SERVER", "STDIO_COMMAND", "http_server", "process_exists", "wait_until_gone"]
