"""A hostile MCP server over stdio, written by hand (the SDK would refuse to serve this):
it answers the handshake, then lists a tool whose schema nests ``LEVELS`` deep (argv[1]).
"""

from __future__ import annotations

import json
import sys


def deep(levels):
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


LEVELS = int(sys.argv[1]) if len(sys.argv) > 1 else 400
for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "deep", "version": "1"},
        }
    elif method == "tools/list":
        result = {
            "tools": [
                {
                    "name": "nest",
                    "description": "Deep.",
                    "inputSchema": {"type": "object", "properties": {"v": deep(LEVELS)}},
                }
            ]
        }
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
    sys.stdout.flush()
