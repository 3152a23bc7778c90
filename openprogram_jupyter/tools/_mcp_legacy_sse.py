"""Telling a server of MCP's old HTTP+SSE transport (protocol 2024-11-05) from one that is
down or absent, when the streamable HTTP handshake fails.

The SDK turns the HTTP status of a failed POST into a JSON-RPC error ("Not Found"), which
says nothing of why. So after a failed handshake the URL is asked directly: a server that
answers the streamable HTTP POST with 404 or 405 and a ``GET`` (``Accept:
text/event-stream``) with an event stream is an old SSE server, which this client does not
speak. Only the HTTP status and content type decide, never the text of a reply.
"""

from __future__ import annotations

import json

__all__ = ["PROBE_SECONDS", "legacy_sse_failure"]

PROBE_SECONDS = 5.0

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "openprogram-jupyter", "version": "probe"},
    },
}


async def legacy_sse_failure(url: str, headers: dict[str, str] | None) -> str | None:
    """The sentence for a failed handshake with ``url`` when it is an old SSE server
    (``this server speaks the old SSE transport, which is not supported: …``), else
    ``None`` (it is not, or asking it failed too)."""
    import httpx

    given = dict(headers or {})
    try:
        async with httpx.AsyncClient(timeout=PROBE_SECONDS, follow_redirects=False) as client:
            posted = await client.post(
                url,
                content=json.dumps(_INITIALIZE),
                headers={
                    **given,
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                },
            )
            if posted.status_code not in (404, 405):
                return None
            async with client.stream("GET", url, headers={**given, "Accept": "text/event-stream"}) as got:
                streams = got.status_code == 200 and got.headers.get("content-type", "").startswith("text/event-stream")
    except Exception:  # an address httpx refuses, a network error: no answer to go by
        return None
    if not streams:
        return None
    return (
        "this server speaks the old SSE transport, which is not supported: "
        f"{url} answered the streamable HTTP POST with {posted.status_code} and a GET with an event "
        "stream (MCP's HTTP+SSE transport of 2024-11-05). Connect to the server's streamable HTTP "
        "endpoint if it has one (often /mcp), or run it over stdio with command=[...]"
    )
