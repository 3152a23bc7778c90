"""Gemini over its REST API (``gemini:<model>``), with httpx and httpx-sse.

The API's own rules this module relies on are in docs/providers.md, "Wire facts". What
this module does exactly:

- Key: ``api_key=``, else ``GEMINI_API_KEY``, else ``GOOGLE_API_KEY``; sent in the
  ``x-goog-api-key`` header, never in the URL. Endpoint root: ``base_url=``, else
  ``GOOGLE_GEMINI_BASE_URL``, else Google's; the path is
  ``/v1beta/models/{model}:streamGenerateContent?alt=sse``.
- ``tool_choice``: auto/required/none → ``AUTO``/``ANY``/``NONE``; forced X → ``ANY``
  with ``allowedFunctionNames: [X]``. ``parallel_tool_calls=False`` cannot be said:
  nothing is sent, every returned call is answered in order, and a notice says so.
- Reasoning (the run setting ``reasoning``): ``generationConfig.thinkingConfig`` with
  ``thinkingBudget`` (:mod:`._reasoning`) and ``includeThoughts``.
- Streaming: text; thought parts (with ``include_thoughts=True`` or ``reasoning``) as thinking;
  function calls arrive whole (a start and an end update each, no argument deltas).
  Tool use is detected by the calls, not by ``finishReason``. The end is a chunk with
  ``finishReason``; ``MAX_TOKENS`` → ``stop_reason="length"``; a safety or other block
  ends the round as an error; a stream without it is an error (what arrived is kept).
- ``thoughtSignature``: on a function call it is kept in the call's ``provider_data``;
  on a text part it is kept as an empty thinking block carrying the signature; on a
  thought part, on its thinking block. A signed chunk ends its part: the next text or
  thought opens a new block, so no two signed parts, and no signed part and the one
  after it, are merged. Each goes back unchanged, in order, on the same kind of part:
  on the call, on the thought part, on the text part it followed, or on an empty text
  part of its own (a signature that came on an empty text part after a call, a thought
  or another signature). A call's ``id`` is sent back only if Gemini gave one.
  Signatures and thinking from another provider's messages are not sent.
- Tool results: one ``user`` content holding one ``functionResponse`` per call
  (``{"output": text}`` or ``{"error": text}``), then the results' images as
  ``inlineData`` parts.
- The body is the JSON httpx makes of ``json=`` (UTF-8, compact), encoded by
  :class:`._incremental.HistoryMemo`: each content is built and encoded in the round that
  first sends it, and its bytes kept for the rounds after.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import quote

from ..core._json import JsonObject
from ..core.events import AssistantUpdate
from ..core.messages import TextContent, ThinkingContent, ToolCall, Usage, UserMessage
from ._gemini_schema import gemini_function_declaration, gemini_schema_problems
from ._history import AssistantTurn, result_images, result_text, user_blocks
from ._json_data import json_count, json_object, json_objects, json_text
from ._provider_common import ProviderError, ProviderModel, require_module, sampling_fields
from ._provider_errors import (
    RetryPolicy,
    StreamCutError,
    error_details,
    is_retryable_status,
    parse_retry_after,
    retryable_code,
    transport_error,
)
from ._provider_info import ProviderInfo, ToolRules, ToolShape
from ._reasoning import reasoning_budget
from ._stop_reasons import GEMINI, end_reply
from ._tool_features import allowed_names, allowed_specs, strict_notices
from ._tool_search import fallback_notices
from ._wire_fold import gemini_frames
from .base import MessageBuilder, ModelRequest

__all__ = ["INFO", "GeminiModel"]


def _tools_and_choice(body: JsonObject) -> tuple[int, Any]:
    """A Gemini body's function declarations, counted, and its function-calling mode."""
    declared = sum(len(t.get("functionDeclarations") or []) for t in body.get("tools") or [])
    return declared, ((body.get("toolConfig") or {}).get("functionCallingConfig") or {}).get("mode")


