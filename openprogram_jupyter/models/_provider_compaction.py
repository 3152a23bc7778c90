"""A provider's own compaction (the run setting ``compact="provider"``), asked for and read
back in each provider's way (docs/semantics.md, "Compaction"; docs/providers.md, "Tool
features").

A round that asks for it carries the threshold in ``ModelRequest.provider_compaction``;
only a model that declares ``native_compaction`` is given one (the engine runs the
package's own compaction for the others and says so). The provider then compacts inside
its reply once the request's input passes the threshold, and sends what it compacted to:

- Anthropic: a ``compaction`` block (its summary, or ``null`` when compaction failed,
  with what the API needs round-tripped), asked for with the ``compact_20260112`` edit of
  ``context_management`` under the ``compact-2026-01-12`` beta. The block is kept in its
  place in the reply and sent back as it came; the API itself drops what came before it.
- OpenAI Responses: a ``compaction`` output item (encrypted), asked for with
  ``context_management: [{"type": "compaction", "compact_threshold": N}]``. The item is
  kept in its place and sent back, and every input item before the newest one is left out
  of the next request: the item stands for them.

Either way one notice says what the provider did (:func:`compaction_notice`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core._json import JsonObject
from ..core.events import AssistantUpdate
from ..core.messages import Usage
from ._json_data import json_count, json_index, json_object, json_objects, json_text
from ._tool_search import ANTHROPIC_BLOCK, RESPONSES_ITEM
from .base import MessageBuilder

__all__ = [
    "ANTHROPIC_COMPACTION_BETA",
    "AnthropicCompaction",
    "ResponsesCompaction",
    "anthropic_context_management",
    "compaction_notice",
    "from_newest_compaction",
    "responses_context_management",
]

ANTHROPIC_COMPACTION_BETA = "compact-2026-01-12"
"""The ``anthropic-beta`` header value of the ``compact_20260112`` edit."""

ANTHROPIC_MIN_TRIGGER = 50_000
"""The lowest ``input_tokens`` trigger Anthropic's compaction takes."""

_ANTHROPIC_BLOCK_FIELDS = ("type", "content", "encrypted_content", "signature", "tool_changes")
_RESPONSES_ITEM_FIELDS = ("type", "id", "encrypted_content")
_SPENT_FIELDS = {
    "input": "input_tokens",
    "output": "output_tokens",
    "cache_read": "cache_read_input_tokens",
    "cache_write": "cache_creation_input_tokens",
}


def anthropic_context_management(trigger: int) -> tuple[JsonObject, list[str]]:
    """Anthropic's ``context_management``: compact once the input passes ``trigger`` tokens,
    raised to :data:`ANTHROPIC_MIN_TRIGGER` with a notice when lower."""
    notices = []
    if trigger < ANTHROPIC_MIN_TRIGGER:
        notices.append(
            f"Anthropic compacts past no fewer than {ANTHROPIC_MIN_TRIGGER:,} input tokens: its compaction was asked "
            f"for past {ANTHROPIC_MIN_TRIGGER:,}, not {trigger:,}"
        )
        trigger = ANTHROPIC_MIN_TRIGGER
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": trigger}}
    return {"edits": [edit]}, notices


def responses_context_management(threshold: int) -> list[JsonObject]:
    """OpenAI Responses' ``context_management``: compact past ``threshold`` tokens."""
    return [{"type": "compaction", "compact_threshold": threshold}]


def compaction_notice(who: str, threshold: int | None, summary: str | None, after: int | None) -> str:
    """What ``who``'s compaction did, in one line: past which threshold, the summary's
    length (``None``: encrypted, or the compaction failed) and the input tokens the
    request counted after it, when the reply says."""
    past = f" past {threshold:,} tokens" if threshold is not None else ""
    if summary is None:
        kept = "into an encrypted summary"
    else:
        kept = f"into a summary of {len(summary):,} characters"
    then = f"; the request then counted {after:,} input tokens" if after is not None else ""
    return f"{who} compacted the conversation itself{past}, {kept}{then}"


