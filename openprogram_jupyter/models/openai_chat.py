"""OpenAI Chat Completions (``openai:<model>``), also for OpenAI-compatible local servers.

The API's own rules this module relies on are in docs/providers.md, "Wire facts". What
this module does exactly:

- Key: ``api_key=``, else ``OPENAI_API_KEY``. Endpoint: ``base_url=``, else
  ``OPENAI_BASE_URL``, else OpenAI's. With a base URL (from either) and no key anywhere,
  the placeholder key ``"local"`` is sent (Ollama, vLLM and llama.cpp ignore it).
- ``tool_choice`` and ``parallel_tool_calls`` map one-to-one; both are left out when
  the round has no tools (the API rejects them then). ``parallel_tool_calls`` is sent
  only when the caller set it. ``allowed_tools`` that leaves a declared tool out becomes
  ``tool_choice: {type: "allowed_tools", ...}`` with every tool still declared.
- Streaming: text deltas, ``reasoning_content`` / ``reasoning`` deltas (sent by some
  local servers) as thinking, tool-call starts and argument fragments. The end of the
  reply is the chunk with ``finish_reason``; a stream that ends without one is an error
  (what arrived is kept). Every ``finish_reason`` is read by :mod:`._stop_reasons`
  (``content_filter`` ends the round as a refusal).
- Tool results: one ``role: "tool"`` message per call, in call order. Chat Completions
  cannot carry images in a tool message, so images returned by tools follow in one
  ``user`` message after the tool messages, each labelled with its call. The API has no
  error flag; an error result is sent as its text.
- Thinking blocks are not sent back (the API has no field for them).
- Calls the model wrote as text (``text_tool_calls=True``) go back as the text it wrote,
  their results as one ``user`` message of ``<tool_response>`` blocks (text only).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator
from typing import Any

from ..core._json import JsonObject
from ..core.events import AssistantUpdate
from ..core.messages import ImageContent, TextContent, UserMessage
from ._history import AssistantTurn, data_url, result_images, result_text, user_blocks
from ._incremental import takes_raw_bodies
from ._json_data import json_count, json_object, json_objects, json_text
from ._provider_common import ProviderError, ProviderModel, sampling_fields
from ._provider_errors import (
    StreamCutError,
    budget_spent,
    budget_spent_error,
    connection_failed,
    error_details,
    parse_retry_after,
    retryable_code,
)
from ._provider_info import PLAIN_TOOL_NAME, ProviderInfo, Spec, ToolRules, ToolShape, declared_parameters
from ._reasoning import reasoning_effort
from ._sdk_http import sdk_http_client
from ._stop_reasons import OPENAI_CHAT, end_reply
from ._text_tool_calls import is_written_as_text, tool_responses_text, written_reply
from ._tool_features import allowed_names, described_with_examples, strict_notices, strict_parameters
from ._tool_search import fallback_notices
from ._wire_fold import openai_chat_frames
from .base import MessageBuilder, ModelRequest

__all__ = ["INFO", "OpenAIChatModel", "classify_openai_error", "openai_chat_tool"]


def openai_chat_tool(spec: Spec) -> JsonObject:
    """An element of Chat Completions' ``tools``. A strict spec goes with ``strict: true``
    and its parameters in strict form (:mod:`._strict_schema`), unless strict mode cannot
    express them; examples go in the description."""
    function: JsonObject = {
        "name": spec["name"],
        "description": described_with_examples(spec),
        "parameters": declared_parameters(spec),
    }
    strict = strict_parameters(spec, function["parameters"], "openai")
    if strict is not None:
        function["parameters"], function["strict"] = strict, True
    return {"type": "function", "function": function}


INFO = ProviderInfo(
    prefix="openai",
    wire_messages="messages",
    fold_frames=openai_chat_frames,
    model_class="openprogram_jupyter.models.openai_chat:OpenAIChatModel",
    key_variables=("OPENAI_API_KEY",),
    endpoint_variables=("OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"),
    default_model="gpt-4.1-mini",
    tool_shape=ToolShape("OpenAI Chat Completions", 'an element of "tools"', openai_chat_tool),
    tool_rules=ToolRules(PLAIN_TOOL_NAME, "letters, digits, '_' and '-', 1 to 64 characters"),
    key_hint="set OPENAI_API_KEY (in the environment, a .env file next to the notebook, Colab's secrets, "
    "or %agent key openai) or pass api_key=",
    prices_id="openai",
)


class OpenAIChatModel(ProviderModel):
    """``openai:<model>`` — streams Chat Completions through the ``openai`` SDK."""

    provider = INFO.prefix
    _warm_up_resource = "chat.completions"  # what a round falls back to (and imports the request path)
    key_variables = INFO.key_variables

    def _make_client(self) -> Any:
        import openai

        api_key = self._api_key
        local = self.base_url or os.environ.get("OPENAI_BASE_URL")
        if api_key is None and local and not any(os.environ.get(name) for name in INFO.key_variables):
            api_key = "local"  # a local server's base URL, however given, needs no key
        kwargs: dict[str, Any] = {"max_retries": 0}
        if api_key is not None:
            kwargs["api_key"] = api_key
        if self.base_url:
            kwargs["base_url"] = self.base_url
        kwargs["http_client"] = sdk_http_client(openai)  # the page's fetch in a browser
        return openai.AsyncOpenAI(**kwargs)

    def _classify(self, exc: Exception) -> ProviderError:
        return classify_openai_error(exc)

    # -- request -----------------------------------------------------------------------

    def _prepare(self, request: ModelRequest) -> tuple[JsonObject, list[str]]:
        messages: list[JsonObject] = []
        if request.system:
            messages.append(self._history.same({"role": "system", "content": request.system}))
        messages.extend(self._history.build(request.messages, _step))
        payload: JsonObject = {
            "model": self.model_id,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        notices: list[str] = fallback_notices(request, "OpenAI Chat Completions")
        if request.tools:
            notices += strict_notices(request.tools, supported=True, flavour="openai", why_not="")[1]
            payload["tools"] = [openai_chat_tool(t) for t in request.tools]
            choice = request.tool_choice
            payload["tool_choice"] = (
                {"type": "function", "function": {"name": choice["name"]}} if isinstance(choice, dict) else choice
            )
            allowed = allowed_names(request)
            if allowed is not None and choice in ("auto", "required"):
                tools = [{"type": "function", "function": {"name": name}} for name in allowed]
                payload["tool_choice"] = {"type": "allowed_tools", "allowed_tools": {"mode": choice, "tools": tools}}
            if request.parallel_tool_calls is not None:
                payload["parallel_tool_calls"] = request.parallel_tool_calls
        if request.max_output_tokens is not None:
            payload["max_completion_tokens"] = request.max_output_tokens
        sampling, said = sampling_fields(request, "OpenAI Chat Completions", temperature="temperature", stop="stop")
        payload.update(sampling)
        notices += said
        effort = reasoning_effort(request.reasoning)
        if effort is not None:
            payload["reasoning_effort"] = effort
        return payload, notices

    async def _send(self, client: Any, payload: JsonObject) -> Any:
        """Start the streamed request through the SDK's ``post``, which adds the headers,
        authenticates, decodes the event stream and raises the errors a stream carries.
        The body is encoded by us (:meth:`HistoryMemo.encode`: the history's messages
        encoded once each, not every round) and sent as it is: the SDK neither walks the
        history against its request types nor encodes it again (an SDK whose ``post``
        takes no ``content`` encodes ``body=``, still without the walk). Each chunk comes
        as its parsed JSON: the SDK's typed chunk costs about 65 µs to build, for every
        streamed token."""
        import openai

        stream_cls = openai.AsyncStream[object]
        if not takes_raw_bodies(client):
            return await client.post(
                "/chat/completions", cast_to=object, body=payload, stream=True, stream_cls=stream_cls
            )
        return await client.post(
            "/chat/completions",
            cast_to=object,
            stream=True,
            content=self._history.encode(payload, "messages"),
            stream_cls=stream_cls,
        )

    # -- response ----------------------------------------------------------------------

    async def _attempt(self, payload: JsonObject, out: MessageBuilder) -> AsyncGenerator[AssistantUpdate, None]:
        stream = await self._send(self._client(), payload)
        async with stream:
            calls: dict[object, int] = {}  # the wire's call index -> content index
            finish: str | None = None
            usage: JsonObject | None = None
            async for chunk in stream:
                out.frame(chunk)
                if not isinstance(chunk, dict):
                    continue
                usage = json_object(chunk.get("usage")) or usage
                choices = chunk.get("choices")
                if not choices or not isinstance(choices, list):
                    continue
                choice = json_object(choices[0])
                delta = json_object(choice.get("delta"))
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if isinstance(reasoning, str) and reasoning:
                    yield out.thinking_delta(reasoning)
                content = delta.get("content")
                if isinstance(content, str) and content:
                    yield out.text_delta(content)
                for fragment in json_objects(delta.get("tool_calls")):
                    function = json_object(fragment.get("function"))
                    index = fragment.get("index")
                    if index not in calls:
                        call_id = json_text(fragment.get("id")) or None
                        start = out.start_tool_call(json_text(function.get("name")), call_id)
                        calls[index] = start.content_index
                        yield start
                    arguments = function.get("arguments")
                    if isinstance(arguments, str) and arguments:
                        yield out.tool_call_delta(calls[index], arguments)
                if choice.get("finish_reason"):
                    finish = json_text(choice["finish_reason"])
        for content_index in calls.values():
            yield out.end_tool_call(content_index)
        if finish is None:
            raise StreamCutError("a chunk with finish_reason")
        round_usage = None
        if usage is not None:
            cached = json_count(json_object(usage.get("prompt_tokens_details")).get("cached_tokens"))
            round_usage = self._usage(
                input=json_count(usage.get("prompt_tokens")) - cached,
                output=json_count(usage.get("completion_tokens")),
                cache_read=cached,
            )
        notice = end_reply(out, self.name, OPENAI_CHAT, finish, round_usage)
        if notice is not None:
            yield notice


def _step(out: list[JsonObject], entry: UserMessage | AssistantTurn) -> None:
    """Append one history entry's Chat Completions messages to ``out``."""
    if isinstance(entry, UserMessage):
        out.append({"role": "user", "content": _user_content(user_blocks(entry))})
    else:
        out.extend(_assistant_turn(entry))


