"""Checks of a run's transcript that several test folders share."""

from __future__ import annotations

import openprogram_jupyter as op


def assert_every_call_has_one_result(run: op.Run) -> None:
    """Every call of every reply has exactly one result, before the next reply."""
    pending: list[str] = []
    for message in run.messages:
        if isinstance(message, op.AssistantMessage):
            assert not pending, f"calls {pending} had no result before the next reply"
            pending = [c.id for c in message.tool_calls]
        elif isinstance(message, op.ToolResultMessage):
            assert message.tool_call_id in pending, f"a result for an unknown or answered call {message.tool_call_id}"
            pending.remove(message.tool_call_id)
    assert not pending, f"calls {pending} never got a result"
