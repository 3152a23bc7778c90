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

from ._jsonschema import validate_json_schema
from ._schema import ArgumentError
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

    def __bool__(self) -> bool:
        # A registry is a place, not a collection: an empty one is still the one asked
        # for, so `registry or default_registry` must not swap it for the default.
        return True

    def toolsets(self) -> set[str]:
        return {name for tool in self for name in tool.options.toolset}

    def explain(
        self,
        *,
        toolset: str | None = None,
        tools_source: str | None = None,
        tools_allow: Iterable[str] | None = None,
        tools_deny: Iterable[str] | None = None,
        runtime: Runtime | None = None,
    ) -> list[ToolReport]:
        """Every known tool, and the first layer that keeps it off a menu built from this
        registry with these arguments (``hidden_by`` / ``layer`` are ``None`` when it is on).

        Takes the arguments of :func:`resolve_menu` (without ``tools=``, which bypasses the
        registry) and raises the same ``ValueError`` for an unknown toolset or tool name.
        A deferred tool counts as hidden by layer 6: only its catalog line is sent.
        """
        _check_toolset(self, toolset)
        allow = set(tools_allow) if tools_allow is not None else None
        deny = set(tools_deny or ())
        _check_names(self, allow, deny, set())
        session_deny = set(runtime.tools_deny) if runtime is not None else set()
        reports = [ToolReport(t.name, t.spec, "available_if: false at decoration", "1")
                   for t in self._unavailable.values()]
        for tool in self:
            found = _hidden_by(tool, tools_source=tools_source, runtime=runtime)
            if toolset is not None and toolset not in tool.options.toolset and (found is None or found[0] != "2"):
                why = "toolset 'none': no tools" if toolset == "none" else f"toolset: not in toolset {toolset!r}"
                found = ("2b", why)
            found = found or _denied(tool.name, allow, deny, session_deny)
            if found is None and tool.options.defer:
                found = ("6", "defer=True: listed in the tool_search catalog, schema loaded on demand")
            layer, reason = found or (None, None)
            reports.append(ToolReport(tool.name, tool.spec, reason, layer))
        return sorted(reports, key=lambda r: (r.hidden_by is not None, r.name))


default_registry = Registry()
"""Where ``@function`` registers tools unless given ``register_globally=False``."""


@dataclass
class ToolReport:
    """One line of :meth:`Registry.explain`: ``layer`` is ``"1"``..``"6"`` (or ``"2b"``)."""

    name: str
    spec: dict[str, Any]
    hidden_by: str | None
    layer: str | None = None


def _hidden_by(tool: Tool, *, tools_source: str | None, runtime: Runtime | None) -> tuple[str, str] | None:
    """Which of layers 2–4 hides ``tool`` now: ``(layer, readable reason)``, or ``None``."""
    options: ToolOptions = tool.options
    if not options.expose:
        return "2", "expose=False"
    if tools_source is not None and tools_source in options.unsafe_in:
        return "3", f"unsafe_in: hidden when tools_source={tools_source!r}"
    missing = [name for name in options.requires_env if not os.environ.get(name)]
    if missing:
        return "4", f"requires_env: {', '.join(missing)} not set"
    if options.check_fn is not None and not _safe_bool(options.check_fn):
        return "4", "check_fn returned false"
    if options.can_use is not None and not _safe_bool(_call_can_use, options.can_use, runtime):
        return "4", "can_use returned false"
    return None


def _call_can_use(can_use: Any, runtime: Runtime | None) -> Any:
    """``can_use(runtime)`` if it takes an argument, else ``can_use()``."""
    try:
        takes_argument = bool(inspect.signature(can_use).parameters)
    except (TypeError, ValueError):  # a builtin without a signature
        takes_argument = False
    return can_use(runtime) if takes_argument else can_use()


def _denied(name: str, allow: set[str] | None, deny: set[str], session_deny: set[str]) -> tuple[str, str] | None:
    """Layer 5 for one tool name: ``(layer, reason)`` or ``None``."""
    if allow is not None and name not in allow:
        return "5", "tools_allow: not in the allow list"
    if name in deny:
        return "5", "tools_deny: in this call's deny list"
    if name in session_deny:
        return "5", "session deny list (Runtime(tools_deny=...))"
    return None