INFO = ProviderInfo(
    prefix="gemini",
    wire_messages="contents",
    fold_frames=gemini_frames,
    tools_in_body=_tools_and_choice,
    model_class="openprogram_jupyter.models.gemini:GeminiModel",
    key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    endpoint_variables=("GOOGLE_GEMINI_BASE_URL",),
    default_model="gemini-2.5-flash",
    tool_shape=ToolShape("Gemini", 'an element of "tools[0].functionDeclarations"', gemini_function_declaration),
    tool_rules=ToolRules(
        re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$"),
        "a letter or '_' first, then letters, digits, '_', '.', ':' or '-', at most 64 characters",
        plain_top_level=False,
        parameter_problems=gemini_schema_problems,
    ),
    extra="gemini",
    key_hint="set GEMINI_API_KEY or GOOGLE_API_KEY (in the environment, a .env file next to the notebook, "
    "Colab's secrets, or %agent key gemini) or pass api_key=",
    trace_name="gcp.gemini",
    prices_id="google",
)

DEFAULT_GEMINI_URL = "https://generativelanguage.googleapis.com"
_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
_LARGEST_BUDGET = 32_768  # Gemini 2.5 Pro's largest thinking budget; a larger one is refused
_LARGEST_FLASH_BUDGET = 24_576  # 2.5 Flash's and Flash-Lite's


def _thinking_budget(model_id: str, budget: int, notices: list[str]) -> int:
    """``budget``, or the model's largest thinking budget if it is larger (a notice says so)."""
    largest = _LARGEST_FLASH_BUDGET if "flash" in model_id.lower() else _LARGEST_BUDGET
    if budget <= largest:
        return budget
    notices.append(
        f"reasoning={budget:,} is over the model's largest thinking budget ({largest:,}): {largest:,} was sent"
    )
    return largest


