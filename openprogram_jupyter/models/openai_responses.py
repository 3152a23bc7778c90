"""The OpenAI Responses API (``openai-responses:<model>``).

The API's own rules this module relies on are in docs/providers.md, "Wire facts". Keys,
endpoint and the client are those of
:class:`~openprogram_jupyter.models.openai_chat.OpenAIChatModel`. What differs:

- Requests are stateless: ``store: false``, the whole history goes in ``input`` each
  round (earlier ``function_call`` items echoed, then one ``function_call_output`` per
  call). Tools are sent with ``strict: false`` so ordinary JSON Schemas are accepted as
  they are; a strict tool with ``strict: true`` and its schema in strict form.
- Tool results may carry images (``input_image`` parts inside the output).
- Reasoning (the run setting ``reasoning``): ``reasoning: {effort, summary: "auto"}`` and
  ``include: ["reasoning.encrypted_content"]``. Summaries stream as thinking; each
  reasoning item's id and encrypted content are kept on its thinking block and sent back
  as that ``reasoning`` item, before the turn's calls, so the model goes on from its own
  reasoning in the next round (only items of this provider carry them).
- The provider's own compaction (the run setting ``compact="provider"``):
  ``context_management: [{"type": "compaction", "compact_threshold": N}]``; a reply's
  ``compaction`` item is kept and sent back, the input items before the newest one left
  out (the item stands for them), and a notice says what it did
  (:mod:`._provider_compaction`).
- The end of the reply is ``response.completed``; ``response.incomplete`` for
  ``max_output_tokens`` ends it with ``stop_reason="length"``, any other reason, a
  ``response.failed`` or an ``error`` event ends it as an error. A stream that ends
  without any of these is an error too (what arrived is kept).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from ..core._json import JsonObject
from ..core.events import AssistantUpdate
from ..core.messages import AssistantMessage, TextContent, ThinkingContent, UserMessage
from ._history import AssistantTurn, data_url, json_arguments, result_images, result_parts, result_text, user_blocks
from ._incremental import takes_raw_bodies
from ._json_data import json_count, json_object, json_text
from ._provider_common import ProviderError, sampling_fields
from ._provider_compaction import ResponsesCompaction, from_newest_compaction, responses_context_management
from ._provider_errors import StreamCutError, retryable_code
from ._provider_info import PLAIN_TOOL_NAME, ProviderInfo, Spec, ToolRules, ToolShape, declared_parameters
from ._reasoning import reasoning_effort
from ._stop_reasons import RESPONSES_INCOMPLETE
from ._tool_features import allowed_names, described_with_examples, strict_notices, strict_parameters
from ._tool_search import RESPONSES_ITEM, RESPONSES_SEARCH_TOOL, ResponsesSearchItems, eager_specs
from ._wire_fold import openai_responses_frames
from .base import MessageBuilder, ModelRequest
from .openai_chat import INFO as CHAT_INFO
from .openai_chat import OpenAIChatModel

__all__ = ["INFO", "OpenAIResponsesModel", "openai_responses_tool"]


def openai_responses_tool(spec: Spec) -> JsonObject:
    """An element of the Responses API's ``tools`` (flat). ``strict`` is false, so ordinary
    JSON Schemas pass as they are, except for a strict spec whose schema strict mode can
    express: ``strict: true`` and the parameters in strict form. Examples go in the
    description."""
    parameters = declared_parameters(spec)
    strict = strict_parameters(spec, parameters, "openai")
    return {
        "type": "function",
        "name": spec["name"],
        "description": described_with_examples(spec),
        "parameters": parameters if strict is None else strict,
        "strict": strict is not None,
    }


INFO = ProviderInfo(
    prefix="openai-responses",
    wire_messages="input",
    fold_frames=openai_responses_frames,
    model_class="openprogram_jupyter.models.openai_responses:OpenAIResponsesModel",
    key_variables=CHAT_INFO.key_variables,
    endpoint_variables=CHAT_INFO.endpoint_variables,
    tool_shape=ToolShape("OpenAI Responses", 'an element of "tools"', openai_responses_tool),
    tool_rules=ToolRules(PLAIN_TOOL_NAME, "letters, digits, '_' and '-', 1 to 64 characters"),
    trace_name="openai",
    prices_id="openai",
    native_compaction=True,
)


class OpenAIResponsesModel(OpenAIChatModel):
    """``openai-responses:<model>`` — streams the Responses API through the ``openai`` SDK."""

    provider = INFO.prefix
    _warm_up_resource = "responses"
    native_compaction = INFO.native_compaction

    def _prepare(self, request: ModelRequest) -> tuple[JsonObject, list[str]]:
        items = self._history.build(request.messages, _step)
        items = from_newest_compaction(items) or items
        payload: JsonObject = {"model": self.model_id, "input": items, "stream": True, "store": False}
        if request.system:
            payload["instructions"] = request.system
        notices: list[str] = []
        if request.tools:
            eager, deferred = eager_specs(request), request.deferred_tools
            notices += strict_notices(eager + deferred, supported=True, flavour="openai", why_not="")[1]
            payload["tools"] = [openai_responses_tool(t) for t in eager]
            if deferred:  # the provider's own search: the deferred tools load through it
                payload["tools"] += [{**openai_responses_tool(t), "defer_loading": True} for t in deferred]
                payload["tools"].append(dict(RESPONSES_SEARCH_TOOL))
            choice = request.tool_choice
            payload["tool_choice"] = (
                {"type": "function", "name": choice["name"]} if isinstance(choice, dict) else choice
            )
            allowed = allowed_names(request)
            if allowed is not None and choice in ("auto", "required"):
                tools = [{"type": "function", "name": name} for name in allowed]
                payload["tool_choice"] = {"type": "allowed_tools", "mode": choice, "tools": tools}
            if request.parallel_tool_calls is not None:
                payload["parallel_tool_calls"] = request.parallel_tool_calls
        if request.max_output_tokens is not None:
            payload["max_output_tokens"] = request.max_output_tokens
        sampling, said = sampling_fields(request, "OpenAI Responses", temperature="temperature", stop=None)
        payload.update(sampling)
        notices += said
        if request.provider_compaction is not None:
            payload["context_management"] = responses_context_management(request.provider_compaction)
        effort = reasoning_effort(request.reasoning)
        if effort is not None:
            # Stateless (store: false): the reasoning comes back encrypted, to be sent again next round.
            payload["reasoning"] = {"effort": effort, "summary": "auto"}
            payload["include"] = ["reasoning.encrypted_content"]
        return payload, notices

    async def _send(self, client: Any, payload: JsonObject) -> Any:
        """Start the streamed request as :meth:`OpenAIChatModel._send` does: the body
        encoded by us, the history's items once each, and each event as its parsed JSON."""
        import openai

        stream_cls = openai.AsyncStream[object]
        if not takes_raw_bodies(client):
            return await client.post("/responses", cast_to=object, body=payload, stream=True, stream_cls=stream_cls)
        return await client.post(
            "/responses",
            cast_to=object,
            stream=True,
            content=self._history.encode(payload, "input"),
            stream_cls=stream_cls,
        )

    async def _attempt(self, payload: JsonObject, out: MessageBuilder) -> AsyncGenerator[AssistantUpdate, None]:
        stream = await self._send(self._client(), payload)
        async with stream:
            calls: dict[str, int] = {}  # item id -> content index
            searches = ResponsesSearchItems()
            compactions = ResponsesCompaction(_threshold(payload))
            final: JsonObject | None = None
            async for event in stream:
                out.frame(event)
                event = json_object(event)
                kind, delta = event.get("type"), json_text(event.get("delta"))
                item = json_object(event.get("item"))
                item_id = json_text(item.get("id"))
                if kind in ("response.output_text.delta", "response.refusal.delta") and delta:
                    yield out.text_delta(delta)
                elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta") and delta:
                    yield out.thinking_delta(delta)
                elif kind == "response.output_item.added" and item.get("type") == "function_call":
                    start = out.start_tool_call(json_text(item.get("name")), json_text(item.get("call_id")) or None)
                    calls[item_id] = start.content_index
                    yield start
                elif kind == "response.function_call_arguments.delta" and event.get("item_id") in calls and delta:
                    yield out.tool_call_delta(calls[event["item_id"]], delta)
                elif kind == "response.output_item.done" and compactions.owns(item):
                    compactions.read(item, out)
                elif kind == "response.output_item.done" and searches.owns(item):
                    for update in searches.read(item, out):
                        yield update
                elif kind == "response.output_item.done" and item.get("type") == "reasoning":
                    encrypted = item.get("encrypted_content")
                    if encrypted and isinstance(encrypted, str):
                        out.thinking_data({"reasoning_id": item_id, "encrypted_content": encrypted})
                elif kind == "response.output_item.done" and item.get("type") == "function_call":
                    index = calls.pop(item_id, None)
                    if index is not None:
                        yield out.end_tool_call(index, json_arguments(json_text(item.get("arguments"))))
                elif kind in ("response.completed", "response.incomplete"):
                    final = json_object(event.get("response"))
                elif kind == "response.failed":
                    error = json_object(json_object(event.get("response")).get("error"))
                    code = json_text(error.get("code")) or None
                    raise ProviderError(
                        json_text(error.get("message")) or "the response failed",
                        code=code,
                        retryable=retryable_code(code),
                    )
                elif kind == "error":
                    code = json_text(event.get("code")) or None
                    raise ProviderError(
                        json_text(event.get("message")) or "stream error", code=code, retryable=retryable_code(code)
                    )
        for index in calls.values():
            yield out.end_tool_call(index)
        if final is None:
            raise StreamCutError("response.completed")
        for update in compactions.notices("OpenAI Responses", final.get("usage"), out):
            yield update
        self._finish(final, out)

    def _finish(self, response: JsonObject, out: MessageBuilder) -> None:
        usage = response.get("usage")
        round_usage = None
        if isinstance(usage, dict):
            cached = json_count(json_object(usage.get("input_tokens_details")).get("cached_tokens"))
            round_usage = self._usage(
                input=json_count(usage.get("input_tokens")) - cached,
                output=json_count(usage.get("output_tokens")),
                cache_read=cached,
            )
        if response.get("status") == "incomplete":
            reason = json_text(json_object(response.get("incomplete_details")).get("reason")) or "no reason given"
            ending = RESPONSES_INCOMPLETE.get(reason)
            if ending is not None and ending.outcome == "length":
                out.finish("length", round_usage)
            else:  # an incomplete response is never read as finished
                words = f": {ending.words}" if ending is not None else ""
                kind = ending.kind if ending is not None else "incomplete"
                out.fail(f"{self.name}: the response is incomplete ({reason}){words}", round_usage, kind=kind)
            return
        out.finish(None, round_usage)


