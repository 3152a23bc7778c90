"""Secrets masked where outside text enters a run's record: replies, their stream, tool results.

The loop and the tool-call code pass what a model or a tool produced through these before
it becomes a message or an event, so the record (``run.messages``, ``run.events``,
``run.error``) holds no known secret, and everything drawn from it — views, transcripts,
cassettes — holds none either. What is masked, and how (:mod:`._secrets`):

- a reply's text and thinking, streamed or whole: known values (a signed thinking block
  whose text changed loses its signature: it no longer signs that text);
- a reply's error message and the provider's notices: known values and key shapes;
- a tool result's text and every string of its details (the traceback kept for the
  view, a rich display): known values, and key shapes too for a failed call (the tool's
  own exception text);
- what a tool reports as progress (shown, never sent): known values and key shapes, in
  every string of it.

A tool call's arguments are not masked: the tool gets them as the model wrote them.

A tool result and its progress are also made valid Unicode here (:func:`._json.valid_text`:
a lone surrogate, as a file name read with ``surrogateescape`` holds, becomes U+FFFD), as
a reply is where it is built (:class:`.models.base.MessageBuilder`).
"""

from __future__ import annotations

from typing import Any, Literal

from ._json import valid_json, valid_text
from ._secrets import Secrets, StreamMask
from .events import AssistantUpdate
from .messages import AssistantMessage, TextContent, ThinkingContent, ToolResultMessage

__all__ = ["ReplyMask", "mask_progress", "mask_result"]

_Streamed = Literal["text_delta", "thinking_delta"]
_STREAMED: dict[str, _Streamed] = {
    "text_start": "text_delta",
    "text_delta": "text_delta",
    "thinking_start": "thinking_delta",
    "thinking_delta": "thinking_delta",
}


class ReplyMask:
    """Masks one reply: each update as it streams (:meth:`update`), what the stream held
    back (:meth:`held_back`), then the finished message in place (:meth:`finish`)."""

    def __init__(self, secrets: Secrets | None = None) -> None:
        self._given = secrets
        self._known: tuple[Secrets, StreamMask] | None = None
        self._kinds: dict[int, _Streamed] = {}

    @property
    def secrets(self) -> Secrets:
        """The secrets masked: those given, else every secret known when the reply's first
        piece (or its end) arrived — not when the mask was made, since a provider may make
        its credentials known as it connects (Bedrock's AWS profile: the first round's
        reply must not show them)."""
        return self._taken()[0]

    @property
    def _pieces(self) -> StreamMask:
        return self._taken()[1]

    def _taken(self) -> tuple[Secrets, StreamMask]:
        if self._known is None:
            secrets = self._given if self._given is not None else Secrets.now()
            self._known = (secrets, StreamMask(secrets))
        return self._known

    def update(self, update: AssistantUpdate) -> AssistantUpdate:
        """``update`` as it may be shown: streamed text without any known value (an end
        that could begin one waits for the next piece), a notice without any secret."""
        if update.kind == "notice":
            return _with_delta(update, self.secrets.mask(update.delta))
        kind = _STREAMED.get(update.kind)
        if kind is None or not update.delta:
            return update
        self._kinds[update.content_index] = kind
        return _with_delta(update, self._pieces.feed(update.content_index, update.delta))

    def held_back(self) -> list[AssistantUpdate]:
        """One update per stream whose end was still waiting, with that end masked."""
        return [
            AssistantUpdate(kind=self._kinds[index], content_index=index, delta=text)
            for index, text in self._pieces.flush().items()
        ]

    def finish(self, message: AssistantMessage) -> None:
        """Mask the finished (or failed, or stopped) reply in place."""
        for block in message.content:
            if isinstance(block, TextContent):
                block.text = self.secrets.mask_values(block.text)
            elif isinstance(block, ThinkingContent):
                masked = self.secrets.mask_values(block.thinking)
                if masked != block.thinking:
                    block.thinking, block.signature = masked, None
        if message.error_message:
            message.error_message = self.secrets.mask(message.error_message)
        if message.error is not None:
            message.error.summary = self.secrets.mask(message.error.summary)
            message.error.detail = self.secrets.mask(message.error.detail) if message.error.detail else None


def mask_result(result: ToolResultMessage, secrets: Secrets | None = None) -> ToolResultMessage:
    """Mask a tool result in place and return it: known values in its text and in every
    string of its details (the traceback, a rich display); key shapes too for a failed
    call, whose text and traceback are the tool's own exception (a successful result's
    data, a figure's base64 among it, is left as it is but for known values). Every string
    of its text and details is made valid Unicode (:func:`._json.valid_json`)."""
    secrets = secrets if secrets is not None else Secrets.now()
    mask = secrets.mask if result.is_error else secrets.mask_values
    for block in result.content:
        if isinstance(block, TextContent):
            block.text = valid_text(mask(block.text))
    result.details = valid_json(secrets.mask_data(result.details, shapes=result.is_error))
    return result


def mask_progress(data: object) -> Any:
    """What a tool reported as progress, with every string in it masked (in new containers)
    and made valid Unicode."""
    return valid_json(Secrets.now().mask_data(data))


def _with_delta(update: AssistantUpdate, delta: str) -> AssistantUpdate:
    return update if delta == update.delta else update.model_copy(update={"delta": delta})
