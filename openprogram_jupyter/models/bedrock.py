"""Amazon Bedrock's Converse API (``bedrock:<modelId>``) through boto3 (the ``[bedrock]`` extra).

The API's own rules this module relies on are in docs/providers.md, "Wire facts". What
this module does exactly:

- Credentials: the standard AWS chain (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY``
  / ``AWS_SESSION_TOKEN``, ``AWS_PROFILE``, ``AWS_BEARER_TOKEN_BEDROCK``, instance
  roles); the secret key and session token it found are known as secrets from then on
  (masked in every run, whichever file or role they came from). ``api_key=`` is a
  Bedrock API key: requests are then sent unsigned with ``Authorization: Bearer <key>``.
  Region: ``region=``, else ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` / the profile's.
  ``base_url=`` is the endpoint URL.
- boto3 is synchronous: each round runs ``converse_stream`` in a worker thread that
  feeds the event loop. On cancel the stream's socket is shut down at once.
- Controls, per :mod:`._bedrock_controls`: Converse has no ``none`` tool choice, and
  ``any`` / ``tool`` only on some model families; what cannot be said is degraded as
  that module's table says, with an instruction in the system prompt and a notice.
- Streaming: text, reasoning (with signature) as thinking, tool calls with argument
  fragments, all keyed on ``contentBlockIndex``; a reasoning block ends at its
  ``contentBlockStop``, so two reasoning blocks in a row stay two. A redacted reasoning
  block (``redactedContent``, bytes) becomes a thinking block with no text holding them,
  base64, and goes back next round as the bytes it came with, in its place. The end is
  ``messageStop``; usage comes from ``metadata``. A stream without ``messageStop`` is an
  error (what arrived is kept).
- Tool results: one user message holding one ``toolResult`` per call (``status``
  ``error`` or ``success``, text and png/jpeg/gif/webp images).
- The message list is validated against botocore's shapes and encoded as botocore
  serializes it, each message once (:mod:`._incremental`), then put in the body botocore
  built around a stand-in, before signing (:mod:`._bedrock_body`).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import os
import re
from collections.abc import AsyncGenerator
from typing import Any, cast

from ..core._json import JsonObject
from ..core._secrets import remember
from ..core.events import AssistantUpdate
from ..core.messages import TextContent, ThinkingContent, ToolCall, UserMessage
from . import _bedrock_body
from ._bedrock_controls import bedrock_tool, model_family, takes_strict, tool_config
from ._bedrock_stream import StreamPump
from ._history import AssistantTurn, append_merged, result_parts, safe_tool_id, user_blocks
from ._incremental import common_prefix
from ._json_data import to_json_data
from ._loop_clients import SharedClient
from ._provider_common import ProviderError, ProviderModel, require_module, sampling_fields
from ._provider_errors import (
    RetryPolicy,
    StreamCutError,
    connection_failed,
    is_retryable_status,
    parse_retry_after,
    retryable_code,
    transport_error,
)
from ._provider_info import PLAIN_TOOL_NAME, ProviderInfo, ToolRules, ToolShape
from ._reasoning import reasoning_budget
from ._stop_reasons import BEDROCK, end_reply
from ._tool_features import allowed_specs, strict_notices
from ._tool_search import fallback_notices
from ._wire_fold import bedrock_frames
from .base import MessageBuilder, ModelRequest

__all__ = ["INFO", "BedrockModel"]

_REDACTED = "bedrock_redacted_content"  # provider_data key: a redacted reasoning block's bytes, base64


def _tools_and_choice(body: JsonObject) -> tuple[int, Any]:
    """A Converse body's tools, counted, and its tool choice (or the Anthropic model's own)."""
    config = body.get("toolConfig") or {}
    extra = (body.get("additionalModelRequestFields") or {}).get("tool_choice")
    return len(config.get("tools") or []), config.get("toolChoice") or extra


INFO = ProviderInfo(
    prefix="bedrock",
    one_key=False,
    wire_messages="messages",
    fold_frames=bedrock_frames,
    tools_in_body=_tools_and_choice,
    model_class="openprogram_jupyter.models.bedrock:BedrockModel",
    key_variables=("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"),
    endpoint_variables=(
        "AWS_ACCESS_KEY_ID",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_PROFILE",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
    ),
    tool_shape=ToolShape("Bedrock Converse", 'an element of "toolConfig.tools"', bedrock_tool),
    tool_rules=ToolRules(PLAIN_TOOL_NAME, "[a-zA-Z0-9_-]+, 1 to 64 characters"),
    extra="bedrock",
    key_hint="set AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE or AWS_BEARER_TOKEN_BEDROCK, "
    "or pass api_key= (a Bedrock API key)",
    trace_name="aws.bedrock",
    prices_id="aws",
)

_IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}


class BedrockModel(ProviderModel):
    """``bedrock:<modelId>`` — streams ``converse_stream`` from a worker thread."""

    provider = INFO.prefix
    key_variables = INFO.key_variables

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        region: str | None = None,
        max_tokens: int | None = None,
    ) -> None:
        require_module("boto3", INFO.prefix, INFO.extra)
        super().__init__(model_id, api_key=api_key, base_url=base_url, retry=retry)
        self.region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        self.max_tokens = max_tokens
        self._shared_client = SharedClient(self._make_client)
        self._json_messages: tuple[list[Any], list[Any]] = ([], [])  # the wire body's last messages, as JSON data

    def for_another_run(self) -> BedrockModel:
        """As :meth:`ProviderModel.for_another_run`, the body's converted messages kept apart too."""
        twin = super().for_another_run()
        twin._json_messages = ([], [])  # noqa: SLF001 - a copy of this very class
        return twin

    def _client(self) -> Any:
        return self._shared_client.get()  # boto3's clients are thread-safe and tied to no loop

    def _make_client(self) -> Any:
        import boto3
        import botocore
        from botocore.config import Config

        config = Config(retries={"total_max_attempts": 1, "mode": "standard"}, connect_timeout=15, read_timeout=600)
        if self._api_key:
            config = config.merge(Config(signature_version=botocore.UNSIGNED))
        kwargs: dict[str, Any] = {"config": config}
        if self.region:
            kwargs["region_name"] = self.region
        if self.base_url:
            kwargs["endpoint_url"] = self.base_url
        session = boto3.session.Session()
        client = session.client("bedrock-runtime", **kwargs)
        _remember_credentials(session)
        client.meta.events.register("before-call.bedrock-runtime.ConverseStream", _bedrock_body.put_messages)
        client.meta.events.register("before-send.bedrock-runtime.ConverseStream", _bedrock_body.check_messages_put)
        if self._api_key:
            key = self._api_key

            def add_bearer(request: Any, **_: Any) -> None:
                request.headers["Authorization"] = f"Bearer {key}"

            client.meta.events.register("before-send.bedrock-runtime.*", add_bearer)
        return client

    # -- request -----------------------------------------------------------------------

    def _prepare(self, request: ModelRequest) -> tuple[JsonObject, list[str]]:
        payload: JsonObject = {"modelId": self.model_id, "messages": self._history.build(request.messages, _step)}
        caps = [cap for cap in (self.max_tokens, request.max_output_tokens) if cap]
        if caps:
            payload["inferenceConfig"] = {"maxTokens": min(caps)}
        sampling, sampling_said = sampling_fields(request, "Bedrock", temperature="temperature", stop="stopSequences")
        if sampling:
            payload.setdefault("inferenceConfig", {}).update(sampling)
        allowed, allowed_said = allowed_specs(request, "Bedrock")
        tools, strict_said = strict_notices(
            allowed,
            supported=takes_strict(self.model_id),
            flavour="closed",
            why_not=f"{self.model_id} has no strict tool use on Bedrock",
        )
        controls = tool_config(self.model_id, dataclasses.replace(request, tools=tools))
        controls.notices[:0] = fallback_notices(request, "Bedrock") + strict_said + allowed_said + sampling_said
        system = [{"text": request.system}] if request.system else []
        system += [{"text": text} for text in controls.instructions]
        if system:
            payload["system"] = system
        if controls.tool_config is not None:
            payload["toolConfig"] = controls.tool_config
        if controls.additional_fields:
            payload["additionalModelRequestFields"] = controls.additional_fields
        budget = reasoning_budget(request.reasoning)
        if budget is not None:
            _ask_for_thinking(payload, self.model_id, budget, request.max_output_tokens, controls.notices)
        if request.prompt_cache and caches_prompts(self.model_id):
            _mark_cache_points(payload)
        return payload, controls.notices

    def _wire_body(self, payload: JsonObject) -> JsonObject:
        """boto3 puts ``modelId`` in the URL and sends the rest as the JSON body, ``bytes``
        as base64 text. Each message is converted once: the leading messages that are the
        ones converted last round (:meth:`HistoryMemo.build` reuses them) keep their JSON
        data from then, the same objects, which the wire capture then recognises."""
        body = {key: to_json_data(value) for key, value in payload.items() if key not in ("modelId", "messages")}
        last, converted = self._json_messages
        messages = payload["messages"]
        kept = converted[: common_prefix(last, messages)]
        kept += [to_json_data(message) for message in messages[len(kept) :]]
        self._json_messages = (list(messages), kept)
        return {key: list(kept) if key == "messages" else body[key] for key in payload if key != "modelId"}

    # -- response ----------------------------------------------------------------------

    async def _attempt(self, payload: JsonObject, out: MessageBuilder) -> AsyncGenerator[AssistantUpdate, None]:
        client = self._client()
        stand_in, messages = self._split(client, payload)
        pump = StreamPump(client, stand_in, asyncio.get_running_loop(), messages)
        pump.start()
        try:
            calls: dict[int, int] = {}  # contentBlockIndex -> content index
            redacted: dict[int, int] = {}  # contentBlockIndex -> content index of its redacted reasoning
            stop: str | None = None
            usage: JsonObject | None = None
            while True:
                kind, item = await pump.queue.get()
                if kind == "error":
                    raise item
                if kind == "end":
                    break
                out.frame(item)
                if "contentBlockStart" in item:
                    event = item["contentBlockStart"]
                    tool = (event.get("start") or {}).get("toolUse")
                    if tool:
                        start = out.start_tool_call(tool["name"], tool["toolUseId"])
                        calls[event["contentBlockIndex"]] = start.content_index
                        yield start
                elif "contentBlockDelta" in item:
                    event = item["contentBlockDelta"]
                    for update in _delta_updates(event, calls, redacted, out):
                        yield update
                elif "contentBlockStop" in item:
                    out.end_thinking()  # a thinking block that follows never joins this one
                    index = calls.pop(item["contentBlockStop"]["contentBlockIndex"], None)
                    if index is not None:
                        yield out.end_tool_call(index)
                elif "messageStop" in item:
                    stop = item["messageStop"]["stopReason"]
                elif "metadata" in item:
                    usage = item["metadata"].get("usage")
        finally:
            pump.stop()
        for index in calls.values():
            yield out.end_tool_call(index)
        if stop is None:
            raise StreamCutError("messageStop")
        round_usage = None
        if usage:
            round_usage = self._usage(
                input=usage.get("inputTokens", 0),
                output=usage.get("outputTokens", 0),
                cache_read=usage.get("cacheReadInputTokens", 0),
                cache_write=usage.get("cacheWriteInputTokens", 0),
            )
        notice = end_reply(out, self.name, BEDROCK, stop, round_usage)
        if notice is not None:
            yield notice

    def _split(self, client: Any, payload: JsonObject) -> tuple[JsonObject, list[bytes]]:
        """``payload`` for botocore, its messages a one-message stand-in, and the messages
        encoded (each once: see :mod:`._bedrock_body`), which :func:`._bedrock_body.put_messages`
        puts in the stand-in's place."""
        shape = client.meta.service_model.operation_model("ConverseStream").input_shape.members["messages"].member
        messages = self._history.encode_items(
            payload["messages"], lambda message: _bedrock_body.message_bytes(message, shape)
        )
        return {**payload, "messages": [_bedrock_body.STAND_IN]}, messages

    def _refused_key_hint(self) -> str:
        """Bedrock's credentials come from botocore's chain (variables, a profile file, a
        role), not from one variable: what to check names the chain's usual places."""
        if self._api_key:
            return "; check the api_key= given to the model (a Bedrock API key)"
        return (
            "; check the AWS credentials botocore found (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, "
            "AWS_PROFILE, AWS_BEARER_TOKEN_BEDROCK or a role)"
        )

    def _classify(self, exc: Exception) -> ProviderError:
        from botocore import exceptions as boto_errors

        if isinstance(exc, boto_errors.ClientError):
            error = exc.response.get("Error", {})
            meta = exc.response.get("ResponseMetadata", {})
            code = error.get("Code")
            status = meta.get("HTTPStatusCode")
            message = error.get("Message") or str(exc)
            body = {key: value for key, value in exc.response.items() if key != "ResponseMetadata"}
            if isinstance(exc, boto_errors.EventStreamError) or status is None:
                retryable = retryable_code(code) or code == "modelStreamErrorException"
                return ProviderError(message, code=code, retryable=retryable, body=body)
            return ProviderError(
                message,
                status=status,
                code=code,
                retryable=is_retryable_status(status),
                retry_after=parse_retry_after(meta.get("HTTPHeaders")),
                body=body,
            )
        if isinstance(exc, (boto_errors.HTTPClientError, boto_errors.ConnectionError)):
            return connection_failed(exc)
        if isinstance(exc, boto_errors.NoRegionError):
            return ProviderError("no AWS region: set AWS_REGION or pass region= to BedrockModel", kind="credentials")
        if isinstance(exc, boto_errors.NoCredentialsError):
            return ProviderError(f"no AWS credentials: {INFO.key_hint}", kind="credentials")
        return transport_error(exc) or ProviderError(f"{type(exc).__name__}: {exc}")


