"""The tool registry and the six gating layers that narrow it into one run's menu.

A registered tool is usable with zero configuration; every layer only narrows:

1. ``available_if`` — decided at decoration; false → never registered.
2. ``expose=False`` — Python may call it, the model never sees it.
   2b. ``toolset=`` presets — ``exec(toolset="name")`` takes only that preset.
3. ``unsafe_in`` — hidden when the call's ``tools_source`` is listed.
4. ``check_fn`` / ``requires_env`` / ``can_use`` — dropped when it cannot run now.
5. ``tools_allow`` / ``tools_deny`` per call, and the Runtime's session deny list.
6. ``defer=True`` — only a one-line catalog entry until ``tool_search`` loads it.

An explicit ``tools=[...]`` bypasses layers 2–4 (the caller chose) but not 5.
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .base import Tool, ToolContext, ToolOptions, as_tools

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["Menu", "Registry", "ToolReport", "default_registry", "resolve_menu"]


class Registry:
    """Tools by name. Registering a name again replaces the old tool (cells get re-run)."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._unavailable: dict[str, Tool] = {}
        self._lock = threading.Lock()

    def register(self, tool: Tool) -> Tool:
        with self._lock:
            self._unavailable.pop(tool.name, None)
            self._tools[tool.name] = tool
        return tool

    def mark_unavailable(self, tool: Tool) -> None:
        """Record a tool whose ``available_if`` was false (shown by :meth:`explain` only)."""
        with self._lock:
            self._tools.pop(tool.name, None)
            self._unavailable[tool.name] = tool

    def unregister(self, name: str) -> None:
        with self._lock:
            self._tools.pop(name, None)
            self._unavailable.pop(name, None)

    def clear(self) -> None:
        with self._lock:
            self._tools.clear()
            self._unavailable.clear()

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def toolsets(self) -> set[str]:
        return {name for tool in self for name in tool.options.toolset}

    def explain(self, *, tools_source: str | None = None, runtime: Runtime | None = None) -> list[ToolReport]:
        """Every known tool with the layer that hides it from the default menu (or ``None``)."""
        reports = [ToolReport(t.name, t.spec, "available_if: false at decoration") for t in self._unavailable.values()]
        session_deny = tuple(runtime.tools_deny) if runtime is not None else ()
        for tool in self:
            hidden = _hidden_by(tool, tools_source=tools_source, runtime=runtime) or (
                "session deny list" if tool.name in session_deny else None
            )
            if hidden is None and tool.options.defer:
                hidden = "defer=True: listed in the tool_search catalog, schema loaded on demand"
            reports.append(ToolReport(tool.name, tool.spec, hidden))
        return sorted(reports, key=lambda r: (r.hidden_by is not None, r.name))


default_registry = Registry()
"""Where ``@function`` registers tools unless given ``register_globally=False``."""


@dataclass
class ToolReport:
    name: str
    spec: dict[str, Any]
    hidden_by: str | None


def _hidden_by(tool: Tool, *, tools_source: str | None, runtime: Runtime | None) -> str | None:
    """Which of layers 2–4 hides ``tool`` now, as a readable reason; ``None`` if none."""
    options: ToolOptions = tool.options
    if not options.expose:
        return "expose=False"
    if tools_source is not None and tools_source in options.unsafe_in:
        return f"unsafe_in: hidden when tools_source={tools_source!r}"
    missing = [name for name in options.requires_env if not os.environ.get(name)]
    if missing:
        return f"requires_env: {', '.join(missing)} not set"
    if options.check_fn is not None and not _safe_bool(options.check_fn):
        return "check_fn returned false"
    if options.can_use is not None:
        accepts_runtime = bool(inspect.signature(options.can_use).parameters)
        usable = _safe_bool(options.can_use, runtime) if accepts_runtime else _safe_bool(options.can_use)
        if not usable:
            return "can_use returned false"
    return None


def _safe_bool(check: Any, *args: Any) -> bool:
    """A check that raises counts as false: a broken tool is not offered."""
    try:
        return bool(check(*args))
    except Exception:
        return False


