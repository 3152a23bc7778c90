"""The context window: how many tokens a request may carry, and whether the next one fits.

The window is the run setting ``context_window``, else the model's own
``context_window`` attribute, else the model data (:mod:`.models.context_windows`); with
none of these nothing is checked. Before each request the loop estimates its size
(:func:`request_tokens`) and, when it is larger than the window, ends the round as a
``context_length`` error without sending it — a refusal that costs nothing, where the
provider's would cost a request (and on some servers a silent truncation).

The estimate uses the provider's own count wherever it has one: the prompt tokens of the
latest reply plus that reply's output, then about one token per
:data:`CHARS_PER_TOKEN` characters (and :data:`IMAGE_TOKENS` per image) of what came
after. Before the first reply it estimates everything the same way, the system prompt
and the tools' schemas included.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.messages import AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall, Usage
from ..models.context_windows import context_window_for

if TYPE_CHECKING:
    from ..models.base import Model, ModelRequest
    from .settings import RunSettings

__all__ = ["CHARS_PER_TOKEN", "IMAGE_TOKENS", "context_refusal", "context_window", "request_tokens"]

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1_600  # about what Anthropic and OpenAI count for an image scaled to fit (docs/tools.md)


def context_window(settings: RunSettings, model: Model) -> int | None:
    """The window of the run's requests: the setting, the model's attribute, the data."""
    own = getattr(model, "context_window", None)
    return settings["context_window"] or (own if isinstance(own, int) else None) or context_window_for(model.name)


def request_tokens(request: ModelRequest, counted_from: int = 0) -> int:
    """An estimate of the tokens ``request`` carries (see the module doc); a reply before
    position ``counted_from`` (one counted before a compaction) is estimated, not trusted."""
    messages = request.messages
    counted = _last_counted(messages, counted_from)
    if counted is None:
        known, new, chars = 0, messages, len(request.system or "") + len(json.dumps(request.tools, default=str))
    else:
        last, usage = counted
        known, new, chars = usage.input + usage.cache_read + usage.cache_write + usage.output, messages[last + 1 :], 0
    images = 0
    for message in new:
        content = message.content if not isinstance(message.content, str) else [TextContent(text=message.content)]
        for block in content:
            if isinstance(block, ImageContent):
                images += 1
            elif isinstance(block, TextContent):
                chars += len(block.text)
            elif isinstance(block, ThinkingContent):
                chars += len(block.thinking)
            elif isinstance(block, ToolCall):
                chars += len(block.name) + len(json.dumps(block.arguments, default=str))
    return known + chars // CHARS_PER_TOKEN + images * IMAGE_TOKENS


def _last_counted(messages: Sequence[object], counted_from: int = 0) -> tuple[int, Usage] | None:
    """The index and usage of the newest reply whose provider counted its prompt, found
    from the end (it is nearly always the last reply: a forward scan would walk the whole
    history on every round); ``None`` when no reply was counted."""
    for index in reversed(range(counted_from, len(messages))):
        message = messages[index]
        if isinstance(message, AssistantMessage) and message.usage.input + message.usage.cache_read > 0:
            return index, message.usage
    return None


def context_refusal(request: ModelRequest, window: int | None, model_name: str, counted_from: int = 0) -> str | None:
    """Why ``request`` is not sent — it would not fit ``window`` — or ``None`` if it fits
    (or no window is known); ``counted_from`` as for :func:`request_tokens`."""
    if window is None:
        return None
    size = request_tokens(request, counted_from)
    if size <= window:
        return None
    return (
        f"the next request would carry about {size:,} tokens, more than {model_name}'s context window of "
        f"{window:,}: it was not sent. Start a new session, shorten the history, set compact= (such as 0.8) "
        "to summarise older rounds, or set context_window= if the model takes more"
    )
