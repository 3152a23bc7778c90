"""What every remote provider shares: the retry policy, error messages without secrets,
usage with cost, and the transcript helpers that keep exactly one result per call.

Each provider subclasses :class:`ProviderModel` and supplies three things: ``_attempt``
(one request: open the stream and translate it into builder calls, raising on any
failure), ``_classify`` (an exception → :class:`ProviderError`) and, optionally, notices
about controls it cannot express (yielded before the request). :meth:`ProviderModel.stream`
owns the rest: retries, the error message, and closing the stream on cancel.
"""

from __future__ import annotations

import asyncio
import email.utils
import importlib.util
import json
import random
import re
import time
import weakref
from abc import abstractmethod
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from ..events import AssistantUpdate
from ..messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from .base import MessageBuilder, Model, ModelRequest
from .pricing import cost_of

__all__ = [
    "AssistantTurn",
    "ProviderError",
    "ProviderModel",
    "RetryPolicy",
    "forced_tool_name",
    "history_has_tool_blocks",
    "make_usage",
    "parse_retry_after",
    "paired_history",
    "result_images",
    "result_text",
    "safe_tool_id",
    "scrub_secrets",
    "stub_specs_for_history",
]

EMPTY_RESULT_TEXT = "(no output)"
MISSING_RESULT_TEXT = "error: no result was recorded for this call"


# -- retries -------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before asking again.

    A failed request is retried only when it is retryable (HTTP 408, 409, 429, any 5xx, a
    connection failure, or a stream that broke before anything arrived) **and** nothing
    of that round was streamed yet. The ``n``-th retry (from 0) waits the server's
    ``retry-after`` when it sent one, else ``base_delay * 2**n`` with ±``jitter``
    (a fraction), capped at ``max_delay``. A ``retry-after`` longer than
    ``max_retry_after`` is not waited for: the run ends with the error instead.
    """

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 60.0
    jitter: float = 0.2

    def wait_before(self, retry_number: int, error: ProviderError) -> float | None:
        """Seconds to wait before retry ``retry_number``, or ``None`` to give up."""
        if not error.retryable or retry_number >= self.max_retries:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_retry_after else None
        delay = min(self.max_delay, self.base_delay * 2**retry_number)
        return max(0.0, delay * (1 + random.uniform(-self.jitter, self.jitter)))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, else ``retry-after``
    (seconds, or an HTTP date). ``None`` when absent or unreadable."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    try:
        if "retry-after-ms" in lower:
            return max(0.0, float(lower["retry-after-ms"]) / 1000)
        value = lower.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def is_retryable_status(status: int | None) -> bool:
    return status is not None and (status in (408, 409, 429) or status >= 500)


@dataclass
class ProviderError(Exception):
    """A failed request or stream, in the provider's own words.

    ``status`` is the HTTP status (``None`` for a connection failure or an error frame
    inside a stream), ``code`` the provider's error type (``rate_limit_error``,
    ``ThrottlingException``, ...), ``message`` the provider's message.
    """

    message: str
    status: int | None = None
    code: str | None = None
    retryable: bool = False
    retry_after: float | None = None

    def __str__(self) -> str:
        return self.message


class StreamCutError(ProviderError):
    """The stream ended before the provider's end marker."""

    def __init__(self, marker: str) -> None:
        super().__init__(f"the stream ended before {marker} (connection closed early)", retryable=True)


# -- secrets ---------------------------------------------------------------------------

_KEY_PATTERNS = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-*]{6,}"), "sk-***"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{12,}"), "AIza***"),
    (re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{12,}"), r"\1***"),
    (re.compile(r"(?i)\b(bearer\s+)[^\s,;\"']+"), r"\1***"),
    (re.compile(r"(?i)\b((?:x-)?(?:goog-)?api[_-]?key[\"']?\s*[=:]\s*[\"']?)[^\s,;\"'&]+"), r"\1***"),
)


