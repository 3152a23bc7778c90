"""A provider's own tool search (the run setting ``tool_search="provider"``), declared and
read back in each provider's way (docs/tools.md, "Deferred tools"; docs/providers.md,
"Tool features").

A round that asks for it carries every deferred tool's spec in
``ModelRequest.deferred_tools``; its ``tools`` are what the package's own search would send
(the package's ``tool_search`` tool and the deferred tools it loaded so far included). A
provider with native tool search declares :func:`eager_specs` as usual, every deferred
spec with its ``defer_loading`` field, and its search tool; the provider then runs the
search inside its reply and sends back what it searched and what it loaded, which the
provider module keeps in the reply (to be sent back next round as it came) and shows in a
notice (:func:`search_notice`). A provider without one sends ``tools`` as they are, so the
package's own search runs, and says so once a round (:func:`fallback_notices`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..core._json import JsonObject
from ..core.events import AssistantUpdate
from ..tools.menu import SEARCH_TOOL_NAME
from ._history import json_arguments
from ._json_data import json_index, json_object, json_objects, json_text
from .base import MessageBuilder, ModelRequest

__all__ = [
    "ANTHROPIC_BLOCK",
    "ANTHROPIC_SEARCH_TOOL",
    "RESPONSES_ITEM",
    "RESPONSES_SEARCH_TOOL",
    "AnthropicServerBlocks",
    "ResponsesSearchItems",
    "eager_specs",
    "fallback_notices",
    "search_notice",
]


def eager_specs(request: ModelRequest, specs: Sequence[JsonObject] | None = None) -> list[JsonObject]:
    """``specs`` (default: ``request.tools``) less the package's ``tool_search`` tool and
    every deferred tool: what a provider with native search declares without deferring.
    All of ``specs`` when the round does not ask for the provider's search."""
    specs = request.tools if specs is None else specs
    if not request.deferred_tools:
        return list(specs)
    deferred = {spec["name"] for spec in request.deferred_tools}
    return [spec for spec in specs if spec["name"] not in deferred and spec["name"] != SEARCH_TOOL_NAME]


def fallback_notices(request: ModelRequest, who: str) -> list[str]:
    """The round's notice when it asks for the provider's search and ``who`` has none: the
    package's own ``tool_search`` tool runs instead. No notice otherwise."""
    if not request.deferred_tools:
        return []
    count = len(request.deferred_tools)
    return [
        f"{who} has no tool search of its own: the package's tool_search tool finds the "
        f"{count} deferred tool{'' if count == 1 else 's'} instead (tool_search='provider' asked)"
    ]


def search_notice(who: str, query: object, loaded: Sequence[str], *, failed: str | None = None) -> str:
    """What ``who``'s tool search did in a reply, in one line: the ``query`` the model gave
    it (as JSON: it is the model's text) and the tools it loaded, in order; or, when the
    search ``failed``, the provider's error code and that nothing was loaded."""
    asked = query if isinstance(query, str) else json.dumps(query, ensure_ascii=False, sort_keys=True)
    searched = f"{who} tool search: searched for {json.dumps(asked, ensure_ascii=False)}"
    if failed is not None:
        return f"{searched}, which failed ({failed}): no tool was loaded"
    return f"{searched}, loaded {', '.join(loaded) if loaded else 'no tool'}"


ANTHROPIC_SEARCH_TOOL: JsonObject = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
"""Anthropic's tool search tool (BM25 over the deferred tools' names and descriptions: the
model searches in words, as it does with the package's own)."""

ANTHROPIC_BLOCK = "anthropic_server_block"
"""The ``provider_data`` key of a kept Anthropic server block (``server_tool_use``,
``tool_search_tool_result``)."""

_ANTHROPIC_SERVER_TYPES = ("server_tool_use", "tool_search_tool_result")


class AnthropicServerBlocks:
    """The server tool blocks of one streamed Anthropic reply: each kept whole in its place
    (:meth:`MessageBuilder.provider_block`, the JSON as it came, a ``server_tool_use``'s
    input joined from its fragments), and a notice for each search result naming what was
    searched and what was loaded."""

    def __init__(self) -> None:
        self._open: dict[int, tuple[JsonObject, list[str]]] = {}
        self._inputs: dict[str, object] = {}

    def read(self, event: JsonObject, out: MessageBuilder) -> list[AssistantUpdate] | None:
        """The updates ``event`` (a streamed event's parsed JSON) makes when it belongs to a
        server block (none, or the search's notice), or ``None`` when it does not: the
        caller reads it."""
        index = json_index(event.get("index"))  # only the content block events have one
        kind = event.get("type")
        if kind == "content_block_start":
            block = json_object(event.get("content_block"))
            if block.get("type") in _ANTHROPIC_SERVER_TYPES:
                self._open[index] = (block, [])
                return []
        if index not in self._open:
            return None
        if kind == "content_block_delta":
            delta = json_object(event.get("delta"))
            if delta.get("type") == "input_json_delta" and json_text(delta.get("partial_json")):
                self._open[index][1].append(delta["partial_json"])
            return []
        if kind != "content_block_stop":
            return []
        block, fragments = self._open.pop(index)
        if fragments:
            block["input"] = json_arguments("".join(fragments)) or {}
        out.provider_block({ANTHROPIC_BLOCK: block})
        if block.get("type") == "server_tool_use":
            self._inputs[json_text(block.get("id"))] = block.get("input")
            return []
        content = json_object(block.get("content"))
        loaded = [json_text(ref.get("tool_name")) for ref in json_objects(content.get("tool_references"))]
        asked = json_object(self._inputs.get(json_text(block.get("tool_use_id"))))
        failed = None
        if content.get("type") == "tool_search_tool_result_error":
            failed = json_text(content.get("error_code")) or "no error code given"
        return [out.notice(search_notice("Anthropic's", asked.get("query", asked), loaded, failed=failed))]


RESPONSES_SEARCH_TOOL: JsonObject = {"type": "tool_search"}
"""OpenAI Responses' tool search, run by the server (its default execution)."""

RESPONSES_ITEM = "responses_search_item"
"""The ``provider_data`` key of a kept Responses search item."""

_RESPONSES_ITEM_FIELDS = {
    "tool_search_call": ("type", "id", "call_id", "execution", "status", "arguments"),
    "tool_search_output": ("type", "id", "call_id", "execution", "status", "tools"),
}


class ResponsesSearchItems:
    """The search items of one streamed Responses reply (``tool_search_call``,
    ``tool_search_output``): each kept in its place with the fields an input item takes,
    and a notice for each output naming what was searched and what was loaded."""

    def __init__(self) -> None:
        self._arguments: dict[str, object] = {}

    @staticmethod
    def owns(item: JsonObject) -> bool:
        """Whether ``item`` (a finished output item) is a search item."""
        return item.get("type") in _RESPONSES_ITEM_FIELDS

    def read(self, item: JsonObject, out: MessageBuilder) -> list[AssistantUpdate]:
        """Keep the finished search ``item``; the search's notice once its output came."""
        fields = _RESPONSES_ITEM_FIELDS[json_text(item.get("type"))]
        kept = {key: item[key] for key in fields if item.get(key) is not None}
        out.provider_block({RESPONSES_ITEM: kept})
        if kept["type"] == "tool_search_call":
            self._arguments[json_text(item.get("call_id"))] = item.get("arguments")
            return []
        loaded = [json_text(tool.get("name")) for tool in json_objects(item.get("tools"))]
        asked = json_object(self._arguments.get(json_text(item.get("call_id"))))
        return [out.notice(search_notice("OpenAI Responses'", asked.get("query", asked), loaded))]