class GeminiModel(ProviderModel):
    """``gemini:<model>`` — streams ``streamGenerateContent`` over httpx."""

    provider = INFO.prefix
    key_variables = INFO.key_variables

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        include_thoughts: bool = False,
        timeout: float = 600.0,
    ) -> None:
        require_module("httpx_sse", INFO.prefix, INFO.extra)
        key = api_key or next(filter(None, map(os.environ.get, INFO.key_variables)), None)
        root = base_url or os.environ.get("GOOGLE_GEMINI_BASE_URL") or DEFAULT_GEMINI_URL
        super().__init__(model_id, api_key=key, base_url=root.rstrip("/"), retry=retry)
        self.include_thoughts = include_thoughts
        self.timeout = timeout

    def _make_client(self) -> Any:
        import httpx

        return httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, connect=15.0))

    # -- request -----------------------------------------------------------------------

    def _prepare(self, request: ModelRequest) -> tuple[JsonObject, list[str]]:
        payload: JsonObject = {"contents": self._history.build(request.messages, _step)}
        if request.system:
            payload["systemInstruction"] = {"parts": [{"text": request.system}]}
        notices: list[str] = fallback_notices(request, "Gemini")
        budget = reasoning_budget(request.reasoning)
        if self.include_thoughts or budget is not None:
            thinking: JsonObject = {"includeThoughts": True}
            if budget is not None:
                thinking["thinkingBudget"] = _thinking_budget(self.model_id, budget, notices)
            payload["generationConfig"] = {"thinkingConfig": thinking}
        if request.max_output_tokens is not None:
            payload.setdefault("generationConfig", {})["maxOutputTokens"] = request.max_output_tokens
        sampling, said = sampling_fields(request, "Gemini", temperature="temperature", stop="stopSequences")
        if sampling:
            payload.setdefault("generationConfig", {}).update(sampling)
        notices += said
        if request.tools:
            notices += strict_notices(
                request.tools, supported=False, flavour=None, why_not="Gemini has no strict tool schemas"
            )[1]
            choice, tools, allowed = request.tool_choice, request.tools, allowed_names(request)
            if allowed is not None and choice == "auto":  # allowedFunctionNames is taken with ANY only
                tools, allowed_said = allowed_specs(request, "Gemini (with tool_choice auto)")
                notices += allowed_said
            payload["tools"] = [{"functionDeclarations": [gemini_function_declaration(t) for t in tools]}]
            if isinstance(choice, dict):
                config: JsonObject = {"mode": "ANY", "allowedFunctionNames": [choice["name"]]}
            elif allowed is not None and choice == "required":
                config = {"mode": "ANY", "allowedFunctionNames": allowed}
            else:
                config = {"mode": _MODES[choice]}
            payload["toolConfig"] = {"functionCallingConfig": config}
            if request.parallel_tool_calls is False:
                notices.append(
                    "Gemini cannot be told to make one call at a time (parallel_tool_calls=False "
                    "was not sent); every call it returns is run in order"
                )
        return payload, notices

    # -- response ----------------------------------------------------------------------

    async def _attempt(self, payload: JsonObject, out: MessageBuilder) -> AsyncGenerator[AssistantUpdate, None]:
        from httpx_sse import aconnect_sse

        if not self._api_key:
            raise ProviderError(f"no API key: {INFO.key_hint}", kind="credentials")
        url = f"{self.base_url}/v1beta/models/{quote(self.model_id, safe='')}:streamGenerateContent?alt=sse"
        headers = {"x-goog-api-key": self._api_key, "content-type": "application/json"}
        # The JSON httpx makes of ``json=`` (UTF-8, compact, no NaN), each content's bytes
        # kept from the round that first sent it (:meth:`HistoryMemo.encode`).
        sent = self._history.encode(payload, "contents")
        async with aconnect_sse(self._client(), "POST", url, content=sent, headers=headers) as source:
            response = source.response
            if response.status_code >= 400:
                raise await _http_error(response)
            finish: str | None = None
            blocked = ""  # promptFeedback.blockReason: the prompt itself was refused
            usage: JsonObject = {}
            async for event in source.aiter_sse():
                if not event.data.strip():
                    continue
                data = json.loads(event.data)
                out.frame(data)
                chunk = json_object(data)  # anything else is read as an empty chunk
                if "error" in chunk:
                    message, code = error_details(chunk)
                    raise ProviderError(
                        message or "stream error", code=code, retryable=retryable_code(code), body=chunk
                    )
                usage = json_object(chunk.get("usageMetadata")) or usage
                blocked = json_text(json_object(chunk.get("promptFeedback")).get("blockReason")) or blocked
                if blocked:
                    finish = blocked
                for candidate in json_objects(chunk.get("candidates"))[:1]:
                    for part in json_objects(json_object(candidate.get("content")).get("parts")):
                        for update in _part_updates(part, out):
                            yield update
                    finish = json_text(candidate.get("finishReason")) or finish
        if finish is None:
            raise StreamCutError("a chunk with finishReason")
        round_usage = self._round_usage(usage)
        if blocked:
            out.fail(f"{self.name}: Gemini blocked the prompt ({blocked})", round_usage, kind="refused")
        elif finish == "MAX_TOKENS" and out.message.tool_calls:
            out.finish(None, round_usage)  # the calls came whole: run them
        elif (notice := end_reply(out, self.name, GEMINI, finish, round_usage)) is not None:
            yield notice

    def _round_usage(self, usage: JsonObject) -> Usage | None:
        """The round's usage from its last ``usageMetadata`` (cached tokens apart, thinking
        counted as output); ``None`` when the stream sent none."""
        if not usage:
            return None
        cached = json_count(usage.get("cachedContentTokenCount"))
        return self._usage(
            input=json_count(usage.get("promptTokenCount")) - cached,
            output=json_count(usage.get("candidatesTokenCount")) + json_count(usage.get("thoughtsTokenCount")),
            cache_read=cached,
        )

    def _classify(self, exc: Exception) -> ProviderError:
        return transport_error(exc) or ProviderError(f"{type(exc).__name__}: {exc}")


def _step(out: list[JsonObject], entry: UserMessage | AssistantTurn) -> None:
    """Append one history entry's contents to ``out`` (:meth:`HistoryMemo.build`)."""
    if isinstance(entry, UserMessage):
        parts = [_user_part(b) for b in user_blocks(entry) if not isinstance(b, TextContent) or b.text]
        if parts:
            out.append({"role": "user", "parts": parts})
        return
    parts = _model_parts(entry)
    if parts:
        out.append({"role": "model", "parts": parts})
    if entry.results:
        out.append({"role": "user", "parts": _result_parts(entry)})


