"""A stand-in MCP server (the SDK's FastMCP, ``MCPServer``; stdio) for the client features the
npm reference server lacks or shows only by chance:

- ``whoami``: the name and version the client introduced itself with;
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("feature")


@server.tool()
async def whoami(ctx: Context) -> str:
    """The client's name and version, as it introduced itself."""
    params = ctx.request_context.session.client_params
    return f"{params.client_info.name} {params.client_info.version}" if params else "not introduced"


if __name__ == "__main__":
    server.run()
