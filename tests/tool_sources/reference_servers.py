"""The MCP reference server from npm (``@modelcontextprotocol/server-everything``), pinned in
tests/mcp_servers and installed there by ``.ci/run`` (``npm ci``): its stdio command, and
its streamable HTTP transport on 127.0.0.1. Nothing here reaches the network."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from .servers import free_port, listening

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
    env = {**os.environ, "PORT": str(port)}
    with listening(everything_command("streamableHttp"), port, "server-everything", env) as url:
        yield url


__all__ = ["EVERYTHING", "everything_command", "everything_http"]
