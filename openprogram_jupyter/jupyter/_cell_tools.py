"""The tools a ``%%agent`` cell names: ``--tools`` (:func:`tools_named`) and ``--mcp`` (:func:`mcp_tools`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError

__all__ = ["mcp_tools", "tools_named"]


def tools_named(namespace: Mapping[str, Any], names: list[str]) -> list[Any]:
    """The tools ``--tools`` names: a notebook variable holding a tool or a toolset (an
    ``op.mcp(...)`` server: all its tools), else a registered tool's name."""
    from ..tools.menu import toolset_of
    from ..tools.registry import default_registry

    tools: list[Any] = []
    for name in names:
        value = namespace.get(name)
        if value is not None and hasattr(value, "spec") and hasattr(value, "name"):
            tools.append(value)
            continue
        toolset = toolset_of(value) if value is not None else None
        if toolset is not None:
            tools += toolset
            continue
        tool = default_registry.get(name)
        if tool is None:
            known = ", ".join(sorted(t.name for t in default_registry)) or "none registered yet"
            raise UsageError(f"%%agent: --tools names {name!r}, which is no tool (registered tools: {known})")
        tools.append(tool)
    return tools


def mcp_tools(namespace: Mapping[str, Any], names: list[str]) -> list[Any]:
    """The tools of each MCP server ``--mcp`` names: a notebook variable holding an
    ``op.mcp(...)`` server, or a connected server's name."""
    from ..tools.mcp_source import McpServer, mcp_server

    tools: list[Any] = []
    for name in names:
        value = namespace.get(name)
        server = value if isinstance(value, McpServer) else mcp_server(name)
        if server is None:
            raise UsageError(
                f"%%agent: --mcp {name}: no MCP server of that name; connect one with "
                f"{name} = op.mcp(command=[...]) or op.mcp(url=...)"
            )
        if server.closed:
            raise UsageError(f"%%agent: --mcp {name}: that MCP server was closed; connect it again with op.mcp")
        tools.extend(server.tools)
    return tools