def _remember_credentials(session: Any) -> None:
    """Know the secret key and session token the AWS chain found (an environment variable,
    a profile file, an instance role) as secrets, so no run shows them."""
    try:
        credentials = session.get_credentials()
        frozen = credentials.get_frozen_credentials() if credentials is not None else None
    except Exception:  # no credentials yet, or a chain that fails: the request will say so
        return
    if frozen is not None:
        remember(frozen.secret_key, frozen.token)


def _delta_updates(
    event: JsonObject, calls: dict[int, int], redacted: dict[int, int], out: MessageBuilder
) -> list[AssistantUpdate]:
    """The updates one ``contentBlockDelta`` event makes; ``calls`` and ``redacted`` map a
    ``contentBlockIndex`` to the content index of its tool call or redacted reasoning."""
    delta, block_index = event["delta"], event["contentBlockIndex"]
    call_index = calls.get(block_index)
    if "text" in delta:
        return [out.text_delta(delta["text"])] if delta["text"] else []
    if "toolUse" in delta and call_index is not None:
        fragment = delta["toolUse"].get("input") or ""
        return [out.tool_call_delta(call_index, fragment)] if fragment else []
    reasoning = delta.get("reasoningContent") or {}
    if "redactedContent" in reasoning:
        return [_redacted_update(out, redacted, block_index, reasoning["redactedContent"])]
    if reasoning.get("text"):
        return [out.thinking_delta(reasoning["text"])]
    if reasoning.get("signature"):
        return [out.thinking_delta("", signature=reasoning["signature"])]
    return []


