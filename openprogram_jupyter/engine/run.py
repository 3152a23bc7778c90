"""``Run``: the record of one run — its messages, events, usage and how it ended.

A Run exists from the moment the run starts and fills in as events arrive, so a stopped
or failed run is still a complete, readable record (``runtime.last_run``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..core import _ambient
from ..core._json import JsonObject
from ..core.errors import ProviderError, RunError
from ..core.events import (
    AgentEndEvent,
    Compaction,
    CompactionEvent,
    Divergence,
    DivergenceEvent,
    MessageEndEvent,
    TurnStartEvent,
)
from ..core.messages import AssistantMessage, RunStopReason, ToolResultMessage, Usage, UserMessage
from ._run_display import RunDisplay

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core._run_context import RunContext
    from ..core.events import Event
    from ..models._wire import WireLog
    from ._runtime_shape import EngineRuntime
    from .spec import AgainOptions, RunSpec

__all__ = ["Run", "RunError"]


class Run(RunDisplay):
    """One run of the loop.

    ``messages`` are the messages this run added (the prompt, each reply, each tool
    result); ``events`` every event in order, including those of nested runs (``depth >
    0``). ``text`` is the final answer: the text of the last reply that had any.
    ``stop_reason`` is ``"stop"``, the limit that ended it (``"max_iterations"``,
    ``"max_cost"``, ``"max_tokens"``), ``"error"`` or ``"aborted"``;
    ``error`` is the :class:`~openprogram_jupyter.core.errors.ProviderError` saying what went
    wrong for the latter two kinds of end where known (and for a last, tool-free round at
    a limit that failed): ``str(run.error)`` is its one line, its fields (``kind``,
    ``status``, ``code``, ``retryable``, ``provider``, ``detail``) what to decide by.
    ``limit`` names the limit that ended the run (also when its last round failed or was
    stopped); ``None`` when no limit did.
    ``result`` holds the resolved decision's value when the run was asked for
    ``choices=``, and ``decision`` the :class:`~openprogram_jupyter.lab.decision.Decision`
    itself (``None`` otherwise — a decision's value may be ``None`` too).
    ``divergence``: for a rerun (:meth:`rerun`), where its results first parted from the
    recording (``None`` while they have not).
    """

    def __init__(
        self, run_id: str, model: str, tools: list[str], depth: int = 0, parent_tool_call_id: str | None = None
    ) -> None:
        self.run_id = run_id
        self.model = model
        self.tools = tools
        self.depth = depth
        self.parent_tool_call_id = parent_tool_call_id
        self.messages: list[UserMessage | AssistantMessage | ToolResultMessage] = []
        self.events: list[Any] = []
        self.stop_reason: RunStopReason | None = None
        self.error: ProviderError | None = None
        self.limit: str | None = None
        self.rounds = 0
        self.result: object = None
        self.decision: Any = None
        self.divergence: Divergence | None = None
        self.pending_messages: list[Any] = []
        self.started_at = time.time()
        self.ended_at: float | None = None
        self.wire_log: WireLog | None = None  # set by the engine when the Runtime captures the wire
        self.spec: RunSpec | None = None  # the spec it ran, and the Runtime that ran it (not pickled)
        self.runtime: EngineRuntime | None = None
        self.context: RunContext | None = None  # what governed it (approvers, deny list, caps; not pickled)
        self._usage = Usage.total([])  # kept as replies end: the loop reads it every round

    def __getstate__(self) -> dict[str, Any]:
        # A Run travels (op.evaluate on another process): its record does, not what ran it.
        return {**self.__dict__, "spec": None, "runtime": None, "context": None}

    # -- filled in by the runtime -------------------------------------------------------

    def record(self, event: Event) -> None:
        """Append an event (called for every event, nested ones included)."""
        self.events.append(event)
        if type(event) is MessageEndEvent and isinstance(event.message, AssistantMessage):
            self._usage = self._usage + event.message.usage
        elif type(event) is TurnStartEvent and event.run_id == self.run_id:
            self.rounds = event.turn
        elif type(event) is CompactionEvent and event.compaction is not None:
            self._usage = self._usage + event.compaction.summary.usage  # what compacting cost
        elif type(event) is DivergenceEvent and event.run_id == self.run_id:
            self.divergence = event.divergence
        elif type(event) is AgentEndEvent and event.run_id == self.run_id:
            self.messages = list(event.messages)
            self.stop_reason = event.stop_reason
            self.error = ProviderError.of_reply(event.error_message, event.error) if event.error_message else None
            self.limit = event.limit
            self.ended_at = event.timestamp

    # -- reading ------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.stop_reason is not None

    @property
    def text(self) -> str:
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage) and message.text:
                return message.text
        return ""

    @property
    def usage(self) -> Usage:
        """Tokens and cost summed over every reply, nested runs' included (a running total:
        reading it does not rescan the events, which grew each round's cost with the run)."""
        return self._usage.model_copy()

    @property
    def compactions(self) -> list[Compaction]:
        """This run's compactions in order (docs/semantics.md, "Compaction"); each summary's
        usage is in :attr:`usage`."""
        own = (e for e in self.events if type(e) is CompactionEvent and e.run_id == self.run_id)
        return [event.compaction for event in own if event.compaction is not None]

    @property
    def duration(self) -> float:
        return (self.ended_at or time.time()) - self.started_at

    @property
    def tool_results(self) -> list[ToolResultMessage]:
        return [m for m in self.messages if isinstance(m, ToolResultMessage)]

    @property
    def results(self) -> dict[str, Any]:
        """What each finished call returned, whole, by call id (what the model read may be
        cut: ``max_result_chars``); in this process only, never saved."""
        return {m.tool_call_id: m.returned for m in self.tool_results if m.status == "done"}

    def wire(self, round: int) -> tuple[JsonObject, JsonObject]:
        """Round ``round``'s ``(request, reply)`` as plain JSON data, rounds numbered from 1.

        ``request`` is the body sent to the provider, whole; ``reply`` holds ``final`` (the
        stream folded into the provider's non-streamed response), ``frames`` (as received),
        ``attempts`` and ``errors`` (each failed attempt's status, error type, message and
        error body). A round replayed from a cassette has ``reply["source"] ==
        "cassette"``: its ``final`` is the recorded reply and its request is rebuilt for the
        model the cassette was recorded from. Every known secret is masked by value. Needs
        ``Runtime(capture_wire=True)``; raises ``ValueError`` saying what to do otherwise,
        naming the captured rounds when ``round`` is not one, and saying why for a round
        whose model sends nothing over a wire (docs/wire.md).
        """
        from ..models._wire import wire_round

        return wire_round(self.wire_log, round, self.model)

    def request_as(self, round: int, model: str) -> JsonObject:
        """The JSON body ``model`` would be sent for round ``round``, built offline by that
        provider's own request code from what the loop asked that round (its messages,
        system prompt, tools and controls). ``model`` is ``"provider:model_id"``, or a
        provider's prefix (``"anthropic"``) for its default model. Works for every round
        of a run made with ``capture_wire=True``, whatever its model (offline, scripted,
        replayed or another provider); nothing is sent and no key is needed. Raises
        ``ValueError`` as :meth:`wire` does, or naming an unknown provider; ``TypeError``
        for a model with no wire (``"offline"``)."""
        from ..models._wire import rebuilt_request

        return rebuilt_request(self.wire_log, round, model)

    # -- teaching -----------------------------------------------------------------------

    def to_code(self) -> str:
        """Python source that calls this run's picks in order with their arguments, one
        variable per result (a pick that did not run as a comment saying why); running
        it gives the tools' results again without any model. See :mod:`._run_code`."""
        from ..tools.registry import default_registry
        from ._run_code import run_code

        return run_code(self, default_registry)

    def to_test(self, path: str | os.PathLike[str], *, tools_from: str | None = None, overwrite: bool = False) -> Path:
        """Write this run as a pytest file at ``path`` and its cassette beside it
        (``<name>.cassette.json``); return the file's path. The test plays the recorded
        replies back (offline) while the tools run for real — from the module
        ``tools_from``, else imported from their own module, else written into the file
        from their source — and checks with ``op.check`` the same picks in order, each
        running, the same results, answer and ending: ``pytest path`` fails naming the
        call a tool change altered. An existing file is written over only with
        ``overwrite=True``; a refused call writes nothing. See :mod:`._run_test`."""
        from ._run_test import write_test

        return write_test(self, path, tools_from=tools_from, overwrite=overwrite)

    # -- forking ------------------------------------------------------------------------

    def fork(
        self,
        round: int,
        *,
        model: Any = None,
        tools: Any = None,
        runtime: EngineRuntime | None = None,
        **options: Unpack[AgainOptions],
    ) -> Run:
        """A new run that replays this one's rounds before ``round`` from the record — no
        model request, no tool run, each marked as replayed in every view — and goes on
        live from ``round`` with the changes: another ``model``, ``tools`` (by default the
        same names, looked up again, so a tool redefined since is the new one), or any
        run option (``system=``, ``max_iterations=``, …; one not given keeps the run's
        own). Runs on ``runtime`` (default: the Runtime that ran this one, else the
        notebook's). ``round`` must be one of this run's rounds
        (``SetupError`` otherwise). See :meth:`Runtime.fork
        <openprogram_jupyter.engine.runtime.Runtime.fork>`."""
        base = runtime or self.runtime or cast("EngineRuntime", _ambient.ambient_runtime())
        return base.fork(self, round, model=model, tools=tools, **options)

    def rerun(
        self,
        *,
        tools: Any = (),
        live: bool = False,
        same: Any = None,
        runtime: EngineRuntime | None = None,
        **options: Unpack[AgainOptions],
    ) -> Run:
        """This run again with the tools as they are now: each recorded reply is played back
        (no model request) and its calls run for real, with the run's own tools by name —
        each from ``tools`` when one there has that name, else as registered now (a tool
        redefined since is the new one). While every result reads to the model as the
        recorded one did, the rerun follows the recording to its end. At the first round
        whose results differ — a result changed, a recorded call no longer fits its tool's
        schema, a tool that fails now, or the recording ending while the rerun goes on — the new
        run's :attr:`divergence` says where and why, and the run ends as ``"diverged"``
        (``live=False``: no request at all) or asks the model from the next round on
        (``live=True``). Results compare as the model reads them; ``same(recorded, now)``
        (two ``ToolResultMessage`` objects) decides instead when given — for a tool whose result
        holds a time or a random id. ``options`` are run options over the run's own
        settings. Runs on ``runtime`` (default: the Runtime that ran this one, else the
        notebook's); returns the new Run. See :mod:`openprogram_jupyter.engine.rerun`."""
        base = runtime or self.runtime or cast("EngineRuntime", _ambient.ambient_runtime())
        return base.rerun(self, tools=tools, live=live, same=same, **options)
