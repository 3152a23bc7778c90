"""A provider's failures: whether and when to retry, and what an error body or a transport
error says.

:class:`RetryPolicy` and the retry helpers decide a model call's retries (never a tool's);
:func:`error_details` reads the message and code of an error body in any provider's shape;
:func:`transport_error`, :func:`connection_failed` and :func:`connection_retryable` turn an
SDK's or httpx's transport exception into a :class:`~openprogram_jupyter.core.errors.ProviderError`
that names the URL it tried. :mod:`._provider_common` gives them to the providers.
"""

from __future__ import annotations

import email.utils
import random
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.errors import ProviderError
from ._in_browser import cors_hint

__all__ = [
    "BUDGET_SPENT_TYPES",
    "RetryPolicy",
    "StreamCutError",
    "budget_spent",
    "budget_spent_error",
    "connection_failed",
    "connection_retryable",
    "error_details",
    "is_retryable_status",
    "parse_retry_after",
    "retry_reason",
    "retryable_code",
    "transport_error",
    "wait_text",
]


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before asking again.

    A failed request is retried only when it is retryable (HTTP 408, 409, 429, any 5xx, a
    connection failure, or a stream that broke before anything arrived) **and** nothing
    of that round was streamed yet. The ``n``-th retry (from 0) waits the server's
    ``retry-after`` when it sent one, else ``base_delay * 2**n`` with ±``jitter``
    (a fraction), capped at ``max_delay``. A ``retry-after`` longer than
    ``max_retry_after`` seconds is not waited for: the round ends at once with the error,
    which states the wait (:meth:`waits_too_long`). Each wait that is waited is announced
    first, as a ``retry_wait`` update.
    """

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 20.0
    max_retry_after: float = 20.0
    jitter: float = 0.2

    def wait_before(self, retry_number: int, error: ProviderError) -> float | None:
        """Seconds to wait before retry ``retry_number``, or ``None`` to give up."""
        if not error.retryable or retry_number >= self.max_retries:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_retry_after else None
        delay = min(self.max_delay, self.base_delay * 2**retry_number)
        return max(0.0, delay * (1 + random.uniform(-self.jitter, self.jitter)))

    def waits_too_long(self, retry_number: int, error: ProviderError) -> bool:
        """Whether retry ``retry_number`` is given up only because the server asked to wait
        longer than ``max_retry_after``."""
        return (
            error.retryable
            and retry_number < self.max_retries
            and error.retry_after is not None
            and error.retry_after > self.max_retry_after
        )


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


def retry_reason(error: ProviderError) -> str:
    """What failed, in a few words a view can show: ``rate limited (HTTP 429)``, ``server
    error (HTTP 503)``, ``overloaded (overloaded_error)``, ``connection failed``."""
    code = (error.code or "").lower()
    if error.status == 429 or any(word in code for word in ("rate", "throttl", "exhausted")):
        words = "rate limited"
    elif "overload" in code or error.status == 529:
        words = "overloaded"
    elif error.status == 408 or "timeout" in code:
        words = "timed out"
    elif error.status is not None or error.code:
        words = "server error"
    else:
        return "connection failed"
    return f"{words} (HTTP {error.status})" if error.status is not None else f"{words} ({error.code})"


def wait_text(seconds: float) -> str:
    """``0.3 s``, ``2.5 s``, ``60 s``: a wait as an error message states it."""
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


class StreamCutError(ProviderError):
    """The stream ended before the provider's end marker."""

    def __init__(self, marker: str) -> None:
        super().__init__(
            f"the stream ended before {marker} (connection closed early)", retryable=True, kind="stream_cut"
        )


def error_details(body: object) -> tuple[str | None, str | None]:
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


BUDGET_SPENT_TYPES = frozenset({"budget_exceeded"})
"""The error ``type`` / ``code`` values by which an OpenAI-compatible gateway says the
key's budget is spent: LiteLLM's proxy answers ``{"error": {"message": "Budget has been
exceeded! ...", "type": "budget_exceeded", "param": null, "code": "400"}}`` (HTTP 400)."""