def _user_content(blocks: list[TextContent | ImageContent]) -> str | list[JsonObject]:
    """Text only: one string. With an image: OpenAI's list of text and image_url parts."""
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    if len(texts) == len(blocks):
        return "".join(texts)
    return [
        {"type": "text", "text": b.text}
        if isinstance(b, TextContent)
        else {"type": "image_url", "image_url": {"url": data_url(b)}}
        for b in blocks
    ]


def _assistant_turn(turn: AssistantTurn) -> list[JsonObject]:
    if turn.calls and all(is_written_as_text(call) for call in turn.calls):
        return _written_turn(turn)
    text = turn.message.text
    message: JsonObject = {"role": "assistant", "content": text or None}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in turn.calls
        ]
    elif not text:
        return []  # only thinking: nothing Chat Completions can carry
    out = [message]
    images: list[JsonObject] = []
    for result in turn.results:
        out.append({"role": "tool", "tool_call_id": result.tool_call_id, "content": result_text(result)})
        for image in result_images(result):
            images.append({"type": "text", "text": f"Image returned by {result.tool_name} ({result.tool_call_id}):"})
            images.append({"type": "image_url", "image_url": {"url": data_url(image)}})
    if images:
        out.append({"role": "user", "content": images})
    return out


def _written_turn(turn: AssistantTurn) -> list[JsonObject]:
    """Calls the model wrote as text go back as it wrote them, and their results as one user
    turn of ``<tool_response>`` blocks: a server that did not parse the calls may not take
    ``tool_calls`` or ``role: "tool"`` messages (models/_text_tool_calls.py)."""
    texts = [result_text(result) for result in turn.results]
    return [
        {"role": "assistant", "content": written_reply(turn.message)},
        {"role": "user", "content": tool_responses_text(turn.results, texts)},
    ]