def scrub_secrets(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every given secret, and anything shaped like an API key, masked."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    for pattern, replacement in _KEY_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


# -- the model base --------------------------------------------------------------------


class ProviderModel(Model):
    """A remote model: ``stream`` = notices, then attempts with retries, then ``fail``.

    Subclasses set ``provider`` and implement ``_attempt`` and ``_classify``. ``api_key``
    is held privately (only to mask it in messages) and never shown by ``repr``.
    """

    provider: str = "provider"

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        if not model_id:
            raise ValueError(f"{self.provider}: a model id is required, e.g. '{self.provider}:MODEL'")
        self.model_id = model_id
        self.name = f"{self.provider}:{model_id}"
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self.__api_key = api_key
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    @property
    def _api_key(self) -> str | None:
        return self.__api_key

    def _client(self) -> Any:
        """The SDK client for the running event loop, made on first use (connection pools
        belong to one loop, and each synchronous run may bring its own)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = self._make_client()
        return client

    def _make_client(self) -> Any:
        """Import the SDK and build a client (the SDK loads here, never at import)."""
        raise NotImplementedError

    def _secrets(self) -> list[str | None]:
        return [self.__api_key]

    async def stream(self, request: ModelRequest, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        """Stream one reply. Retries only while nothing has streamed; never raises for a
        provider failure (``out.fail``); lets ``CancelledError`` through after closing the
        connection."""
        try:
            payload, notices = self._prepare(request)
        except ValueError as error:  # a request we cannot translate (bad image, ...)
            out.fail(self._format_error(ProviderError(str(error)), 0))
            return
        for notice in notices:
            yield out.notice(f"{self.name}: {notice}")
        retry_number = 0
        while True:
            streamed = False
            try:
                async with aclosing(self._attempt(payload, out)) as updates:
                    async for update in updates:
                        streamed = True
                        yield update
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - every provider failure ends as a message
                error = exc if isinstance(exc, ProviderError) else self._classify(exc)
                wait = None if streamed else self.retry.wait_before(retry_number, error)
                if wait is None:
                    out.fail(self._format_error(error, retry_number))
                    return
                await asyncio.sleep(wait)
                retry_number += 1

    def _format_error(self, error: ProviderError, retries: int) -> str:
        parts = [f"{self.name} failed"]
        if error.status is not None:
            parts.append(f"HTTP {error.status}")
        if error.code:
            parts.append(str(error.code))
        text = ", ".join(parts) + f": {error.message or 'no message'}"
        if retries:
            text += f" (after {retries} {'retry' if retries == 1 else 'retries'})"
        return scrub_secrets(text, self._secrets())

    def _usage(self, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> Usage:
        return make_usage(self.name, input, output, cache_read, cache_write)

    @abstractmethod
    def _prepare(self, request: ModelRequest) -> tuple[Any, list[str]]:
        """The request payload for this round, and notices about degraded controls."""

    @abstractmethod
    def _attempt(self, payload: Any, out: MessageBuilder) -> AsyncIterator[AssistantUpdate]:
        """One request: stream into ``out`` and ``finish`` it, or raise."""

    @abstractmethod
    def _classify(self, exc: Exception) -> ProviderError:
        """Turn an SDK or transport exception into a :class:`ProviderError`."""


def error_details(body: Any) -> tuple[str | None, str | None]:
    """``(message, code)`` from a provider's JSON error body, whichever shape it has:
    ``{"error": {"message", "type"|"code"|"status"}}``, ``{"message", ...}`` or a string."""
    if isinstance(body, str):
        return body or None, None
    if not isinstance(body, Mapping):
        return None, None
    inner = body.get("error")
    if isinstance(inner, Mapping):
        body = inner
    elif isinstance(inner, str):
        return inner, None
    message = body.get("message") or body.get("Message")
    code = body.get("type") if body.get("type") not in (None, "error") else None
    code = code or body.get("status") or body.get("code") or body.get("__type")
    return (str(message) if message else None), (str(code) if code else None)


def retryable_code(code: str | None) -> bool:
    """Whether an error type named inside a stream means "try again later"."""
    text = (code or "").lower()
    return any(word in text for word in ("overload", "rate", "server", "internal", "unavailable",
                                         "throttl", "timeout", "exhausted", "api_error"))


def transport_error(exc: BaseException) -> ProviderError | None:
    """A connection-level failure (refused, reset, cut, timed out) from httpx, httpx2,
    urllib3 or the OS, as a retryable :class:`ProviderError`; ``None`` for anything else."""
    root = type(exc).__module__.split(".")[0]
    if root in ("httpx", "httpx2", "httpcore", "h11", "urllib3") or isinstance(exc, (ConnectionError, TimeoutError)):
        return ProviderError(f"connection failed ({type(exc).__name__}: {exc})", retryable=True)
    return None


def require_module(module: str, provider: str) -> None:
    """Check (without importing it: the SDK loads on the first run) that ``module`` is
    installed; if not, raise the ``ValueError`` :func:`resolve_model` gives for a missing
    optional dependency (``pip install 'openprogram-jupyter[provider]'``)."""
    if importlib.util.find_spec(module) is None:
        raise ValueError(
            f"the {provider!r} provider needs {module!r}, which is not installed "
            f"(pip install 'openprogram-jupyter[{provider}]')"
        )


def make_usage(model_name: str, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> Usage:
    """A :class:`Usage` with ``total_tokens`` summed and ``cost`` from the price table."""
    usage = Usage(
        input=max(0, input or 0),
        output=max(0, output or 0),
        cache_read=max(0, cache_read or 0),
        cache_write=max(0, cache_write or 0),
    )
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    usage.cost = cost_of(model_name, usage)
    return usage


def json_arguments(text: str | None) -> dict[str, Any] | None:
    """Parsed JSON object arguments, or ``None`` (the builder then records the problem)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


# -- the transcript --------------------------------------------------------------------


@dataclass
class AssistantTurn:
    """An assistant message and the results of its calls, aligned one-to-one with
    ``message.tool_calls`` (a missing result is filled with an error result)."""

    message: AssistantMessage
    results: list[ToolResultMessage] = field(default_factory=list)

    @property
    def calls(self) -> list[ToolCall]:
        return self.message.tool_calls


def paired_history(
    messages: Iterable[UserMessage | AssistantMessage | ToolResultMessage],
) -> list[UserMessage | AssistantTurn]:
    """Group the history into user messages and assistant turns with their results.

    Results are matched to calls by ``tool_call_id`` and put in call order; a call with
    no result gets ``MISSING_RESULT_TEXT`` as an error result, and a result with no call
    in the preceding assistant message is dropped — so whatever the history holds, what
    is sent pairs every call with exactly one result. Assistant messages with no content
    at all (a round that failed before anything streamed) are left out.
    """
    entries: list[UserMessage | AssistantTurn] = []
    pending: AssistantTurn | None = None
    collected: dict[str, ToolResultMessage] = {}

    def close_turn() -> None:
        nonlocal pending
        if pending is None:
            return
        pending.results = [
            collected.get(call.id or "")
            or ToolResultMessage(
                tool_call_id=call.id or "", tool_name=call.name, is_error=True,
                content=[TextContent(text=MISSING_RESULT_TEXT)], status="error",
            )
            for call in pending.calls
        ]
        collected.clear()
        pending = None

    for message in messages:
        if isinstance(message, ToolResultMessage):
            if pending is not None and message.tool_call_id not in collected:
                collected[message.tool_call_id] = message
            continue
        close_turn()
        if isinstance(message, AssistantMessage):
            if not message.content:
                continue
            pending = AssistantTurn(message)
            entries.append(pending)
        else:
            entries.append(message)
    close_turn()
    return entries


def result_text(result: ToolResultMessage) -> str:
    """The text the model sees for a result; ``EMPTY_RESULT_TEXT`` when it has none."""
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    if text:
        return text
    return "(see the attached image)" if result_images(result) else EMPTY_RESULT_TEXT


def result_images(result: ToolResultMessage) -> list[ImageContent]:
    return [block for block in result.content if isinstance(block, ImageContent)]


def user_blocks(message: UserMessage) -> list[TextContent | ImageContent]:
    if isinstance(message.content, str):
        return [TextContent(text=message.content)]
    return list(message.content)


_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_\-]")


