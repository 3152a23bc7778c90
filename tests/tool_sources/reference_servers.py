"""The MCP reference server from npm (``@modelcontextprotocol/server-everything``), pinned in
tests/mcp_servers and installed there by ``.ci/run`` (``npm ci``): its stdio command, and
its streamable HTTP transport on 127.0.0.1. Nothing here reaches the network."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from .servers import free_port

SERVERS_DIR = Path(__file__).resolve().parents[1] / "mcp_servers"
EVERYTHING = SERVERS_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


def everything_command(transport: str = "stdio") -> list[str]:
    """``node …/server-everything/dist/index.js TRANSPORT``; a clear error if not installed."""
    node = shutil.which("node")
    if node is None or not EVERYTHING.is_file():
        raise RuntimeError(
            "the MCP reference server is not installed: run `npm ci --prefix tests/mcp_servers` "
            f"(node on PATH: {node is not None}; looked for {EVERYTHING})"
        )
    return [node, "--require", str(SERVERS_DIR / "loopback.cjs"), str(EVERYTHING), transport]


@contextlib.contextmanager
def everything_http() -> Iterator[str]:
    """server-everything over streamable HTTP on 127.0.0.1; yields its URL, ends its process."""
    port = free_port()
    process = subprocess.Popen(
        everything_command("streamableHttp"),
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server-everything did not start listening on 127.0.0.1")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


__all__ = ["EVERYTHING", "everything_command", "everything_http"]
