"""The questions one call puts to the user (``ctx.ask``), answered and recorded: :class:`CallQuestions`.

Each question goes to the run's asker (:attr:`~openprogram_jupyter.core._run_context.RunContext.asker`:
the live view's card, the terminal), announced by a ``tool_execution_update`` event with
status ``"asking"`` and closed by one with status ``"answered"``. Every answer is recorded
in the call's result (``details["answers"]``: ``{"question", "answer"}``, or
``{"question", "unanswered"}`` with the reason), so a rerun gives the same answers back, in
order, without asking (:class:`~openprogram_jupyter.core._run_context.RecordedAnswers`).

A governed action (:meth:`CallQuestions.governed`: an MCP server's sampling request) takes
its place in the same list: the run's approvers clear it as a call of a tool named after
it, and its text is recorded as that step's answer, so a rerun gives it back in order
without asking the approvers or doing it again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..core._asking import checked_question
from ..core._json import JsonObject
from ..core._run_context import RecordedAnswers, RunContext
from ..core.errors import ActionRefused, ArgumentError, AskError
from ..core.events import Event, ToolExecutionUpdateEvent
from ..core.messages import ToolCall
from ..tools.base import Tool, ToolOptions
from ._approval_gate import Refused, clear_call

__all__ = ["CallQuestions"]

NO_ONE_TO_ASK = (
    "{name} asked {question!r}, and no one can answer in this run (a run started from Python "
    "without ask=, an evaluation, a call from an MCP client); the tool may catch op.AskError "
    "and go on without the answer"
)
RECORDED_UNANSWERED = "{name} asked {question!r}; in the recorded run it got no answer either ({reason})"


class CallQuestions:
    """What ``ctx.ask`` does for one call: ``ask`` is the function its
    :class:`~openprogram_jupyter.core._tool_context.ToolContext` is given (called on the
    tool's thread), ``governed`` its ``governed_action``; ``answers`` what its result
    records. Made on the run's event loop."""

    def __init__(
        self, call: ToolCall, context: RunContext, emit: Callable[[Event], Any], cancelled: threading.Event
    ) -> None:
        self._call = call
        self._approvers = tuple(a for a in context.approvers if not isinstance(a, RecordedAnswers))  # the call's own
        self._loop = asyncio.get_running_loop()  # the run's, where its approvers are asked
        self._asker = context.asker
        self._emit = emit
        self._cancelled = cancelled
        recorded = context.recorded_answers()
        self._recorded: Sequence[str | None] = recorded.asked.get(call.id or "", ()) if recorded is not None else ()
        self.answers: list[JsonObject] = []

    def ask(self, text: object, choices: Sequence[object] | None, timeout: object) -> str:
        """Ask ``text`` (the recorded answer in a rerun); raises ``AskError`` without one."""
        question = checked_question(self._call.id or "", self._call.name, text, choices, timeout)
        index = len(self.answers)
        if index < len(self._recorded):
            return self._recorded_answer(question.text, self._recorded[index])
        if self._asker is None:
            reason = NO_ONE_TO_ASK.format(name=self._call.name, question=question.text)
            self.answers.append({"question": question.text, "unanswered": reason})
            raise AskError(reason)
        self._update("asking", {"question": question.text, "choices": list(question.choices)})
        try:
            answer = self._asker(question, self._cancelled)
            if not isinstance(answer, str):
                raise AskError(f"the answer to {question.text!r} is a {type(answer).__name__}, not text")
            if question.choices and answer not in question.choices:
                raise AskError(f"the answer {answer!r} to {question.text!r} is not one of {list(question.choices)!r}")
        except AskError as error:
            self.answers.append({"question": question.text, "unanswered": str(error)})
            self._update("answered", {"question": question.text, "unanswered": str(error)})
            raise
        self.answers.append({"question": question.text, "answer": answer})
        self._update("answered", {"question": question.text, "answer": answer})
        return answer

    def governed(self, action: str, arguments: JsonObject, question: str, do: Callable[[], str]) -> str:
        """``do()``'s text once the run's approvers let ``action`` go (module docstring); the
        recorded text in a rerun. Called on a worker thread, never the run's loop."""
        index = len(self.answers)
        if index < len(self._recorded):
            return self._recorded_answer(question, self._recorded[index])
        refusal = self._refusal(action, arguments)
        if refusal is not None:
            self.answers.append({"question": question, "unanswered": refusal, "action": action})
            raise ActionRefused(refusal)
        try:
            answer = do()
        except Exception as error:  # recorded, so a rerun's later answers stay in their places
            self.answers.append({"question": question, "unanswered": f"{action} failed: {error}", "action": action})
            raise
        self.answers.append({"question": question, "answer": answer, "action": action})
        return answer

    def _refusal(self, action: str, arguments: JsonObject) -> str | None:
        """Why the run's approvers refuse ``action`` (asked on the run's loop), or ``None``."""
        call = ToolCall(id=self._call.id, name=action, arguments=arguments)
        cleared = clear_call(call, _Action(action), {}, self._approvers, step=False, emit=self._emit)
        try:
            verdict = asyncio.run_coroutine_threadsafe(cleared, self._loop).result()
        except concurrent.futures.CancelledError:
            return f"{action} was not answered: the run was stopped while it waited for approval"
        return verdict.text if isinstance(verdict, Refused) else None

    def _recorded_answer(self, text: str, answer: str | None) -> str:
        if answer is None:
            reason = RECORDED_UNANSWERED.format(name=self._call.name, question=text, reason="recorded")
            self.answers.append({"question": text, "unanswered": reason, "recorded": True})
            raise AskError(reason)
        self.answers.append({"question": text, "answer": answer, "recorded": True})
        self._update("answered", {"question": text, "answer": answer, "recorded": True})
        return answer

    def _update(self, status: str, data: JsonObject) -> None:
        call_id, name = self._call.id or "", self._call.name
        self._emit(ToolExecutionUpdateEvent(tool_call_id=call_id, tool_name=name, status=status, data=data))


class _Action(Tool):
    """A governed action as the approvers see it: a tool named ``action`` that asks only
    when a policy says so, and cannot be done with other arguments than its own (``do``
    takes none): an approver's edit of them is refused, as arguments that do not fit."""

    def __init__(self, action: str) -> None:
        self.name = action
        self.description = f"{action}: an action a tool call does on the run's behalf"
        self.parameters = {"type": "object", "properties": {}}
        self.options = ToolOptions()

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        """Only reached for an approver's edit (the action's own arguments are never
        validated): always ``ArgumentError``, so the edit is refused, not ignored."""
        raise ArgumentError(
            [("(arguments)", f"{self.name} cannot be done with other arguments; approve or deny it as asked")]
        )