def safe_tool_id(call_id: str) -> str:
    """``call_id`` limited to ``[A-Za-z0-9_-]`` and 64 characters (Anthropic, Bedrock).
    The same id always maps to the same result, so a call and its result still pair."""
    cleaned = _UNSAFE_ID_CHARS.sub("_", call_id or "call")
    return cleaned[:64]


def forced_tool_name(choice: Any) -> str | None:
    """The tool a ``{"type": "function", "name": X}`` choice forces, else ``None``."""
    if isinstance(choice, dict):
        return choice.get("name")
    return None


def history_has_tool_blocks(messages: Iterable[Any]) -> bool:
    return any(
        isinstance(m, ToolResultMessage) or (isinstance(m, AssistantMessage) and m.tool_calls)
        for m in messages
    )


def stub_specs_for_history(messages: Iterable[Any], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``tools``, plus a minimal spec for each tool named in the history but not on the
    menu — for providers that reject tool blocks in a history without those tools
    declared. The stubs accept any object."""
    known = {spec["name"] for spec in tools}
    extra: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                if call.name not in known:
                    known.add(call.name)
                    extra.append({
                        "name": call.name,
                        "description": "A tool used earlier in this conversation; not available now.",
                        "parameters": {"type": "object", "properties": {}},
                    })
    return list(tools) + extra


def append_merged(messages: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Add ``blocks`` as a ``{"role", "content": [...]}`` message, joining the previous
    message when it has the same role (Anthropic and Bedrock want roles to alternate, so
    a steering message after tool results joins the results' user message)."""
    if not blocks:
        return
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": role, "content": blocks})


def data_url(image: ImageContent) -> str:
    return f"data:{image.mime_type};base64,{image.data}"