def _threshold(payload: JsonObject) -> int | None:
    """The compaction threshold ``payload`` asks for, if it asks for compaction."""
    entries = payload.get("context_management") or [{}]
    value = json_object(entries[0]).get("compact_threshold")
    return value if isinstance(value, int) else None


def _step(out: list[JsonObject], entry: UserMessage | AssistantTurn) -> None:
    """Append one history entry's Responses items to ``out``."""
    if isinstance(entry, UserMessage):
        out.append({"role": "user", "content": [_input_part(b) for b in user_blocks(entry)]})
        return
    out += _kept_items(entry.message)
    if entry.message.text:
        out.append({"role": "assistant", "content": entry.message.text})
    for call in entry.calls:
        out.append(
            {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": json.dumps(call.arguments)}
        )
    for result in entry.results:
        output: Any = result_text(result)
        if result_images(result):
            output = [_input_part(block) for block in result_parts(result)]
        out.append({"type": "function_call_output", "call_id": result.tool_call_id, "output": output})


def _input_part(block: Any) -> JsonObject:
    if isinstance(block, TextContent):
        return {"type": "input_text", "text": block.text}
    return {"type": "input_image", "image_url": data_url(block)}


def _kept_items(message: AssistantMessage) -> list[JsonObject]:
    """The reasoning, tool search and compaction items of an earlier reply, in order, as
    the API gave them, to be sent back."""
    items: list[JsonObject] = []
    for block in message.content:
        if not isinstance(block, ThinkingContent):
            continue
        data = block.provider_data or {}
        if isinstance(data.get(RESPONSES_ITEM), dict):
            items.append(data[RESPONSES_ITEM])
        elif "encrypted_content" in data and "reasoning_id" in data:
            summary = [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
            items.append(
                {
                    "type": "reasoning",
                    "id": data["reasoning_id"],
                    "summary": summary,
                    "encrypted_content": data["encrypted_content"],
                }
            )
    return items
