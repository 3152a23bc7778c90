"""A stand-in MCP server (the SDK's FastMCP, ``MCPServer``; stdio) for the client features the
npm reference server lacks or shows only by chance:

- ``whoami``: the name and version the client introduced itself with;
- ``grow(name)`` / ``shrink(name)``: add a tool called ``name`` (it answers ``hi from NAME``)
  or remove one, and announce the change (``notifications/tools/list_changed``);
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("feature")


@server.tool()
async def whoami(ctx: Context) -> str:
    """The client's name and version, as it introduced itself."""
    params = ctx.request_context.session.client_params
    return f"{params.client_info.name} {params.client_info.version}" if params else "not introduced"


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client its tools changed."""

    def added() -> str:
        return f"hi from {name}"

    server.add_tool(added, name=name, description=f"a tool grow added: {name}")
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.tool()
async def shrink(name: str, ctx: Context) -> str:
    """Remove the tool called ``name`` and tell the client its tools changed."""
    server.remove_tool(name)
    await ctx.notify_tools_changed()
    return f"removed {name}"


if __name__ == "__main__":
    server.run()