class Menu:
    """One run's tools: what the model may pick, and which schemas it has been sent.

    ``specs()`` is what goes to the model this round: every non-deferred tool, every
    deferred tool loaded by ``tool_search`` so far, and ``tool_search`` itself while any
    deferred tool remains. ``get(name)`` finds any tool on the menu, deferred or not.
    """

    def __init__(self, tools: Sequence[Tool], *, explicit: bool) -> None:
        self.explicit = explicit
        self._tools: dict[str, Tool] = {tool.name: tool for tool in tools}
        self._deferred = [t.name for t in tools if t.options.defer]
        self._loaded: set[str] = set()
        self._search = _ToolSearch(self) if self._deferred else None
        if self._search is not None:
            self._tools.setdefault(self._search.name, self._search)
        self._specs_cache: list[dict[str, Any]] | None = None

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self) -> list[dict[str, Any]]:
        if self._specs_cache is None:
            self._specs_cache = [
                tool.spec for tool in self._tools.values()
                if tool.name not in self._deferred or tool.name in self._loaded
            ]
        return self._specs_cache

    @property
    def pending_deferred(self) -> list[str]:
        return [name for name in self._deferred if name not in self._loaded]

    def load(self, names: Iterable[str]) -> None:
        self._loaded.update(names)
        self._specs_cache = None

    def search(self, query: str) -> list[Tool]:
        """Deferred tools matching ``query``: an exact name, else every word in name or summary."""
        deferred = [self._tools[name] for name in self._deferred]
        exact = [t for t in deferred if t.name == query.strip()]
        if exact:
            return exact
        words = [w for w in query.lower().split() if w]
        return [t for t in deferred if words and all(w in f"{t.name} {t.description}".lower() for w in words)] or [
            t for t in deferred if any(w in f"{t.name} {t.description}".lower() for w in words)
        ]


class _ToolSearch(Tool):
    """``tool_search(query)``: loads deferred tools' schemas for the next round."""

    name = "tool_search"

    def __init__(self, menu: Menu) -> None:
        self._menu = menu
        self.options = ToolOptions()
        self.parameters = {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "A tool name, or a few words describing the task."}},
            "required": ["query"],
            "additionalProperties": False,
        }

    @property
    def description(self) -> str:  # type: ignore[override]
        catalog = "\n".join(f"- {self._menu._tools[n].name}: {self._menu._tools[n].summary}" for n in self._menu._deferred)
        return (
            "Load the full schema of one or more of the tools below so you can call them; "
            "their schemas are sent from your next turn on.\n" + catalog
        )

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        from ._schema import ArgumentError

        query = arguments.get("query")
        if not isinstance(query, str) or set(arguments) != {"query"}:
            raise ArgumentError("invalid arguments:\n- query: expected one string argument 'query'")
        return {"query": query}

    async def _run(self, query: str) -> str:
        found = self._menu.search(query)
        if not found:
            names = ", ".join(self._menu._deferred)
            return f"No deferred tool matches {query!r}. Deferred tools: {names}."
        self._menu.load(t.name for t in found)
        return "Loaded: " + ", ".join(t.name for t in found) + ". You can call them from your next turn."

    def call(self, kwargs: dict[str, Any], context: ToolContext) -> Any:
        return self._run(kwargs["query"])


def resolve_menu(
    registry: Registry,
    *,
    tools: Sequence[object] | None = None,
    toolset: str | None = None,
    tools_source: str | None = None,
    tools_allow: Iterable[str] | None = None,
    tools_deny: Iterable[str] | None = None,
    session_deny: Iterable[str] = (),
    runtime: Runtime | None = None,
) -> Menu:
    """Build one run's menu by applying the gating layers.

    ``tools=[...]`` (even empty) is the caller's explicit choice: layers 2–4 are skipped.
    ``toolset="none"`` gives an empty menu; another toolset name takes the registered
    tools tagged with it (an unknown name raises ``ValueError`` listing the known ones).
    A name in ``tools_allow`` / ``tools_deny`` that no tool has raises ``ValueError``:
    a typo there would otherwise silently change the menu.
    """
    explicit = tools is not None or toolset is not None
    if tools is not None and toolset is not None:
        raise ValueError("pass tools=[...] or toolset=..., not both")
    if tools is not None:
        candidates = as_tools(list(tools))
    elif toolset == "none":
        candidates = []
    else:
        if toolset is not None and toolset not in registry.toolsets():
            known = ", ".join(sorted(registry.toolsets())) or "none defined"
            raise ValueError(f"unknown toolset {toolset!r}; known toolsets: {known} (or 'none')")
        candidates = [
            t for t in registry
            if (toolset is None or toolset in t.options.toolset)
            and _hidden_by(t, tools_source=tools_source, runtime=runtime) is None
        ]
    known_names = {t.name for t in candidates} | {t.name for t in registry}
    allow = set(tools_allow) if tools_allow is not None else None
    deny = set(tools_deny or ()) | set(session_deny)
    for label, names in (("tools_allow", allow or set()), ("tools_deny", set(tools_deny or ()))):
        unknown = sorted(names - known_names)
        if unknown:
            raise ValueError(f"{label} names unknown tool(s): {', '.join(unknown)}")
    chosen = [t for t in candidates if (allow is None or t.name in allow) and t.name not in deny]
    return Menu(chosen, explicit=explicit)