def _redacted_update(out: MessageBuilder, redacted: dict[int, int], block_index: int, data: bytes) -> AssistantUpdate:
    """Keep a redacted reasoning delta's bytes (botocore decoded the wire's base64) on a thinking
    block with no text, base64 under ``_REDACTED``, to send back as they came. A block's first
    delta opens its own block; a later one of its ``contentBlockIndex`` appends its bytes."""
    index = redacted.get(block_index)
    if index is None:
        update = out.opaque_thinking({_REDACTED: base64.b64encode(data).decode("ascii")})
        redacted[block_index] = update.content_index
        return update
    block = cast(ThinkingContent, out.message.content[index])  # the block opened above
    held = _redacted_bytes((block.provider_data or {})[_REDACTED])
    block.provider_data = {_REDACTED: base64.b64encode(held + data).decode("ascii")}
    return AssistantUpdate(kind="thinking_delta", content_index=index, delta="")


def _redacted_bytes(data: object) -> bytes:
    """The bytes a redacted reasoning block's base64 ``data`` holds; a ``ValueError`` naming
    the problem if it is not base64 text (a transcript restored with the block changed)."""
    if isinstance(data, str):
        try:
            return base64.b64decode(data, validate=True)
        except ValueError:  # binascii.Error, or a character outside ASCII
            pass
    kind = f"a {type(data).__name__} of {len(str(data))} characters"
    raise ValueError(f"bedrock: a redacted reasoning block's data is not base64 text ({kind}); it cannot be sent back")