def budget_spent(body: object) -> bool:
    """Whether an error body says the key's budget is spent: the ``type`` or ``code`` of
    its error object (``{"error": {...}}``, or the body itself) is one of
    :data:`BUDGET_SPENT_TYPES`, compared exactly. Decided by those fields alone, never by
    the message's words."""
    if not isinstance(body, Mapping):
        return False
    inner = body.get("error")
    fields = inner if isinstance(inner, Mapping) else body
    return any(isinstance(fields.get(name), str) and fields[name] in BUDGET_SPENT_TYPES for name in ("type", "code"))


def budget_spent_error(message: str | None, *, status: int | None, code: str | None, body: object) -> ProviderError:
    """The :class:`ProviderError` for a gateway's refusal of a spent budget: kind
    ``budget``, never retried (asking again cannot succeed before the budget is raised or
    reset), its message one line — ``the course's budget for you is spent; the gateway
    says: <its message, whitespace runs and line breaks made single spaces>``."""
    words = " ".join((message or "no message").split())
    return ProviderError(
        f"the course's budget for you is spent; the gateway says: {words}",
        status=status,
        code=code,
        body=body,
        kind="budget",
    )


def retryable_code(code: str | None) -> bool:
    """Whether an error type named inside a stream means "try again later"."""
    text = (code or "").lower()
    return any(
        word in text
        for word in (
            "overload",
            "rate",
            "server",
            "internal",
            "unavailable",
            "throttl",
            "timeout",
            "exhausted",
            "api_error",
        )
    )


def transport_error(exc: BaseException) -> ProviderError | None:
    """A connection-level failure (refused, reset, cut, timed out) from httpx, httpx2,
    urllib3 or the OS, as a :class:`ProviderError` — retryable unless it cannot succeed on
    retry (:func:`connection_retryable`); ``None`` for anything else."""
    root = type(exc).__module__.split(".")[0]
    transports = ("httpx", "httpx2", "httpcore", "httpcore2", "h11", "urllib3")
    if root in transports or isinstance(exc, (ConnectionError, TimeoutError)):
        return connection_failed(exc)
    return None


def connection_failed(exc: BaseException, shown: BaseException | None = None) -> ProviderError:
    """The :class:`ProviderError` for a request that did not connect (``shown``: the
    exception whose words are shown, by default ``exc``), naming the URL it tried when the
    exception knows it: ``connection failed (ConnectError: …; tried http://…/chat/completions)``;
    in a browser, followed by :func:`._in_browser.cors_hint` (a refused origin looks the same)."""
    shown = shown or exc
    retryable = connection_retryable(exc)
    why = "" if retryable else "; a wrong address cannot succeed on retry, so it was not retried"
    why += cors_hint()
    url = _url_tried(exc, shown)
    tried = f"; tried {url}" if url else ""
    return ProviderError(
        f"connection failed ({type(shown).__name__}: {shown}{tried}){why}", retryable=retryable, kind="connection"
    )


def _url_tried(*errors: BaseException) -> str | None:
    """The URL of the request an httpx-style error (or its cause) was made for, if any."""
    for error in (*errors, *(e.__cause__ for e in errors)):
        try:
            request = getattr(error, "request", None)
        except RuntimeError:  # httpx: an error raised before a request was attached
            continue
        url = getattr(request, "url", None)
        if url is not None:
            return str(url)
    return None


_PERMANENT_CONNECTION_ERRORS = frozenset(
    {  # httpx / httpx2, requests, urllib3
        "UnsupportedProtocol",
        "InvalidURL",
        "LocalProtocolError",
        "InvalidSchema",
        "MissingSchema",
        "URLSchemeUnknown",
        "LocationParseError",
        "LocationValueError",
    }
)


def connection_retryable(exc: BaseException) -> bool:
    """Whether a failure to connect can succeed on retry: not when the address is wrong —
    a URL without http(s)://, a malformed one, or a host name the resolver says does not
    exist (``EAI_NONAME``; a resolver that could not answer, ``EAI_AGAIN``, is retried).
    Decided on the exception types and error numbers along the cause chain, never on
    their text. (An empty base URL was tried three times, 3.3 s, before failing.)"""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if type(error).__name__ in _PERMANENT_CONNECTION_ERRORS:
            return False
        if isinstance(error, socket.gaierror) and error.errno == socket.EAI_NONAME:
            return False
        wrapped = getattr(error, "kwargs", None)  # botocore keeps the transport's error there
        inner = wrapped.get("error") if isinstance(wrapped, dict) else None
        error = error.__cause__ or error.__context__ or (inner if isinstance(inner, BaseException) else None)
    return True