def _part_updates(part: JsonObject, out: MessageBuilder) -> list[AssistantUpdate]:
    signature = json_text(part.get("thoughtSignature")) or None
    if "functionCall" in part:
        call = json_object(part["functionCall"])
        call_id = json_text(call.get("id")) or None
        data: JsonObject = {}
        if signature:
            data["thoughtSignature"] = signature
        if call_id:
            data["gemini_call_id"] = call_id
        return out.tool_call(json_text(call.get("name")), json_object(call.get("args")), call_id, data or None)
    text = part.get("text")
    if not isinstance(text, str):
        return []  # inline data and other parts the loop has no block for
    # A signed chunk is the last of its part, so the block it lands on ends with it: a
    # later part never joins a signed one, and each signature goes back on its own part.
    if part.get("thought"):
        update = out.thinking_delta(text, signature)
        if signature:
            out.end_thinking()
        return [update]
    updates = [out.text_delta(text)] if text else []
    if signature:
        out.end_thinking()  # a text part's signature never lands on a thought block before it
        updates.append(out.thinking_delta("", signature=signature))
        out.end_thinking()
    return updates


def _from_gemini(turn: AssistantTurn) -> bool:
    return turn.message.model is None or turn.message.model.startswith("gemini:")


def _model_parts(turn: AssistantTurn) -> list[JsonObject]:
    own = _from_gemini(turn)
    parts: list[JsonObject] = []
    previous: object = None
    for block in turn.message.content:
        if isinstance(block, TextContent):
            if block.text:
                parts.append({"text": block.text})
        elif isinstance(block, ThinkingContent):
            if not own:
                pass
            elif block.thinking:
                part = {"text": block.thinking, "thought": True}
                if block.signature:
                    part["thoughtSignature"] = block.signature
                parts.append(part)
            elif block.signature:  # a signature that came on a text part
                if isinstance(previous, TextContent) and previous.text and "thoughtSignature" not in parts[-1]:
                    parts[-1]["thoughtSignature"] = block.signature
                else:
                    parts.append({"text": "", "thoughtSignature": block.signature})
        elif isinstance(block, ToolCall):
            data = block.provider_data or {}
            call: JsonObject = {"name": block.name, "args": block.arguments}
            if data.get("gemini_call_id"):
                call["id"] = data["gemini_call_id"]
            part = {"functionCall": call}
            if data.get("thoughtSignature"):
                part["thoughtSignature"] = data["thoughtSignature"]
            parts.append(part)
        previous = block
    return parts


def _result_parts(turn: AssistantTurn) -> list[JsonObject]:
    parts: list[JsonObject] = []
    images: list[JsonObject] = []
    for call, result in zip(turn.calls, turn.results, strict=True):
        response = {"error" if result.is_error else "output": result_text(result)}
        function_response: JsonObject = {"name": call.name, "response": response}
        if call_id := (call.provider_data or {}).get("gemini_call_id"):
            function_response["id"] = call_id
        parts.append({"functionResponse": function_response})
        images += [{"inlineData": {"mimeType": i.mime_type, "data": i.data}} for i in result_images(result)]
    return parts + images


def _user_part(block: Any) -> JsonObject:
    if isinstance(block, TextContent):
        return {"text": block.text}
    return {"inlineData": {"mimeType": block.mime_type, "data": block.data}}


async def _http_error(response: Any) -> ProviderError:
    """The :class:`ProviderError` of an HTTP error reply: its status, the error's message and
    code from its JSON body (or the start of a body that is not JSON), and when to retry."""
    text = (await response.aread()).decode("utf-8", "replace")
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = text[:500]
    message, code = error_details(body)
    return ProviderError(
        message or response.reason_phrase,
        status=response.status_code,
        code=code,
        retryable=is_retryable_status(response.status_code),
        retry_after=parse_retry_after(response.headers),
        body=body,
    )
