"""One run's menu: the entries a caller gives, turned into tools, narrowed by the gating
layers of :mod:`.registry`, and what is sent to the model each round (deferred tools and
``tool_search`` included)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..core.errors import ArgumentError, SetupError
from ._jsonschema import validate_json_schema
from ._menu_changes import change_line, followed_toolsets, toolset_changes
from .base import DICT_TOOL_KEYS, SEARCH_TOOL_NAME, ExternalTool, Tool, ToolContext, ToolOptions, refuse_reserved_name
from .function import function
from .registry import Registry, _check_toolset, _denied, _hidden_by, check_menu_names

if TYPE_CHECKING:
    from ..core._engine_shapes import RuntimeLike

__all__ = ["SEARCH_TOOL_NAME", "Menu", "as_tool", "as_tools", "resolve_menu", "toolset_of"]


def as_tool(entry: object) -> Tool:
    """Normalize one menu entry to a :class:`Tool`; raise ``TypeError`` saying what is wrong.

    A plain callable becomes an unregistered ``@function``; a dict needs ``spec`` and
    ``execute`` (and may carry ``requires_approval``, ``timeout``, ``max_result_chars``, ``render``).
    """
    if isinstance(entry, Tool):
        return entry
    if isinstance(entry, dict):
        if "spec" not in entry or "execute" not in entry:
            raise SetupError(f"a tool dict needs 'spec' and 'execute' keys; got keys {sorted(map(str, entry))}")
        unknown = sorted(map(str, set(entry) - DICT_TOOL_KEYS))
        if unknown:
            raise SetupError(f"a tool dict has unknown key(s) {unknown}; allowed: {sorted(DICT_TOOL_KEYS)}")
        return ExternalTool(entry["spec"], entry["execute"], entry)
    if hasattr(entry, "spec") and hasattr(entry, "execute"):
        return ExternalTool(entry.spec, entry.execute, entry)
    if callable(entry):
        return function(entry, register_globally=False)
    raise SetupError(
        f"{entry!r} is not a tool: use @function, a {{'spec', 'execute'}} dict, an object "
        "with .spec and .execute, or a toolset (an op.mcp(...) server, an object with .tools)"
    )


def toolset_of(entry: object) -> list[object] | None:
    """The tools of a toolset entry — an MCP server (``op.mcp(...)``) or any object whose
    ``.tools`` is a non-empty list or tuple of tools, as ``tools=[server]`` gives it — or
    ``None`` for anything else (one tool; a Run, whose ``.tools`` are names)."""
    if isinstance(entry, (Tool, dict)) or hasattr(entry, "execute"):
        return None
    tools = getattr(entry, "tools", None)
    if not isinstance(tools, (list, tuple)) or not tools:
        return None
    return list(tools) if all(isinstance(t, Tool) or hasattr(t, "execute") for t in tools) else None


def as_tools(entries: Sequence[object]) -> list[Tool]:
    """Normalize a ``tools=[...]`` list, each toolset (:func:`toolset_of`) standing for
    its tools in place; a name given twice raises ``ValueError``."""
    flat = [tool for entry in entries for tool in (toolset_of(entry) or [entry])]
    tools = [as_tool(entry) for entry in flat]
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise SetupError(f"two tools are named {tool.name!r}; tool names must be unique")
        seen.add(tool.name)
    return tools


class Menu:
    """One run's tools: what the model may pick, and which schemas it has been sent.

    ``specs()`` is what goes to the model this round: every non-deferred tool, every
    deferred tool loaded by ``tool_search`` so far, and ``tool_search`` itself whenever
    the menu holds a deferred tool (loaded or not). ``get(name)`` finds any tool on the
    menu, deferred or not, so a call to a deferred tool by name is still validated and run.
    A tool in ``tools`` named ``tool_search`` raises :class:`SetupError`, deferred tools or
    not: the name is the package's search's (:data:`~.base.SEARCH_TOOL_NAME`).
    """

    def __init__(
        self, tools: Sequence[Tool], *, explicit: bool, admits: Callable[[str], bool] = lambda name: True
    ) -> None:
        for tool in tools:
            refuse_reserved_name(tool.name, SetupError, "rename it")
        self.explicit = explicit
        self.admits = admits  # whether a tool a server adds mid-run may join (the run's allow/deny lists)
        self._followed = followed_toolsets(tools)
        self._tools: dict[str, Tool] = {tool.name: tool for tool in tools}
        self._deferred = [t.name for t in tools if t.options.defer]
        self._loaded: set[str] = set()
        self._search = _ToolSearch(self) if self._deferred else None
        if self._search is not None:
            self._tools[self._search.name] = self._search
        self._specs_cache: list[dict[str, Any]] | None = None

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self) -> list[JsonObject]:
        if self._specs_cache is None:
            self._specs_cache = [
                tool.spec
                for tool in self._tools.values()
                if tool.name not in self._deferred or tool.name in self._loaded
            ]
        return self._specs_cache

    def refuse_added(self, refuses: Callable[[str], bool]) -> None:
        """A tool an MCP server adds while the run goes on does not join when ``refuses(name)``."""
        admits = self.admits
        self.admits = lambda name: admits(name) and not refuses(name)

    async def take_toolset_changes(self) -> list[str]:
        """Take in what the MCP servers on this menu added and removed since the last time
        (:mod:`._menu_changes`); one line per server that changed the menu."""
        if not self._followed:
            return []
        lines = []
        changes = await toolset_changes(
            self._followed,
            lambda toolset: [name for name, tool in self._tools.items() if getattr(tool, "server", None) is toolset],
            self.admits,
        )
        for server, removed, added in changes:
            for name in removed:
                self._tools.pop(name, None)
            for tool in added:
                self._tools[tool.name] = tool
                if tool.options.defer and self._search is not None:
                    self._deferred.append(tool.name)
            self._deferred = [name for name in self._deferred if name in self._tools]
            self._specs_cache = None
            lines.append(change_line(server, removed, added))
        return lines

    def deferred_tools(self) -> list[Tool]:
        """The deferred tools, in menu order (loaded or not)."""
        return [self._tools[name] for name in self._deferred]

    @property
    def pending_deferred(self) -> list[str]:
        return [name for name in self._deferred if name not in self._loaded]

    def load(self, names: Iterable[str]) -> None:
        self._loaded.update(names)
        self._specs_cache = None

    def search(self, query: str) -> list[Tool]:
        """Deferred tools matching ``query``: an exact name; else those whose name or description
        holds every word (case-insensitive); else those holding any word."""
        deferred = self.deferred_tools()
        exact = [t for t in deferred if t.name == query.strip()]
        if exact:
            return exact
        words = [w for w in query.lower().split() if w]
        return [t for t in deferred if words and all(w in f"{t.name} {t.description}".lower() for w in words)] or [
            t for t in deferred if any(w in f"{t.name} {t.description}".lower() for w in words)
        ]


class _ToolSearch(Tool):
    """``tool_search(query)``: loads deferred tools' schemas for the next round."""

    name = SEARCH_TOOL_NAME

    def __init__(self, menu: Menu) -> None:
        self._menu = menu
        self.options = ToolOptions()
        self.parameters = {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "A tool name, or a few words describing the task."},
            },
            "required": ["query"],
            "additionalProperties": False,
        }

    @property
    def description(self) -> str:  # type: ignore[override]  # read-only: it follows the menu's catalog
        catalog = "\n".join(f"- {tool.name}: {tool.summary}" for tool in self._menu.deferred_tools())
        return (
            "Load the full schema of one or more of the tools below so you can call them; "
            "their schemas are sent from your next turn on.\n" + catalog
        )

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        problems = validate_json_schema(arguments, self.parameters)
        if problems:
            raise ArgumentError(problems)
        return {"query": arguments["query"]}

    async def _run(self, query: str) -> str:
        found = self._menu.search(query)
        if not found:
            names = ", ".join(tool.name for tool in self._menu.deferred_tools())
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
    runtime: RuntimeLike | None = None,
) -> Menu:
    """Build one run's menu by applying the gating layers.

    ``tools=[...]`` (even empty) is the caller's explicit choice: layers 2–4 are skipped,
    layer 5 still applies. ``toolset="none"`` gives an empty menu; another toolset name
    takes the registered tools tagged with it (an unknown name raises ``ValueError``
    listing the known ones). A name in ``tools_allow`` / ``tools_deny`` that no tool has
    raises ``ValueError``: a typo there would otherwise silently change the menu.
    Passing both ``tools`` and ``toolset`` raises ``ValueError``.
    """
    explicit = tools is not None or toolset is not None
    if tools is not None and toolset is not None:
        raise SetupError("pass tools=[...] or toolset=..., not both")
    _check_toolset(registry, toolset)
    if tools is not None:
        candidates = as_tools(list(tools))
    elif toolset == "none":
        candidates = []
    else:
        candidates = [
            t
            for t in registry
            if (toolset is None or toolset in t.options.toolset)
            and _hidden_by(t, tools_source=tools_source, runtime=runtime) is None
        ]
    allow = set(tools_allow) if tools_allow is not None else None
    deny = set(tools_deny or ())
    check_menu_names(registry, allow, deny, {t.name for t in candidates})
    session = set(session_deny)
    chosen = [t for t in candidates if _denied(t.name, allow, deny, session) is None]
    return Menu(chosen, explicit=explicit, admits=lambda name: _denied(name, allow, deny, session) is None)
