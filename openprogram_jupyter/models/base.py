"""What a model is to the loop: one async method that streams one assistant message.

A provider implements :meth:`Model.stream`. The loop hands it a :class:`ModelRequest` and a
:class:`MessageBuilder`; the provider translates the wire stream into builder calls and
yields each :class:`~openprogram_jupyter.core.events.AssistantUpdate` the builder returns. When
the stream ends the builder's message is the reply. Providers never raise for a provider
failure: they call :meth:`MessageBuilder.fail` with a readable message, so the run ends
with ``stop_reason == "error"`` and its transcript intact.

Cancellation is asyncio's: when the run is stopped the task running ``stream`` is
cancelled, and the provider must let ``CancelledError`` propagate (closing its connection
on the way out). The loop then marks the partial message as aborted.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar

from ..core._json import JsonObject, loads_valid, valid_json, valid_text
from ..core.events import AssistantUpdate, RetryWait
from ..core.messages import (
    AssistantMessage,
    AssistantStopReason,
    ErrorKind,
    ReplyError,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    new_id,
)
from ..tools._jsonschema import non_finite_numbers

if TYPE_CHECKING:
    from ._wire import WireRecorder

__all__ = ["MessageBuilder", "Model", "ModelRequest", "ToolChoice", "normalize_tool_choice"]

ToolChoice = Literal["auto", "required", "none"] | dict[str, str]
"""``"auto"``, ``"required"``, ``"none"`` or ``{"type": "function", "name": X}``."""


def normalize_tool_choice(choice: object) -> ToolChoice:
    """Return ``choice`` in its canonical form.

    ``None`` means ``"auto"``. A bare string other than the three keywords names a tool to
    force. ``{"type": "function", "name": X}`` and OpenAI's
    ``{"type": "function", "function": {"name": X}}`` both become the former. Anything
    else raises ``ValueError`` naming the value.
    """
    if choice is None:
        return "auto"
    if isinstance(choice, str):
        match choice:
            case "auto" | "required" | "none":
                return choice
        if choice:
            return {"type": "function", "name": choice}
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        if isinstance(name, str) and name:
            return {"type": "function", "name": name}
    raise ValueError(
        f"tool_choice={choice!r} is not valid: use 'auto', 'required', 'none', a tool name, "
        "or {'type': 'function', 'name': NAME}"
    )


@dataclass
class ModelRequest:
    """Everything one round sends to the model.

    ``tools`` are spec dicts (``{"name", "description", "parameters"}``) in menu order.
    ``tool_choice`` is already the one for this round (the loop forces only the first).
    ``parallel_tool_calls`` is ``None`` when the caller did not say. ``menu_explicit`` is
    true when the caller named the tools (``tools=[...]`` or ``toolset=``) rather than
    taking the full default menu; only the offline model looks at it. ``wire`` is set
    when the run captures the wire (``Runtime(capture_wire=True)``): a provider reports
    the body it sends and the frames it receives to it (:mod:`._wire`); other models
    ignore it. ``max_output_tokens`` is the most output tokens this round may spend and
    stay within the run's budget (``max_tokens`` / ``max_cost``), or ``None``: a provider
    sends it as its output cap, lowering any cap of its own. ``prompt_cache``: a provider
    whose cache must be asked for marks where the cached prefix ends (the run setting).
    ``reasoning``: ``"low"``, ``"medium"``, ``"high"``, a token budget, or ``None`` for the
    model's default (the run setting; :mod:`._reasoning` maps it for each provider).
    ``allowed_tools``: the only tools the model may call this round (names of ``tools``,
    all of which stay declared where the provider can say so), or ``None`` for all.
    ``deferred_tools``: when the run asks for the provider's own tool search (the run
    setting ``tool_search="provider"``), the spec of every deferred tool, loaded or not; a
    provider with native tool search declares them deferred in place of the package's
    ``tool_search`` tool, one without says so in a notice and sends ``tools`` as they are.
    Empty otherwise. ``provider_compaction``: when the run asks for the provider's own
    compaction (the run setting ``compact="provider"``) and the model has one
    (:attr:`Model.native_compaction`), the input tokens past which the provider compacts
    the conversation itself; ``None`` otherwise. ``temperature`` and ``stop_sequences``
    (the run settings): sent in the provider's own fields where it has them; a provider
    without one leaves it out and says so in a notice (``None`` / ``()``: not asked for).
    """

    messages: list[UserMessage | AssistantMessage | ToolResultMessage]
    system: str | None = None
    tools: list[JsonObject] = field(default_factory=list)
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool | None = None
    menu_explicit: bool = False
    max_output_tokens: int | None = None
    prompt_cache: bool = True
    reasoning: str | int | None = None
    allowed_tools: list[str] | None = None
    deferred_tools: list[JsonObject] = field(default_factory=list)
    provider_compaction: int | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    wire: WireRecorder | None = field(default=None, repr=False, compare=False)


_StreamedBlock = TypeVar("_StreamedBlock", TextContent, ThinkingContent)


class MessageBuilder:
    """Builds one :class:`AssistantMessage` from stream pieces and says what changed.

    Every method mutates :attr:`message` and returns the matching
    :class:`AssistantUpdate`. Tool-call arguments arrive as JSON fragments; ``end_tool_call``
    parses them. Arguments that are not a JSON object, or that hold NaN or an infinity
    (which JSON has not, though Python's parser takes them, and no provider can be sent
    back), leave ``arguments == {}`` and record the problem in
    ``provider_data["arguments_error"]`` (the loop turns that into an error result the
    model sees). ``message`` is the same object throughout, so a consumer holding
    it sees the message grow.

    The builder is where a provider's reply enters the run, so every text it is given —
    deltas, names, ids, arguments, provider data, frames, error messages — is made valid
    Unicode here (:func:`.._json.valid_text`: a lone surrogate, which JSON allows and
    models do send, becomes U+FFFD), and nothing downstream (transcripts, the notebook's
    metadata, cassettes, the next request) meets one.
    """

    def __init__(self, model: str | None = None) -> None:
        self.message = AssistantMessage(model=model)
        self._raw_arguments: dict[int, list[str]] = {}
        self._open_block: int | None = None
        self.wire: WireRecorder | None = None

    def frame(self, frame: object) -> None:
        """Keep one raw stream frame when the wire is captured (:attr:`wire` set); else nothing."""
        if self.wire is not None:
            self.wire.frame(frame)  # made valid where the wire keeps it (WireRecorder._text)

    # -- text and thinking -------------------------------------------------------------

    def text_delta(self, delta: str) -> AssistantUpdate:
        """Append ``delta`` to the current text block, opening one if needed."""
        delta = valid_text(delta)
        index, block = self._streaming(TextContent) or self._open(TextContent(text=""))
        block.text += delta
        return AssistantUpdate(kind="text_delta", content_index=index, delta=delta)

    def thinking_delta(self, delta: str, signature: str | None = None) -> AssistantUpdate:
        """Append ``delta`` to the current thinking block, opening one if needed."""
        delta = valid_text(delta)
        index, block = self._streaming(ThinkingContent) or self._open(ThinkingContent(thinking=""))
        block.thinking += delta
        if signature is not None:
            block.signature = valid_text(signature)
        return AssistantUpdate(kind="thinking_delta", content_index=index, delta=delta)

    def end_thinking(self) -> None:
        """End the thinking block streaming now, if one is: the next thinking delta opens a
        new block instead of joining it, so the signature or data kept on this one stays
        its own (the provider's block or part ended). A text block streaming now goes on:
        text carries nothing but its words back."""
        if self._streaming(ThinkingContent) is not None:
            self._open_block = None

    def opaque_thinking(self, provider_data: JsonObject) -> AssistantUpdate:
        """A new thinking block with no text to show, only ``provider_data`` to send back
        (Anthropic's redacted thinking, Bedrock's redacted reasoning); it never joins the
        block before it."""
        index, _ = self._open(ThinkingContent(thinking="", provider_data=valid_json(provider_data)))
        return AssistantUpdate(kind="thinking_delta", content_index=index, delta="")

    def provider_block(self, provider_data: JsonObject) -> None:
        """Keep a block of the provider's own with nothing to stream (a server tool's call or
        its result) in its place in the reply, as an empty thinking block holding
        ``provider_data``, for the provider to send back next round; no update (a notice
        says what it did) and nothing streams into it afterwards."""
        self.message.content.append(ThinkingContent(thinking="", provider_data=valid_json(provider_data)))
        self._open_block = None

    def thinking_data(self, provider_data: JsonObject) -> None:
        """Keep ``provider_data`` on the thinking block streaming now (opening an empty one
        if none is): what the provider needs back from it next round."""
        _, block = self._streaming(ThinkingContent) or self._open(ThinkingContent(thinking=""))
        block.provider_data = {**(block.provider_data or {}), **valid_json(provider_data)}

    def _streaming(self, kind: type[_StreamedBlock]) -> tuple[int, _StreamedBlock] | None:
        """The block streaming now and its index, if it is a ``kind`` block."""
        if self._open_block is None:
            return None
        block = self.message.content[self._open_block]
        return (self._open_block, block) if isinstance(block, kind) else None

    def _open(self, block: _StreamedBlock) -> tuple[int, _StreamedBlock]:
        """Append ``block`` as the block streaming now; return its index and it."""
        self.message.content.append(block)
        self._open_block = len(self.message.content) - 1
        return self._open_block, block

    # -- tool calls --------------------------------------------------------------------

    def start_tool_call(
        self, name: str, id: str | None = None, provider_data: JsonObject | None = None
    ) -> AssistantUpdate:
        """Open a tool call; returns an update whose ``content_index`` addresses it."""
        call = ToolCall(
            name=valid_text(name), id=valid_text(id or new_id("call")), provider_data=valid_json(provider_data)
        )
        self.message.content.append(call)
        index = len(self.message.content) - 1
        self._raw_arguments[index] = []
        self._open_block = None
        return AssistantUpdate(kind="toolcall_start", content_index=index, tool_call=call)

    def tool_call_delta(self, index: int, delta: str) -> AssistantUpdate:
        """Append a fragment of the call's argument JSON."""
        delta = valid_text(delta)
        self._raw_arguments[index].append(delta)
        return AssistantUpdate(kind="toolcall_delta", content_index=index, delta=delta)

    def end_tool_call(self, index: int, arguments: JsonObject | None = None) -> AssistantUpdate:
        """Close a call. ``arguments`` given (whole-call providers) wins over fragments."""
        call = self.message.content[index]
        assert isinstance(call, ToolCall)
        raw = "".join(self._raw_arguments.pop(index, []))
        call.arguments = self._parse_arguments(call, raw) if arguments is None else valid_json(arguments)
        if non_finite := non_finite_numbers(call.arguments):
            self._refuse_arguments(
                call,
                "the arguments hold numbers JSON does not have ("
                + "; ".join(f"{where}: {why}" for where, why in non_finite)
                + ")",
                json.dumps(call.arguments),
            )
            call.arguments = {}
        return AssistantUpdate(kind="toolcall_end", content_index=index, tool_call=call)

    def tool_call(
        self,
        name: str,
        arguments: JsonObject,
        id: str | None = None,
        provider_data: JsonObject | None = None,
    ) -> list[AssistantUpdate]:
        """A whole call at once (Gemini): the start and end updates."""
        start = self.start_tool_call(name, id, provider_data)
        return [start, self.end_tool_call(start.content_index, dict(arguments))]

    @staticmethod
    def _parse_arguments(call: ToolCall, raw: str) -> JsonObject:
        if not raw.strip():
            return {}
        try:
            parsed = loads_valid(raw)
        except json.JSONDecodeError as error:
            problem = f"the arguments are not valid JSON ({error.msg} at character {error.pos})"
        else:
            if isinstance(parsed, dict):
                return parsed
            problem = f"the arguments must be a JSON object, not {type(parsed).__name__}"
        MessageBuilder._refuse_arguments(call, problem, raw)
        return {}

    @staticmethod
    def _refuse_arguments(call: ToolCall, problem: str, raw: str) -> None:
        """Mark ``call``'s arguments as unusable: the loop answers it with ``problem``."""
        call.provider_data = {**(call.provider_data or {}), "arguments_error": problem, "raw_arguments": raw[:2000]}

    def open_tool_call_indices(self) -> list[int]:
        """Calls started but not ended (a stream cut short leaves some)."""
        return sorted(self._raw_arguments)

    # -- the end -----------------------------------------------------------------------

    def notice(self, text: str) -> AssistantUpdate:
        """Something the user should know about this round (not part of the message)."""
        return AssistantUpdate(kind="notice", delta=valid_text(text))

    def retry_wait(self, wait: RetryWait) -> AssistantUpdate:
        """The request failed and is sent again after ``wait`` (not part of the message);
        ``delta`` says so in a sentence: ``rate limited (HTTP 429): retrying in 60 s (retry
        1 of 3)``."""
        wait = wait.model_copy(update={"message": valid_text(wait.message)})
        sentence = f"{wait.reason}: retrying in {wait.seconds:.3g} s (retry {wait.retry} of {wait.max_retries})"
        return AssistantUpdate(kind="retry_wait", delta=sentence, retry_wait=wait)

    def finish(self, stop_reason: AssistantStopReason | None = None, usage: Usage | None = None) -> None:
        """End the message. Without ``stop_reason`` it is ``toolUse`` if it holds calls."""
        for index in self.open_tool_call_indices():
            self.end_tool_call(index)
        if usage is not None:
            self.message.usage = usage
        if stop_reason is None:
            stop_reason = "toolUse" if self.message.tool_calls else "stop"
        self.message.stop_reason = stop_reason

    def fail(
        self,
        error_message: str,
        usage: Usage | None = None,
        error: ReplyError | None = None,
        *,
        kind: ErrorKind = "other",
    ) -> None:
        """End the message as failed; whatever streamed so far stays in it. ``error`` is
        the failure as fields; without it, one of ``kind`` with ``error_message`` as its
        summary."""
        self.finish("error", usage)
        self.message.error_message = error_message = valid_text(error_message)
        if error is not None:
            fields = error.model_dump()
            checked = valid_json(fields)
            error = error if checked is fields else ReplyError.model_validate(checked)
        self.message.error = error if error is not None else ReplyError(kind=kind, summary=error_message)


class Model(ABC):
    """A language model the loop can ask for one reply at a time.

    ``name`` is shown in views and stored on each reply (``"openai:gpt-4.1-mini"``).
    ``native_compaction``: whether the model compacts the conversation itself when a
    request asks it to (:attr:`ModelRequest.provider_compaction`), keeping what it did in
    its reply to be sent back; a model without it gets no such request.
    """

    name: str = "model"
    native_compaction: bool = False

    @abstractmethod
    def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        """Stream one reply into ``out``, yielding each update as it happens.

        Must be an async generator. On a provider error call ``out.fail(...)`` and return;
        let ``asyncio.CancelledError`` propagate.
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