def _safe_bool(check: Any, *args: Any) -> bool:
    """A check that raises counts as false: a broken tool is not offered."""
    try:
        return bool(check(*args))
    except Exception:
        return False


def _check_toolset(registry: Registry, toolset: str | None) -> None:
    if toolset is not None and toolset != "none" and toolset not in registry.toolsets():
        known = ", ".join(sorted(registry.toolsets())) or "none defined"
        raise ValueError(f"unknown toolset {toolset!r}; known toolsets: {known} (or 'none')")


def _check_names(registry: Registry, allow: set[str] | None, deny: set[str], extra_known: set[str]) -> None:
    """A name in tools_allow / tools_deny that no tool has is a typo, not a no-op."""
    known = {t.name for t in registry} | set(registry._unavailable) | extra_known
    for label, names in (("tools_allow", allow or set()), ("tools_deny", deny)):
        unknown = sorted(names - known)
        if unknown:
            listed = ", ".join(sorted(known)) or "(none)"
            raise ValueError(f"{label} names unknown tool(s): {', '.join(unknown)}; known tools: {listed}")


class Menu:
    """One run's tools: what the model may pick, and which schemas it has been sent.

    ``specs()`` is what goes to the model this round: every non-deferred tool, every
    deferred tool loaded by ``tool_search`` so far, and ``tool_search`` itself whenever
    the menu holds a deferred tool (loaded or not). ``get(name)`` finds any tool on the
    menu, deferred or not, so a call to a deferred tool by name is still validated and run.
    """

    def __init__(self, tools: Sequence[Tool], *, explicit: bool) -> None:
        self.explicit = explicit
        self._tools: dict[str, Tool] = {tool.name: tool for tool in tools}
        self._deferred = [t.name for t in tools if t.options.defer]
        self._loaded: set[str] = set()
        self._search = _ToolSearch(self) if self._deferred else None
        if self._search is not None:
            if self._search.name in self._tools:
                raise ValueError(
                    "a tool is named 'tool_search', which is reserved while any tool on the menu "
                    f"is deferred (deferred: {', '.join(self._deferred)}); rename it"
                )
            self._tools[self._search.name] = self._search
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
        """Deferred tools matching ``query``: an exact name; else those whose name or description
        holds every word (case-insensitive); else those holding any word."""
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
            "properties": {
                "query": {"type": "string", "description": "A tool name, or a few words describing the task."},
            },
            "required": ["query"],
            "additionalProperties": False,
        }

    @property
    def description(self) -> str:  # type: ignore[override]  # read-only: it follows the menu's catalog
        tools = self._menu._tools
        catalog = "\n".join(f"- {tools[n].name}: {tools[n].summary}" for n in self._menu._deferred)
        return (
            "Load the full schema of one or more of the tools below so you can call them; "
            "their schemas are sent from your next turn on.\n" + catalog
        )

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        problems = validate_json_schema(arguments, self.parameters)
        if problems:
            raise ArgumentError(problems)
        return {"query": arguments["query"]}

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

    ``tools=[...]`` (even empty) is the caller's explicit choice: layers 2–4 are skipped,
    layer 5 still applies. ``toolset="none"`` gives an empty menu; another toolset name
    takes the registered tools tagged with it (an unknown name raises ``ValueError``
    listing the known ones). A name in ``tools_allow`` / ``tools_deny`` that no tool has
    raises ``ValueError``: a typo there would otherwise silently change the menu.
    Passing both ``tools`` and ``toolset`` raises ``ValueError``.
    """
    explicit = tools is not None or toolset is not None
    if tools is not None and toolset is not None:
        raise ValueError("pass tools=[...] or toolset=..., not both")
    _check_toolset(registry, toolset)
    if tools is not None:
        candidates = as_tools(list(tools))
    elif toolset == "none":
        candidates = []
    else:
        candidates = [
            t for t in registry
            if (toolset is None or toolset in t.options.toolset)
            and _hidden_by(t, tools_source=tools_source, runtime=runtime) is None
        ]
    allow = set(tools_allow) if tools_allow is not None else None
    deny = set(tools_deny or ())
    _check_names(registry, allow, deny, {t.name for t in candidates})
    chosen = [t for t in candidates if _denied(t.name, allow, deny, set(session_deny)) is None]
    return Menu(chosen, explicit=explicit)
