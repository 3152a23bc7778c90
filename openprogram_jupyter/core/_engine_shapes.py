"""What the layers below the engine know of the engine's two objects: a run's record and a Runtime.

The tools, the renderers and the errors handle a :class:`~openprogram_jupyter.engine.run.Run`
or a :class:`~openprogram_jupyter.engine.runtime.Runtime` without importing the engine (not
even to annotate: that would make a lower layer know a higher one). They annotate with
these protocols instead, each holding exactly the members those layers read; the engine's
classes satisfy them as they are, and mypy checks that they do wherever one is passed down.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .errors import ProviderError
    from .events import Divergence
    from .messages import AssistantMessage, RunStopReason, ToolResultMessage, Usage, UserMessage

__all__ = ["RunRecord", "RuntimeLike"]


class RunRecord(Protocol):
    """A run's record as the renderers and the errors read it: who ran (``run_id``,
    ``model``, ``tools``, ``depth``, ``parent_tool_call_id``), what happened (``messages``,
    ``events``, ``rounds``, ``usage``, ``text``, ``tool_results``), how it ended (``stop_reason``, ``error``,
    ``limit``, ``divergence``) and when (``started_at``, ``ended_at``, ``duration``)."""

    run_id: str
    model: str
    tools: list[str]
    depth: int
    parent_tool_call_id: str | None
    messages: list[UserMessage | AssistantMessage | ToolResultMessage]
    events: list[Any]
    stop_reason: RunStopReason | None
    error: ProviderError | None
    limit: str | None
    rounds: int
    divergence: Divergence | None
    started_at: float
    ended_at: float | None

    @property
    def usage(self) -> Usage: ...

    @property
    def text(self) -> str: ...

    @property
    def duration(self) -> float: ...

    @property
    def tool_results(self) -> list[ToolResultMessage]: ...


class RuntimeLike(Protocol):
    """A Runtime as the tools layer uses it: its session deny list (tool-name globs no menu
    offers), running a prompt (what a tool handed its Runtime calls), a copy of it on
    another model (``replace(model=...)``: an MCP sampling request's chosen model), and
    owning a resource it closes when it closes (an MCP server's connection)."""

    @property
    def tools_deny(self) -> Sequence[str]: ...

    @property
    def exec(self) -> Callable[..., Any]: ...

    @property
    def arun(self) -> Callable[..., Any]: ...

    @property
    def replace(self) -> Callable[..., Any]: ...

    def own(self, resource: Any) -> None: ...
