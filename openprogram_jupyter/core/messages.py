"""Content blocks, messages, usage and stop reasons.

These are the values that cross every boundary in the package: providers build
:class:`AssistantMessage` objects, the loop appends :class:`ToolResultMessage` objects, and
the notebook layer renders all three. They are pydantic models so a transcript can be saved
with ``model_dump()`` and loaded again with :func:`parse_message`.

Roles are ``"user"``, ``"assistant"`` and ``"toolResult"``.
"""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter

from ._json import JsonObject, valid_text

__all__ = [
    "SAVED_DEPTH",
    "AssistantMessage",
    "AssistantStopReason",
    "ErrorKind",
    "ImageContent",
    "Message",
    "ReplyError",
    "RunStopReason",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "ToolResultMessage",
    "ToolResultStatus",
    "Usage",
    "UserMessage",
    "new_id",
    "parse_message",
]

AssistantStopReason = Literal["stop", "length", "toolUse", "error", "aborted"]
"""Why one assistant message ended. ``"toolUse"``: it holds tool calls."""

RunStopReason = Literal["stop", "max_iterations", "max_cost", "max_tokens", "error", "aborted", "diverged"]
"""Why a whole run ended (``Run.stop_reason``): the model finished, a limit ended it (the
round cap, the cost limit, the token limit), a reply failed, it was stopped, or — a rerun
(``Run.rerun``) only — its tools' results parted from the recording."""

ErrorKind = Literal[
    "credentials",
    "auth",
    "rate_limit",
    "budget",
    "overloaded",
    "context_length",
    "bad_request",
    "not_found",
    "timeout",
    "server",
    "connection",
    "stream_cut",
    "refused",
    "incomplete",
    "replay",
    "internal",
    "other",
]
"""What kind of failure ended a reply (``ReplyError.kind``, ``run.error.kind``): ``credentials``
no key was found; ``auth`` HTTP 401/403; ``rate_limit`` 429 or a throttling code; ``budget`` a gateway
refused because the key's budget is spent (its error's ``type`` or ``code`` is
``budget_exceeded``, LiteLLM's; never retried);
``overloaded`` 529 or an overload code; ``context_length`` a context-length code;
``bad_request`` 400/422; ``not_found`` 404; ``timeout`` 408 or a timeout code; ``server``
another 5xx; ``connection`` no connection was made; ``stream_cut`` the stream ended early;
``refused`` the model or a content filter refused; ``incomplete`` the provider stopped the
reply; ``replay`` a cassette could not play the round; ``internal`` a bug below the loop;
``other`` anything else."""

ToolResultStatus = Literal["done", "error", "skipped", "cancelled", "interrupted", "denied"]
"""How a tool call ended. Everything but ``"done"`` is sent to the model with ``is_error``."""


