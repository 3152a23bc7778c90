"""A run's menu following the tools its MCP servers add and remove while the run goes on.

A server says its tools changed (``notifications/tools/list_changed``); its
:class:`~.mcp_source.McpServer` lists them again and counts the change in ``generation``.
Before each round the loop asks the menu (:meth:`~.menu.Menu.take_toolset_changes`), which
asks every server whose tools it holds: a tool the server dropped leaves the menu; a tool it
added joins when the menu held all of that server's tools (the server was on it as a
whole, not one tool picked out of it) and the run's allow and deny lists let it. Each
server that changed the menu gives one line for the round's notice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .base import Tool

__all__ = ["ChangingToolset", "FollowedToolset", "change_line", "followed_toolsets", "toolset_changes"]


@runtime_checkable
class ChangingToolset(Protocol):
    """A toolset whose tools may change while a run uses them (an MCP server)."""

    name: str
    tools: list[Any]
    generation: int

    async def settled(self, timeout: float = ...) -> None: ...


@dataclass
class FollowedToolset:
    """One changing toolset a menu holds tools of: the change it last took, and whether it
    held every tool of it (then new tools join)."""

    toolset: ChangingToolset
    generation: int
    whole: bool


def followed_toolsets(tools: Iterable[Tool]) -> list[FollowedToolset]:
    """The changing toolsets (a tool's ``server``) that ``tools`` hold tools of."""
    names = {tool.name for tool in tools}
    found: dict[int, ChangingToolset] = {}
    for tool in tools:
        toolset = getattr(tool, "server", None)
        if isinstance(toolset, ChangingToolset):
            found.setdefault(id(toolset), toolset)
    return [
        FollowedToolset(toolset, toolset.generation, all(tool.name in names for tool in toolset.tools))
        for toolset in found.values()
    ]


async def toolset_changes(
    followed: Sequence[FollowedToolset],
    held: Callable[[ChangingToolset], list[str]],
    admits: Callable[[str], bool],
) -> list[tuple[str, list[str], list[Tool]]]:
    """For each followed toolset that changed since the menu last asked (a listing under way
    is waited for, briefly): its name, the names ``held`` on the menu that it no longer has,
    and its new tools the menu takes (``whole`` and ``admits``)."""
    changes = []
    for entry in followed:
        toolset = entry.toolset
        await toolset.settled()
        if toolset.generation == entry.generation:
            continue
        entry.generation = toolset.generation
        current = {tool.name: tool for tool in toolset.tools}
        on_menu = held(toolset)
        removed = [name for name in on_menu if name not in current]
        added = [tool for name, tool in current.items() if name not in on_menu and admits(name)] if entry.whole else []
        if removed or added:
            changes.append((toolset.name, removed, added))
    return changes


def change_line(server: str, removed: Sequence[str], added: Sequence[Tool]) -> str:
    """``docs changed its tools: added docs_a, docs_b; removed docs_c`` (one line)."""
    parts = []
    if added:
        parts.append("added " + ", ".join(tool.name for tool in added))
    if removed:
        parts.append("removed " + ", ".join(removed))
    return f"the MCP server {server} changed its tools: " + "; ".join(parts)