def classify_openai_error(exc: Exception) -> ProviderError:
    """An ``openai`` SDK exception as a :class:`ProviderError` (shared with Responses). A
    gateway's refusal of a spent budget (:func:`._provider_errors.budget_spent`, read from
    the error's ``type`` / ``code``), whatever its HTTP status, is one of kind ``budget``
    that is not retried."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        message, code = error_details(exc.body)
        if budget_spent(exc.body):
            return budget_spent_error(message or exc.message, status=exc.status_code, code=code, body=exc.body)
        return ProviderError(
            message or exc.message,
            status=exc.status_code,
            code=code,
            retryable=exc.status_code in (408, 409, 429) or exc.status_code >= 500,
            retry_after=parse_retry_after(exc.response.headers),
            body=exc.body,
        )
    if isinstance(exc, openai.APIConnectionError):
        return connection_failed(exc, exc.__cause__ or exc.__context__)
    if isinstance(exc, openai.APIError):  # an error inside the stream
        message, code = error_details(exc.body)
        return ProviderError(message or exc.message, code=code, retryable=retryable_code(code), body=exc.body)
    if isinstance(exc, openai.OpenAIError) and "api_key" in str(exc):  # no key: raised making the client
        return ProviderError(f"no API key: {INFO.key_hint}", detail=f"{type(exc).__name__}: {exc}", kind="credentials")
    return ProviderError(f"{type(exc).__name__}: {exc}")
