"""A server's ``tools/list`` made into its tools here, and what changed since the last one.

Each remote tool gets a name every provider accepts (``prefix + name``, letters, digits,
``_`` and ``-``, 64 characters at most); names that clash once made valid are kept apart
with ``_2``, ``_3``…; one whose name here would be ``tool_search`` (the package's own
tool search) is left off, saying so. A tool already made for an earlier listing is kept (the same object,
its description and schema updated), so a menu holding it still finds it. Nothing here
talks to the server: :mod:`.mcp_source` hands in the SDK's tool objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .base import SEARCH_TOOL_NAME

__all__ = ["ListedTool", "Listing", "hints_of", "listing", "task_only", "tool_name", "unique_tool_names"]

_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_-]+")


class ListedTool(Protocol):
    """What a listing keeps of a tool made for a remote tool."""

    name: str
    remote_name: str

    def update(self, remote: Any) -> None: ...


@dataclass
class Listing:
    """The tools of one listing, in the server's order, and how they differ from the last.

    ``renamed``: remote name → the name here, where it is not plain ``prefix + name``;
    ``added`` / ``removed``: names here; ``left_off``: remote name → why it is not offered.
    """

    tools: list[Any]
    renamed: dict[str, str] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    left_off: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def listing(
    prefix: str,
    remote_tools: Sequence[Any],
    old_tools: Sequence[ListedTool],
    make: Callable[[Any, str], ListedTool],
    left_off: Callable[[Any], str | None] = lambda remote: None,
) -> Listing:
    """The tools for ``remote_tools`` (the SDK's ``Tool`` objects): each one ``left_off``
    gives a reason for is not offered, nor one whose name here would be ``tool_search``; a
    remote tool with the same name here as one of ``old_tools`` keeps that tool, updated;
    the others are ``make(remote, name)``."""
    offered = []
    skipped: dict[str, str] = {}
    for remote in remote_tools:
        why = left_off(remote) or _reserved(prefix, remote.name)
        if why is None:
            offered.append(remote)
        else:
            skipped[remote.name] = why
    names = unique_tool_names(prefix, [remote.name for remote in offered])
    old = {(tool.remote_name, tool.name): tool for tool in old_tools}
    tools = []
    for remote, name in zip(offered, names, strict=True):
        tool = old.get((remote.name, name))
        if tool is None:
            tool = make(remote, name)
        else:
            tool.update(remote)
        tools.append(tool)
    old_names = [tool.name for tool in old_tools]
    return Listing(
        tools=tools,
        renamed={
            remote.name: name
            for remote, name in zip(offered, names, strict=True)
            if name != tool_name(prefix, remote.name)
        },
        added=[name for name in names if name not in old_names],
        removed=[name for name in old_names if name not in names],
        left_off=skipped,
    )


def _reserved(prefix: str, remote: str) -> str | None:
    """Why a remote tool is not offered when its name here would be the package's search."""
    if tool_name(prefix, remote) != SEARCH_TOOL_NAME:
        return None
    return (
        f"its name here would be {SEARCH_TOOL_NAME!r}, the package's own tool search; "
        "connect the server with a prefix (op.mcp(..., prefix='docs_')) to offer it"
    )


def task_only(remote: Any) -> str | None:
    """Why ``remote`` is not offered, if it can only run as a task (``execution.taskSupport``
    ``"required"``): the SDK's client has no way to run one, and a plain call to it always
    fails (-32601)."""
    execution = getattr(remote, "execution", None)
    if getattr(execution, "task_support", None) == "required":
        return "it runs only as an MCP task, which this client does not run"
    return None


def hints_of(annotations: Any) -> tuple[str, ...]:
    """A tool's annotations (the SDK's ``ToolAnnotations``, or ``None``) in words, only
    those the server set to true: ``read-only``, else ``destructive`` (a read-only tool
    changes nothing, whatever its other hints say) and ``idempotent``, then ``open world``.
    The protocol's defaults (destructive and open world when unsaid) are not assumed."""
    if annotations is None:
        return ()
    words = []
    if getattr(annotations, "read_only_hint", None) is True:
        words.append("read-only")
    else:
        if getattr(annotations, "destructive_hint", None) is True:
            words.append("destructive")
        if getattr(annotations, "idempotent_hint", None) is True:
            words.append("idempotent")
    if getattr(annotations, "open_world_hint", None) is True:
        words.append("open world")
    return tuple(words)


def unique_tool_names(prefix: str, remotes: list[str]) -> list[str]:
    """Each remote tool's name here (:func:`tool_name`); a name already taken by an earlier
    tool gets ``_2``, ``_3``… (still 64 characters at most), so no tool hides another."""
    taken: set[str] = set()
    names = []
    for remote in remotes:
        name = base = tool_name(prefix, remote)
        count = 1
        while name in taken:
            count += 1
            suffix = f"_{count}"
            name = base[: 64 - len(suffix)] + suffix
        taken.add(name)
        names.append(name)
    return names


def tool_name(prefix: str, remote: str) -> str:
    """``prefix + remote`` as a name every provider accepts (letters, digits, ``_``, ``-``; 64 at most)."""
    name = _NOT_A_NAME.sub("_", prefix + remote)
    return name[:64]
