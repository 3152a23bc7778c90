"""The nodes of a run tree, and the registry of the kinds a view draws.

Every node has a ``version`` that goes up when it changes (:meth:`touch`), so a view can
redraw only the nodes whose version moved since it last looked.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ...core._dispatch import KindTable
from ...core._json import JsonObject
from ...core.errors import ProviderError
from ...core.events import CourseContextFile, Divergence
from ...core.messages import ToolResultMessage, Usage

__all__ = [
    "FINAL_STATUSES",
    "NODE_KINDS",
    "Approval",
    "Block",
    "CallNode",
    "CallStatus",
    "NodeHandlers",
    "NoticeNode",
    "RetryNode",
    "RoundItem",
    "RoundNode",
    "RunNode",
    "TimelineItem",
    "UserNode",
    "elapsed",
]

CallStatus = Literal[
    "streaming",  # the model is still writing the arguments
    "queued",  # arguments complete, not started yet
    "awaiting_approval",
    "running",
    "done",
    "error",
    "skipped",
    "cancelled",
    "interrupted",
    "denied",
]

Approval = Literal["approved", "denied", "edited", "skipped"]
"""The user's answer to a call that asked (a ``requires_approval`` tool, or any call in
step mode): the ``approved`` update, or the result's ``details["approval"]``."""

FINAL_STATUSES = frozenset({"done", "error", "skipped", "cancelled", "interrupted", "denied"})


class _Node:
    version: int

    def touch(self) -> None:
        self.version += 1


@dataclass(eq=False)
class Block(_Node):
    """Streamed text or thinking. ``parts`` grows by deltas; ``text`` joins them."""

    kind: Literal["text", "thinking"]
    parts: list[str] = field(default_factory=list)
    version: int = 0

    @property
    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts[:] = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.parts[:] = [text]
            self.touch()


@dataclass(eq=False)
class NoticeNode(_Node):
    """A message from the provider layer about this round, such as a control it cannot
    express, or about the run (a compaction). ``details``, when set, is text a view shows
    folded under the line (a compaction's summary and what it replaced)."""

    text: str
    details: str | None = None
    version: int = 0


@dataclass(eq=False)
class RetryNode(_Node):
    """A wait before the round's request is sent again (a ``retry_wait`` update).

    ``reason`` says what failed (``"rate limited (HTTP 429)"``), ``seconds`` how long the
    wait is and ``until`` when it ends (wall-clock seconds), ``retry`` which retry follows
    it, of at most ``max_retries``. ``outcome`` is ``"waiting"`` until the round goes on:
    ``"retried"`` once anything else of the round arrives (the retry was sent), or
    ``"stopped"`` when the round ended before the wait was over (the run was stopped).
    """

    reason: str
    seconds: float
    until: float
    retry: int
    max_retries: int
    outcome: Literal["waiting", "retried", "stopped"] = "waiting"
    version: int = 0

    def end(self, at: float, *, stopped: bool = False) -> None:
        """The round went on at wall-clock time ``at``; ``stopped``: it ended there because
        the run was stopped (``"stopped"`` if that was before the wait was over)."""
        if self.outcome == "waiting":
            self.outcome = "stopped" if stopped and at < self.until else "retried"
            self.touch()


@dataclass(eq=False)
class CallNode(_Node):
    """One pick of the model and everything that happened to it."""

    id: str
    name: str
    raw_arguments: list[str] = field(default_factory=list)
    arguments: JsonObject | None = None  # set once the call is complete
    arguments_error: str | None = None
    status: CallStatus = "streaming"
    result: ToolResultMessage | None = None
    duration: float | None = None
    started_at: float | None = None
    progress: list[Any] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)  # what the tool says of itself: read-only, destructive, …
    children: list[RunNode] = field(default_factory=list)
    approval: Approval | None = None  # the user's answer, for a call that asked for one
    edited_arguments: JsonObject | None = None  # what the user ran instead of ``arguments``
    output: list[JsonObject] = field(default_factory=list)
    """What the tool's body wrote, in order: ``{"type": "stream", "name", "text"}`` and
    ``{"type": "display", "data": {mime: value}}`` (``_tool_output.py``)."""
    divergence: Divergence | None = None  # in a rerun: this call's result differs from the recording
    version: int = 0

    def add_output(self, piece: Any) -> None:
        """Append a live piece of output; stream text joins the stream piece before it."""
        if not isinstance(piece, dict) or piece.get("type") not in ("stream", "display"):
            return
        last = self.output[-1] if self.output else None
        if (
            piece["type"] == "stream"
            and last is not None
            and last.get("type") == "stream"
            and last.get("name") == piece.get("name")
        ):
            last["text"] = str(last.get("text", "")) + str(piece.get("text", ""))
        else:
            self.output.append(dict(piece))
        self.touch()

    def take_output(self, result: ToolResultMessage | None) -> None:
        """The output a result records (``details["output"]``) replaces the live pieces."""
        recorded = result.details.get("output") if result is not None else None
        if isinstance(recorded, list):
            self.output = [dict(item) for item in recorded if isinstance(item, dict)]

    @property
    def raw_arguments_text(self) -> str:
        return "".join(self.raw_arguments)

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES


