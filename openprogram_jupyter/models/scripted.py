"""``ScriptedModel``: an offline, deterministic model that plays a script, one item a round."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace

from ..core.events import AssistantUpdate
from ..core.messages import AssistantMessage, AssistantStopReason, TextContent, ThinkingContent, ToolCall, Usage
from .base import MessageBuilder, Model, ModelRequest

__all__ = ["ScriptItem", "ScriptedModel"]

ScriptItem = str | ToolCall | Sequence[ToolCall] | AssistantMessage | Callable[[ModelRequest], "ScriptItem"]

_WORDS = re.compile(r"\S+\s*|\s+")


class ScriptedModel(Model):
    """Plays ``script`` one item per round, streaming it like a real provider would.

    Each item is what the model "says" in that round:

    - a ``str`` — final text (streamed word by word);
    - a :class:`ToolCall` — one pick; a list of them — several picks in one round;
    - an :class:`AssistantMessage` — played as is (use it for thinking blocks, a
      ``stop_reason="error"``, or usage numbers); a thinking block keeps its
      ``provider_data``, and one with nothing to show but that (a provider's own block: a
      server tool's, a compaction's) is kept as a provider sends it, without an update;
    - a callable taking the :class:`ModelRequest` and returning one of the above, for
      replies that depend on what was sent.

    Calls without an ``id`` get ``call_<round>_<index>``, where round is the later of the
    conversation's round and this model's own round (so ids repeat neither in a
    conversation the model took over nor between an outer and a nested run), and
    transcripts are the same on every run. ``requests`` records what each
    round was sent. Asking for a round past the end of the script ends that round with
    ``stop_reason="error"`` and a message saying how long the script is — never a made-up
    reply. ``delay`` seconds are slept before
    each streamed piece (for demos that should visibly stream); with no delay the model
    still yields to the event loop between pieces.
    """

    def __init__(self, script: Sequence[ScriptItem], *, name: str = "scripted", delay: float = 0.0) -> None:
        if isinstance(script, (str, ToolCall, AssistantMessage)):
            raise TypeError("ScriptedModel takes a list of items, one per round")
        self.script = list(script)
        self.name = name
        self.delay = delay
        self.requests: list[ModelRequest] = []
        self.position = 0
        """The script item the next round plays (0: the first)."""

    @property
    def rounds_played(self) -> int:
        return len(self.requests)

    def rewind(self, position: int = 0) -> None:
        """Play the script from item ``position`` on (``model.requests`` keeps every round
        played). A ``%%agent`` cell run again rewinds its model to where the cell first
        started it, so re-running a cell replays the same rounds."""
        if not 0 <= position <= len(self.script):
            raise ValueError(
                f"ScriptedModel.rewind: position {position} is outside the script (0 to {len(self.script)})"
            )
        self.position = position

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        round_index = self.position
        self.position += 1
        self.requests.append(replace(request, messages=list(request.messages), tools=list(request.tools)))
        if round_index >= len(self.script):
            out.fail(
                f"ScriptedModel: the script has {len(self.script)} round(s) and round "
                f"{round_index + 1} was requested; add more items to the script"
            )
            return
        item = self.script[round_index]
        if callable(item) and not isinstance(item, (ToolCall, AssistantMessage)):
            item = item(request)
        # Ids are unique both ways: past the conversation's rounds (a model that takes over a
        # conversation — a fork, a session — must not reuse the ids of the replies before
        # it) and past this model's own rounds (a nested run's conversation starts afresh,
        # and its calls must not take the ids of the outer run's).
        conversation_round = sum(m.role == "assistant" for m in request.messages) + 1
        message = _as_message(item, round_index, max(conversation_round, len(self.requests)))
        for block in message.content:
            if isinstance(block, TextContent):
                for word in _WORDS.findall(block.text):
                    await self._pause()
                    yield out.text_delta(word)
            elif isinstance(block, ThinkingContent):
                await self._pause()
                if block.thinking or block.signature or not block.provider_data:
                    yield out.thinking_delta(block.thinking, block.signature)
                    if block.provider_data:  # what the provider needs back from it (encrypted reasoning)
                        out.thinking_data(block.provider_data)
                else:  # a provider's own block with nothing to show (a server tool's, a compaction's)
                    out.provider_block(block.provider_data)
            else:
                await self._pause()
                start = out.start_tool_call(block.name, block.id, block.provider_data)
                yield start
                yield out.tool_call_delta(start.content_index, json.dumps(block.arguments))
                yield out.end_tool_call(start.content_index, dict(block.arguments))
        usage = message.usage if message.usage != Usage() else None
        if message.stop_reason == "error":
            out.fail(message.error_message or "scripted error", usage, message.error)
        else:
            default: AssistantStopReason = "toolUse" if message.tool_calls else "stop"
            out.finish(message.stop_reason if message.stop_reason != "stop" else default, usage)

    async def _pause(self) -> None:
        # Even with no delay, yield to the event loop so a view can redraw and Stop can land.
        await asyncio.sleep(self.delay)

    def __repr__(self) -> str:
        return f"<ScriptedModel {self.name}: {len(self.script)} rounds, {self.rounds_played} played>"


def _as_message(item: object, round_index: int, conversation_round: int) -> AssistantMessage:
    if isinstance(item, AssistantMessage):
        pass
    elif isinstance(item, str):
        return AssistantMessage(content=[TextContent(text=item)])
    elif isinstance(item, ToolCall):
        item = AssistantMessage(content=[item])
    elif isinstance(item, (list, tuple)) and item and all(isinstance(c, ToolCall) for c in item):
        item = AssistantMessage(content=list(item))
    else:
        raise TypeError(
            f"ScriptedModel round {round_index + 1}: expected a str, a ToolCall, a list of "
            f"ToolCalls or an AssistantMessage, got {type(item).__name__}"
        )
    blocks, calls_seen = [], 0
    for block in item.content:
        if isinstance(block, ToolCall):
            calls_seen += 1
            if block.id is None:
                block = block.model_copy(update={"id": f"call_{conversation_round}_{calls_seen}"})
        blocks.append(block)
    return item.model_copy(update={"content": blocks})