def new_id(prefix: str) -> str:
    """A fresh random id such as ``call_3f2a9c1d0b7e``."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def _now() -> float:
    return time.time()


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")


ValidText = Annotated[str, AfterValidator(valid_text)]
"""A text made valid Unicode when a block or message is built (:func:`._json.valid_text`): a
prompt, a steering message or a restored transcript may hold a lone surrogate."""


class TextContent(_Block):
    type: Literal["text"] = "text"
    text: ValidText


class ThinkingContent(_Block):
    """Reasoning the provider chose to show. ``signature`` and ``provider_data`` are
    what the provider needs back unchanged, in the next round, to go on from it (a
    signature over the text; Anthropic's and Bedrock's redacted thinking; an OpenAI
    Responses reasoning item's id and encrypted content)."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    provider_data: JsonObject | None = None


class ImageContent(_Block):
    """An image, base64-encoded, with its MIME type (``image/png``, ``image/jpeg``, ...)."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ToolCall(_Block):
    """The model picked a function: its ``name`` and the ``arguments`` it chose.

    ``id`` pairs the call with its result. Models always assign one; a ``ToolCall`` written
    by hand (for :class:`~openprogram_jupyter.ScriptedModel`) may leave it ``None`` and gets
    a deterministic id when the script is played. ``provider_data`` holds opaque values a
    provider needs back unchanged (Gemini's ``thoughtSignature``).
    """

    type: Literal["toolCall"] = "toolCall"
    name: str
    arguments: JsonObject = Field(default_factory=dict)
    id: str | None = None
    provider_data: JsonObject | None = None


UserContent = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContent = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]


class Usage(BaseModel):
    """Tokens used, and the cost in US dollars where the price is known.

    ``cost`` is ``None`` when any part of the total had no known price: a sum that silently
    left out a round would be a guess.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            total_tokens=self.total_tokens + other.total_tokens,
            cost=cost,
        )

    @classmethod
    def total(cls, usages: list[Usage]) -> Usage:
        """The sum of ``usages``; an empty list costs nothing (``cost == 0.0``)."""
        result = cls(cost=0.0)
        for usage in usages:
            result = result + usage
        return result


class UserMessage(BaseModel):
    """A message of the user's (a prompt, a steering or follow-up message, history).
    ``pinned``: compaction never replaces it with its summary (``op.pin``)."""

    role: Literal["user"] = "user"
    content: ValidText | list[UserContent]
    timestamp: float = Field(default_factory=_now)
    pinned: bool = Field(default=False, exclude_if=lambda pinned: not pinned)

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


class ReplyError(BaseModel):
    """Why a reply failed, as fields (``AssistantMessage.error``): what a view or a cell
    decides by, never the message's words. ``summary`` is one line (what the views show),
    ``detail`` the SDK's or provider's own words where they add something; ``status`` the
    HTTP status, ``code`` the provider's error type, ``retryable`` whether trying again
    could succeed, ``provider`` the provider's name (``"openai"``, …; ``None`` for a
    model that is not a provider's)."""

    kind: ErrorKind = "other"
    summary: str = ""
    detail: str | None = None
    status: int | None = None
    code: str | None = None
    retryable: bool = False
    provider: str | None = None


class AssistantMessage(BaseModel):
    """One reply of the model: text, thinking and tool-call blocks, in the order streamed.
    A failed one (``stop_reason == "error"``) says why in ``error_message`` (its text) and
    ``error`` (its fields; ``None`` in replies saved before it existed)."""

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    stop_reason: AssistantStopReason = "stop"
    error_message: str | None = None
    error: ReplyError | None = None
    usage: Usage = Field(default_factory=Usage)
    model: str | None = None
    timestamp: float = Field(default_factory=_now)

    @property
    def text(self) -> str:
        """The concatenated text blocks (thinking excluded)."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(BaseModel):
    """The one result of one :class:`ToolCall`.

    ``content`` is what the model sees. ``status`` says how the call ended (the model only
    sees ``is_error``); ``details`` keeps what is for people only, such as a traceback, the
    duration in seconds, or how much of a long result was cut. ``returned`` is the Python
    value the tool returned, uncut, in the process that ran it (never saved or sent).
    ``pinned``: compaction keeps it, and the reply that made its call, verbatim (``op.pin``).
    """

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = Field(default_factory=list)
    is_error: bool = False
    status: ToolResultStatus = "done"
    details: JsonObject = Field(default_factory=dict)
    timestamp: float = Field(default_factory=_now)
    pinned: bool = Field(default=False, exclude_if=lambda pinned: not pinned)
    _returned: Any = PrivateAttr(default=None)

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def returned(self) -> Any:
        """The value the tool returned, whole (``None`` for a call that returned nothing,
        did not finish, or whose result was loaded from a file)."""
        return self._returned

    def keep_returned(self, value: object) -> None:
        """Keep ``value``, what the tool returned, beside the result (:attr:`returned`)."""
        self._returned = value


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]

_message_adapter: TypeAdapter[Message] = TypeAdapter(Message)


def parse_message(data: JsonObject) -> UserMessage | AssistantMessage | ToolResultMessage:
    """Load a message saved with ``model_dump()``; the ``role`` key picks the class."""
    return _message_adapter.validate_python(data)


SAVED_DEPTH = 64
"""How deep a tool call's arguments (or a result's details) nest at most in a saved
message (:func:`dump_message`); deeper levels are replaced by a note."""


def dump_message(message: UserMessage | AssistantMessage | ToolResultMessage) -> JsonObject:
    """``message.model_dump(mode="json")``, for saving (a notebook's metadata, a cassette).

    Data a model sent can nest deeper than pydantic serialises (it refuses past its own
    depth limit, about 255 levels), and then nothing of the run was saved. Such a message
    is saved with its tool calls' arguments and its details cut at :data:`SAVED_DEPTH`
    levels, each cut level replaced by a string saying so; the run's own messages keep
    everything.
    """
    try:
        return message.model_dump(mode="json")
    except (ValueError, RecursionError):
        pass
    if isinstance(message, AssistantMessage):
        content = [
            block.model_copy(
                update={
                    "arguments": _cut_depth(block.arguments, SAVED_DEPTH),
                    "provider_data": _cut_depth(block.provider_data, SAVED_DEPTH),
                }
            )
            if isinstance(block, ToolCall)
            else block
            for block in message.content
        ]
        return message.model_copy(update={"content": content}).model_dump(mode="json")
    if isinstance(message, ToolResultMessage):
        return message.model_copy(update={"details": _cut_depth(message.details, SAVED_DEPTH)}).model_dump(mode="json")
    raise ValueError("a message nested past what can be saved, with no tool call or details to cut")


def _cut_depth(value: object, levels: int) -> Any:
    """``value`` with whatever lies more than ``levels`` containers deep replaced by a note."""
    if not isinstance(value, (dict, list)):
        return value
    if levels <= 0:
        return f"(nested deeper than {SAVED_DEPTH} levels: cut when saved)"
    if isinstance(value, dict):
        return {key: _cut_depth(item, levels - 1) for key, item in value.items()}
    return [_cut_depth(item, levels - 1) for item in value]
