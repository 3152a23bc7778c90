"""The tool registry, and the six gating layers that narrow it (the menu itself is built in
:mod:`.menu`).

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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..core.errors import SetupError
from .base import Tool, ToolOptions, refuse_reserved_name

if TYPE_CHECKING:
    from ..core._engine_shapes import RuntimeLike

__all__ = ["Registry", "ToolReport", "default_registry"]


class Registry:
    """Tools by name. Registering a name again replaces the old tool (cells get re-run)."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._unavailable: dict[str, Tool] = {}
        self._lock = threading.Lock()

    def register(self, tool: Tool) -> Tool:
        """Register ``tool`` under its name; a tool named ``tool_search`` raises
        :class:`SetupError` (the name is the package's own tool search)."""
        refuse_reserved_name(tool.name, SetupError, "rename it")
        with self._lock:
            self._unavailable.pop(tool.name, None)
            self._tools[tool.name] = tool
        return tool

    def unavailable_names(self) -> list[str]:
        """The names of the tools left out at decoration (``available_if`` false)."""
        with self._lock:
            return list(self._unavailable)

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
        runtime: RuntimeLike | None = None,
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
        check_menu_names(self, allow, deny, set())
        session_deny = set(runtime.tools_deny) if runtime is not None else set()
        reports = [
            ToolReport(t.name, t.spec, "available_if: false at decoration", "1") for t in self._unavailable.values()
        ]
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
    spec: JsonObject
    hidden_by: str | None
    layer: str | None = None


def _hidden_by(tool: Tool, *, tools_source: str | None, runtime: RuntimeLike | None) -> tuple[str, str] | None:
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


def _call_can_use(can_use: Any, runtime: RuntimeLike | None) -> Any:
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


def _safe_bool(check: Any, *args: object) -> bool:
    """A check that raises counts as false: a broken tool is not offered."""
    try:
        return bool(check(*args))
    except Exception:
        return False


def _check_toolset(registry: Registry, toolset: str | None) -> None:
    if toolset is not None and toolset != "none" and toolset not in registry.toolsets():
        known = ", ".join(sorted(registry.toolsets())) or "none defined"
        raise SetupError(f"unknown toolset {toolset!r}; known toolsets: {known} (or 'none')")


def check_menu_names(registry: Registry, allow: set[str] | None, deny: set[str], extra_known: set[str]) -> None:
    """A name in tools_allow / tools_deny that no tool has is a typo, not a no-op."""
    known = {t.name for t in registry} | set(registry.unavailable_names()) | extra_known
    for label, names in (("tools_allow", allow or set()), ("tools_deny", deny)):
        unknown = sorted(names - known)
        if unknown:
            listed = ", ".join(sorted(known)) or "(none)"
            raise SetupError(f"{label} names unknown tool(s): {', '.join(unknown)}; known tools: {listed}")
