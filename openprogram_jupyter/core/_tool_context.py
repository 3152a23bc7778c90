"""What a running tool call may ask for: :class:`ToolContext` (its ids, Runtime, cancel flag, progress, questions).

Declared in the core, below the tools, because the call frame every nested run reads
(:class:`~openprogram_jupyter.core._ambient.CallFrame`) carries one; the tools layer hands it
to a tool that declares a parameter annotated ``ToolContext`` (public as ``op.ToolContext``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._json import JsonObject
from ._stop import StopToken
from .errors import AskError

if TYPE_CHECKING:
    from ._engine_shapes import RuntimeLike

__all__ = ["ToolContext"]


@dataclass
class ToolContext:
    """Handed to a tool that declares a parameter annotated ``ToolContext``.

    ``cancelled`` is set when the run is stopped or the call timed out: a long-running
    sync tool should check it and return early, since Python cannot stop a thread.
    ``report(data)`` sends a ``tool_execution_update`` event (progress) to every watcher.
    ``ask(question)`` asks the person at the notebook and returns the answer.
    ``governed_action(...)`` does something on the run's behalf that its approval policy
    governs and a rerun gives back (an MCP server's sampling request).
    """

    tool_call_id: str
    tool_name: str
    run_id: str
    depth: int
    runtime: RuntimeLike | None
    cancelled: threading.Event = field(default_factory=StopToken)
    _report: Callable[[Any], None] | None = None
    _ask: Callable[[object, Sequence[object] | None, object], str] | None = None
    _governed: Callable[[str, JsonObject, str, Callable[[], str]], str] | None = None

    def report(self, data: object) -> None:
        """Publish progress; safe to call from any thread."""
        if self._report is not None:
            self._report(data)

    def ask(self, question: str, choices: Sequence[str] | None = None, timeout: float | None = None) -> str:
        """Ask the person at the notebook ``question`` and return the answer.

        In a notebook the question shows in this call's card, with a text box, or with a
        button per item of ``choices`` (the answer is then one of them); in terminal
        IPython it is ``input()``. A rerun gives back the answers its recording holds, in
        order, without asking. Blocks this call's thread: an ``async`` tool awaits
        :meth:`aask` instead (``ask`` on the event loop's thread raises ``RuntimeError``).

        Raises :class:`~openprogram_jupyter.core.errors.AskError` when no answer comes: no
        person can answer in this run (a run from Python without a view, an evaluation, a
        served call with no card to answer in), the run was stopped, or ``timeout`` seconds passed.
        Bad arguments raise ``TypeError`` / ``ValueError`` naming the problem.
        """
        if self._ask is None:
            raise AskError(
                f"{self.tool_name} asked {question!r}, and no one can answer here: this call is not "
                "part of a run (the tool was called directly)"
            )
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._ask(question, choices, timeout)
        raise RuntimeError(f"{self.tool_name}: ctx.ask blocks its thread; in an async tool, await ctx.aask(...)")

    async def aask(self, question: str, choices: Sequence[str] | None = None, timeout: float | None = None) -> str:
        """:meth:`ask` for an ``async`` tool: waits on a worker thread, so the run's event
        loop (Stop, other calls) goes on meanwhile."""
        return await asyncio.to_thread(self.ask, question, choices, timeout)

    def governed_action(self, action: str, arguments: JsonObject, question: str, do: Callable[[], str]) -> str:
        """Do ``do`` on this call's behalf as the action named ``action`` and return its text.

        In a rerun, the text its recording holds for this step (in order with the call's
        questions) comes back without asking or doing anything. Otherwise the run's
        approvers decide as for a call of a tool named ``action`` with ``arguments``: a
        policy's rules match the name (``deny=["mcp_sampling:*"]``), ``default="ask"`` asks
        with Approve / Deny in this call's card (an approver's edit of ``arguments`` refuses
        it: it is done as asked or not at all), and with no policy it goes on. Then ``do()``
        runs on this thread; its text, or why there is none, is recorded in the call's
        result (``details["answers"]``, with ``question``) for a rerun to give back. Raises
        :class:`~.errors.ActionRefused` saying why when it is refused, ``AskError`` when the
        recording holds no answer, and what ``do`` raises. Outside a run, ``do()`` runs.
        Blocks: called on a thread with a running event loop (the run's, an ``async``
        tool's body) it raises ``RuntimeError`` instead of waiting for that loop forever.
        """
        if self._governed is None:
            return do()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._governed(action, arguments, question, do)
        raise RuntimeError(f"{self.tool_name}: governed_action blocks its thread; call it from a worker thread")