class AnthropicCompaction:
    """The ``compaction`` blocks of one streamed Anthropic reply: each kept whole in its
    place (:meth:`MessageBuilder.provider_block`, sent back next round as it came, with
    what the ``compaction_delta`` events set), and, once the reply's usage came, a notice
    for them and the compaction's own tokens (:meth:`counted`)."""

    def __init__(self, threshold: int | None) -> None:
        self._threshold = threshold
        self._open: dict[int, JsonObject] = {}
        self._summaries: list[str | None] = []
        self._after: int | None = None
        self._spent: dict[str, int] = {}

    def read(self, event: JsonObject, out: MessageBuilder) -> bool:
        """Take ``event`` (a streamed event's parsed JSON) when it belongs to a compaction
        block; ``False`` when it does not: the caller reads it. The usage a
        ``message_start`` or ``message_delta`` reports is read too (and left to the caller)."""
        index = json_index(event.get("index"))
        kind = event.get("type")
        if kind in ("message_start", "message_delta"):
            self._usage(
                event.get("usage") if kind == "message_delta" else json_object(event.get("message")).get("usage")
            )
            return False
        if kind == "content_block_start":
            block = json_object(event.get("content_block"))
            if block.get("type") == "compaction":
                self._open[index] = block
                return True
        if index not in self._open:
            return False
        if kind == "content_block_delta":
            delta = json_object(event.get("delta"))
            if delta.get("type") == "compaction_delta":  # each delta sets the fields, as the SDK reads them
                self._open[index].update({key: delta.get(key) for key in ("content", "encrypted_content")})
        elif kind == "content_block_stop":
            block = self._open.pop(index)
            kept = {key: block[key] for key in _ANTHROPIC_BLOCK_FIELDS if key in block}
            out.provider_block({ANTHROPIC_BLOCK: kept})
            content = kept.get("content")
            self._summaries.append(content if isinstance(content, str) else None)
        return True

    def _usage(self, usage: object) -> None:
        """Read a reported ``usage``: the input tokens of the sampling that followed the
        last compaction (its ``iterations``), when it lists one."""
        iterations = json_objects(json_object(usage).get("iterations"))
        kinds = [json_text(entry.get("type")) for entry in iterations]
        compactions = [entry for entry in iterations if entry.get("type") == "compaction"]
        if compactions:  # each report lists every iteration so far: the latest one wins
            self._spent = {
                key: sum(json_count(entry.get(field)) for entry in compactions) for key, field in _SPENT_FIELDS.items()
            }
        if "compaction" in kinds:
            last = len(kinds) - 1 - kinds[::-1].index("compaction")
            after = [entry for entry in iterations[last + 1 :] if entry.get("type") == "message"]
            self._after = json_count(after[0].get("input_tokens")) if after else None

    def counted(self, usage: Usage, priced: Callable[..., Usage]) -> Usage:
        """``usage`` (the reply's, which leaves the compaction's own tokens out) with those
        tokens, priced by ``priced(input=, output=, cache_read=, cache_write=)``, added to
        its total and its cost; its input and output counts stay those of the context."""
        if not self._spent:
            return usage
        own = priced(**self._spent)
        cost = None if usage.cost is None or own.cost is None else usage.cost + own.cost
        return usage.model_copy(update={"total_tokens": usage.total_tokens + own.total_tokens, "cost": cost})

    def notices(self, who: str, out: MessageBuilder) -> list[AssistantUpdate]:
        """The reply's notice for each compaction block it held."""
        return [
            out.notice(compaction_notice(who, self._threshold, summary, self._after)) for summary in self._summaries
        ]


class ResponsesCompaction:
    """The ``compaction`` items of one streamed Responses reply: each kept in its place with
    the fields an input item takes, and a notice for each."""

    def __init__(self, threshold: int | None) -> None:
        self._threshold = threshold
        self._count = 0

    @staticmethod
    def owns(item: JsonObject) -> bool:
        """Whether ``item`` (a finished output item) is a compaction item."""
        return item.get("type") == "compaction"

    def read(self, item: JsonObject, out: MessageBuilder) -> None:
        """Keep the finished compaction ``item``."""
        kept = {key: item[key] for key in _RESPONSES_ITEM_FIELDS if item.get(key) is not None}
        out.provider_block({RESPONSES_ITEM: kept})
        self._count += 1

    def notices(self, who: str, usage: object, out: MessageBuilder) -> list[AssistantUpdate]:
        """The reply's notice for each compaction item it held, with the input tokens its
        final ``usage`` counted."""
        counted = json_object(usage).get("input_tokens")
        after = json_count(counted) if counted is not None else None
        return [out.notice(compaction_notice(who, self._threshold, None, after)) for _ in range(self._count)]


def from_newest_compaction(items: Sequence[JsonObject]) -> list[JsonObject] | None:
    """``items`` (a Responses input) from its newest compaction item on, which stands for
    every item before it; ``None`` when it holds none."""
    for index in reversed(range(len(items))):
        if items[index].get("type") == "compaction":
            return list(items[index:])
    return None
