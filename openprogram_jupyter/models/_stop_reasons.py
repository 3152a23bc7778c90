"""Every stop or finish reason each provider documents, read into the reply's end in words.

A provider's reply ends with its own reason (Anthropic's ``stop_reason``, Chat's
``finish_reason``, Gemini's ``finishReason``, Bedrock's ``stopReason``, the Responses
API's ``incomplete_details.reason``). Each table below maps every documented value to an
:class:`Ending`: the reply finished (``"stop"``; a reply holding calls then ends as
``toolUse``), was cut at the output cap (``"length"``), or failed with an error kind and a
sentence a user understands, which names the provider's own word in parentheses. A value
a table does not know is read as finished, with a notice naming it — never dropped, never
"unknown".
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.events import AssistantUpdate
from ..core.messages import ErrorKind, Usage
from .base import MessageBuilder

__all__ = [
    "ANTHROPIC",
    "BEDROCK",
    "GEMINI",
    "OPENAI_CHAT",
    "RESPONSES_INCOMPLETE",
    "Ending",
    "end_reply",
]


@dataclass(frozen=True)
class Ending:
    """How a reply that ended for one reason ends: ``"stop"``, ``"length"``, or an error of
    ``kind`` whose message is ``words``."""

    outcome: str  # "stop", "length" or "error"
    kind: ErrorKind = "incomplete"
    words: str = ""


FINISHED = Ending("stop")
CUT = Ending("length")


def _failed(kind: ErrorKind, words: str) -> Ending:
    return Ending("error", kind, words)


OPENAI_CHAT: dict[str, Ending] = {
    "stop": FINISHED,
    "tool_calls": FINISHED,
    "function_call": FINISHED,
    "length": CUT,
    "content_filter": _failed("refused", "the provider's content filter stopped the reply"),
}
"""Chat Completions' ``finish_reason``."""

RESPONSES_INCOMPLETE: dict[str, Ending] = {
    "max_output_tokens": CUT,
    "content_filter": _failed("refused", "the provider's content filter stopped it"),
    "max_messages": _failed("incomplete", "it reached the most messages it may hold"),
    "steered": _failed("incomplete", "it was ended early by steering"),
}
"""The Responses API's ``incomplete_details.reason`` (a completed response is finished); an
error's words follow ``the response is incomplete (<reason>):``."""

ANTHROPIC: dict[str, Ending] = {
    "end_turn": FINISHED,
    "tool_use": FINISHED,
    "stop_sequence": FINISHED,
    "max_tokens": CUT,
    "refusal": _failed("refused", "the model refused to answer"),
    "pause_turn": _failed(
        "incomplete", "the provider paused a long turn of its server tools; what came so far is kept"
    ),
    "model_context_window_exceeded": _failed("context_length", "the reply filled the model's context window"),
}
"""Anthropic's ``stop_reason``."""

GEMINI: dict[str, Ending] = {
    "STOP": FINISHED,
    "MAX_TOKENS": CUT,
    "SAFETY": _failed("refused", "Gemini's safety filters stopped the reply"),
    "RECITATION": _failed("refused", "the reply recited its training data too closely"),
    "LANGUAGE": _failed("incomplete", "the reply was in a language Gemini does not support"),
    "BLOCKLIST": _failed("refused", "the reply held a term on the blocklist"),
    "PROHIBITED_CONTENT": _failed("refused", "the reply may hold prohibited content"),
    "SPII": _failed("refused", "the reply may hold sensitive personal information"),
    "IMAGE_SAFETY": _failed("refused", "an image in the reply was stopped by Gemini's safety filters"),
    "MALFORMED_FUNCTION_CALL": _failed("incomplete", "the model wrote a function call that is not valid"),
    "UNEXPECTED_TOOL_CALL": _failed("incomplete", "the model called a tool when no tool was on offer"),
    "TOO_MANY_TOOL_CALLS": _failed("incomplete", "the model made more tool calls in a row than Gemini allows"),
    "OTHER": _failed("incomplete", "Gemini stopped the reply without saying why"),
    "FINISH_REASON_UNSPECIFIED": _failed("incomplete", "Gemini stopped the reply without saying why"),
}
"""Gemini's ``finishReason``."""

BEDROCK: dict[str, Ending] = {
    "end_turn": FINISHED,
    "tool_use": FINISHED,
    "stop_sequence": FINISHED,
    "max_tokens": CUT,
    "guardrail_intervened": _failed("refused", "a Bedrock guardrail stopped the reply"),
    "content_filtered": _failed("refused", "Bedrock's content filter stopped the reply"),
    "malformed_model_output": _failed("incomplete", "the model's output could not be read"),
    "malformed_tool_use": _failed("incomplete", "the model wrote a tool call that is not valid"),
    "model_context_window_exceeded": _failed("context_length", "the reply filled the model's context window"),
}
"""Bedrock Converse's ``stopReason`` (every value botocore's service model lists)."""


def end_reply(
    out: MessageBuilder, model_name: str, table: dict[str, Ending], reason: str, usage: Usage | None
) -> AssistantUpdate | None:
    """End ``out``'s reply as ``table`` reads ``reason``: finish it (``"length"`` when the
    output cap cut it), or fail it with the table's kind and words —
    ``"<model>: <words> (<reason>)"``. A reason the table does not know finishes the reply
    and returns the notice to yield that names it; otherwise returns ``None``."""
    ending = table.get(reason)
    if ending is None:
        out.finish(None, usage)
        return out.notice(
            f"{model_name}: the provider ended the reply for a reason this version does not know "
            f"({reason}); it was read as finished"
        )
    if ending.outcome == "error":
        out.fail(f"{model_name}: {ending.words} ({reason})", usage, kind=ending.kind)
    else:
        out.finish("length" if ending.outcome == "length" else None, usage)
    return None
