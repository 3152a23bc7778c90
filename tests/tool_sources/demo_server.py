"""A real MCP server for the tests, built with the SDK's FastMCP (``MCPServer`` in mcp 2).

Run as ``python demo_server.py`` it speaks stdio; ``python demo_server.py http PORT`` serves
streamable HTTP on 127.0.0.1:PORT. Its tools: ``add``, ``fail`` (an error result),
``wait`` (sleeps, writing to a marker file when it starts and when it is cancelled),
``pid`` (the server's process id), ``crash`` (the process exits mid-call) and ``env_value``
(a variable of the server's environment, as a server that echoes its token would). With
``DEMO_BANNER`` set it prints a banner on stdout before it starts, as many real servers do
(once started, the SDK diverts what the process writes to stdout to stderr).
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("demo")


@server.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@server.tool()
def fail(why: str) -> str:
    """Always fails, saying why."""
    raise ValueError(why)


@server.tool()
async def wait(seconds: float, marker: str) -> str:
    """Sleep for a while; the marker file says "started", then "cancelled" if the call is cancelled."""
    with open(marker, "a") as out:
        out.write("started\n")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        with open(marker, "a") as out:
            out.write("cancelled\n")
        raise
    return f"slept {seconds} s"


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def env_value(name: str) -> str:
    """The value of a variable in the server's environment."""
    return os.environ.get(name, "")


@server.tool()
def crash() -> str:
    """End the server's process in the middle of the call."""
    sys.stderr.write("demo server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("DEMO_BANNER"):
        os.write(1, b"demo server 1.0 starting (a banner on stdout)\n")
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