RoundItem = Block | CallNode | NoticeNode | RetryNode


@dataclass(eq=False)
class RoundNode(_Node):
    """One assistant reply: its streamed blocks, its calls, the provider's notices and its
    retry waits. ``final_for`` names the limit when it is the last, tool-free round that
    answers after one."""

    number: int
    final_for: str | None = None
    items: list[RoundItem] = field(default_factory=list)
    by_index: dict[int, Block | CallNode] = field(default_factory=dict)
    stop_reason: str | None = None  # the assistant message's, once it ended
    error: ProviderError | None = None
    usage: Usage | None = None
    finished: bool = False
    version: int = 0


@dataclass(eq=False)
class UserNode(_Node):
    """The prompt (the run's first message) or a later user message (steering, follow-up)."""

    text: str
    images: int = 0
    kind: Literal["prompt", "message"] = "prompt"
    version: int = 0


TimelineItem = UserNode | RoundNode


@dataclass(eq=False)
class RunNode(_Node):
    """One run: the top level, or a run opened by a call's tool (then a child of that call).
    ``max_cost`` / ``max_tokens`` are its spending limits; ``limit`` names the limit that
    ended it; ``context_window`` is its model's, when known; ``divergence`` (a rerun) where
    its results first parted from the recording; ``course_context`` the course context
    files its system prompt carries."""

    run_id: str
    depth: int = 0
    parent_tool_call_id: str | None = None
    model: str = ""
    tools: list[str] = field(default_factory=list)
    timeline: list[TimelineItem] = field(default_factory=list)
    stop_reason: str | None = None  # None while running
    error: ProviderError | None = None
    limit: str | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    context_window: int | None = None
    divergence: Divergence | None = None
    course_context: list[CourseContextFile] = field(default_factory=list)
    compacting: NoticeNode | None = None  # the notice of a compaction under way
    usage: Usage = field(default_factory=lambda: Usage(cost=0.0))
    started_at: float | None = None
    ended_at: float | None = None
    version: int = 0

    @property
    def rounds(self) -> list[RoundNode]:
        return [item for item in self.timeline if isinstance(item, RoundNode)]

    @property
    def finished(self) -> bool:
        return self.stop_reason is not None

    def calls(self) -> Iterable[CallNode]:
        """Every call of this run, in order (not those of nested runs)."""
        for round_ in self.rounds:
            for item in round_.items:
                if isinstance(item, CallNode):
                    yield item


def elapsed(run: RunNode, now: float | None = None) -> float | None:
    """Seconds the run took, or has taken so far."""
    if run.started_at is None:
        return None
    end = run.ended_at if run.ended_at is not None else (now if now is not None else time.time())
    return max(0.0, end - run.started_at)


NODE_KINDS: Mapping[str, type[_Node]] = MappingProxyType(
    {cls.__name__: cls for cls in (UserNode, RoundNode, Block, CallNode, NoticeNode, RetryNode)}
)
"""Every node a view draws as an item: a run's timeline holds :class:`UserNode` and
:class:`RoundNode`, a round's items are :class:`Block`, :class:`CallNode`,
:class:`NoticeNode` and :class:`RetryNode`. (:class:`RunNode` is each view's entry point,
and a call's children.)"""

H = TypeVar("H")


class NodeHandlers(KindTable[H]):
    """A view's drawing functions by node class, covering :data:`NODE_KINDS`.

    :meth:`~openprogram_jupyter.core._dispatch.KindTable.handler_for` returns the function for a
    node's class and raises :class:`~openprogram_jupyter.core._dispatch.UnhandledKindError` for
    a class the table does not cover.
    """

    registry = NODE_KINDS
    kind_word = "node kind"