def _ask_for_thinking(payload: JsonObject, model_id: str, budget: int, cap: int | None, notices: list[str]) -> None:
    """Extended thinking for a Claude model: ``thinking`` in the additional fields, the
    output cap raised to the budget plus 1,024 (within the run's cap), and a forced tool
    choice sent as auto, the only kinds Claude takes while thinking. Other models are
    not sent it, and a notice says so."""
    # The notice's text names no model: every notice is shown after the model's name.
    if not model_family(model_id)[0]:
        notices.append("reasoning is sent only to Claude models on Bedrock; it was not sent")
        return
    additional = payload.setdefault("additionalModelRequestFields", {})
    additional["thinking"] = {"type": "enabled", "budget_tokens": budget}
    wanted = max(budget + 1024, payload.get("inferenceConfig", {}).get("maxTokens", 0))
    payload["inferenceConfig"] = {"maxTokens": min(wanted, cap) if cap is not None else wanted}
    choice = (payload.get("toolConfig") or {}).get("toolChoice")
    anthropic_choice = additional.get("tool_choice")
    if (choice is not None and "auto" not in choice) or (anthropic_choice or {}).get("type") in ("any", "tool"):
        if choice is not None:
            payload["toolConfig"]["toolChoice"] = {"auto": {}}
        if anthropic_choice is not None:
            additional["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
        notices.append("with extended thinking Claude accepts only tool_choice auto or none; it was sent as auto")


_CACHE_POINT = {"cachePoint": {"type": "default"}}
_NO_PROMPT_CACHE = re.compile(r"claude-(v2|instant|3-(opus|sonnet|haiku)|3-5-sonnet-20240620)")


def caches_prompts(model_id: str) -> bool:
    """Whether Bedrock takes cache points for ``model_id``: its Claude models from 3.5
    Sonnet v2 on, and Amazon Nova. Bedrock refuses a request with a cache point for any
    other model, so an unknown model gets none."""
    base = re.sub(r"^(us|eu|apac|jp|au|us-gov|global)\.", "", model_id)
    if base.startswith("anthropic.claude-"):
        return _NO_PROMPT_CACHE.match(base.removeprefix("anthropic.")) is None
    return base.startswith("amazon.nova-")


def _mark_cache_points(payload: JsonObject) -> None:
    """A ``cachePoint`` block after the tools, the system prompt and the newest message's
    content: Bedrock caches the prefix before each (at most four per request)."""
    tools = (payload.get("toolConfig") or {}).get("tools")
    if tools:
        tools.append(dict(_CACHE_POINT))
    if payload.get("system"):
        payload["system"].append(dict(_CACHE_POINT))
    if payload["messages"]:  # a copy of the message it marks: built messages are reused
        newest = payload["messages"][-1]
        payload["messages"][-1] = {**newest, "content": [*newest["content"], dict(_CACHE_POINT)]}


def _step(out: list[JsonObject], entry: UserMessage | AssistantTurn) -> None:
    """Append one history entry's Converse messages to ``out`` (merged by role)."""
    if isinstance(entry, UserMessage):
        append_merged(out, "user", [b for b in map(_user_block, user_blocks(entry)) if b])
    else:
        append_merged(out, "assistant", _assistant_blocks(entry))
        if entry.results:
            append_merged(out, "user", [_result_block(r) for r in entry.results])


def _user_block(block: Any) -> JsonObject | None:
    if isinstance(block, TextContent):
        return {"text": block.text} if block.text.strip() else None
    image_format = _IMAGE_FORMATS.get(block.mime_type.lower())
    if image_format is None:
        return {"text": f"(an image of type {block.mime_type} was left out: Bedrock takes png, jpeg, gif, webp)"}
    return {"image": {"format": image_format, "source": {"bytes": base64.b64decode(block.data)}}}


def _assistant_blocks(turn: AssistantTurn) -> list[JsonObject]:
    own = turn.message.model is None or turn.message.model.startswith("bedrock:")
    blocks: list[JsonObject] = []
    for block in turn.message.content:
        if isinstance(block, ThinkingContent):
            provider_data = block.provider_data or {}
            if own and _REDACTED in provider_data:
                blocks.append({"reasoningContent": {"redactedContent": _redacted_bytes(provider_data[_REDACTED])}})
            elif own and block.signature and block.thinking:
                blocks.append(
                    {"reasoningContent": {"reasoningText": {"text": block.thinking, "signature": block.signature}}}
                )
        elif isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"text": block.text})
        elif isinstance(block, ToolCall):
            blocks.append(
                {"toolUse": {"toolUseId": safe_tool_id(block.id or ""), "name": block.name, "input": block.arguments}}
            )
    return blocks


def _result_block(result: Any) -> JsonObject:
    content = [b for b in map(_user_block, result_parts(result)) if b]
    return {
        "toolResult": {
            "toolUseId": safe_tool_id(result.tool_call_id),
            "content": content,
            "status": "error" if result.is_error else "success",
        }
    }
