"""Scripted turns: what the fake model "says" in one round, in a provider-neutral form.

The same :class:`Turn` is rendered into each provider's wire format, so one script can
drive every provider. Failure modes are fields of the turn:

- ``status`` — answer with this HTTP error instead of a stream (``retry_after`` sets the
  ``retry-after`` header, in seconds; ``error_body`` sends that JSON body in place of the
  provider's own error shape — a gateway's, say — or, given ``bytes``, those bytes as a
  ``text/html`` page);
- ``error_after`` — send this many stream frames, then the provider's error frame;
- ``cut_after`` — send this many stream frames, then drop the connection in the middle
  of the HTTP body (no end marker, no final chunk); with ``cut_cleanly`` the HTTP body
  ends properly, only the provider's end marker is missing;
- ``frame_delay`` — sleep this long before each frame (a slow stream);
- ``raw_frames`` — send these stream frames as they are (bytes on the wire, each a whole
  SSE event), for replies no well-behaved server sends;
- ``failed_code`` — (OpenAI Responses) end the stream with ``response.failed`` carrying
  this error code and ``error_message`` instead of ``response.completed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    """A tool call. ``id`` ``None`` → the server invents one (Gemini: sends none).
    ``signature``: a Gemini ``thoughtSignature`` put on this call's part."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    signature: str | None = None


@dataclass
class Search:
    """A provider's own tool search inside a reply (Anthropic's tool search tool, OpenAI
    Responses' ``tool_search``): the ``query`` the model searched for and the deferred
    tools it ``loaded``; it comes before the turn's text and calls."""

    query: str
    loaded: list[str] = field(default_factory=list)
    error: str | None = None  # Anthropic: the search fails with this error code, loading nothing


@dataclass
class Turn:
    text: str = ""
    thinking: str = ""
    redacted_thinking: str = ""  # Anthropic: an encrypted thinking block's data
    calls: list[Call] = field(default_factory=list)
    search: Search | None = None  # a provider's own tool search, run before the calls
    compaction: str | None = None  # a provider's own compaction, first in the reply, when the request asks
    # for one: Anthropic's summary, OpenAI Responses' encrypted content
    input_tokens: int = 11
    output_tokens: int = 7
    cached_tokens: int = 0
    cache_write_tokens: int = 0  # Anthropic and Bedrock report what a round wrote to the cache
    stop: str | None = None  # "length" → the provider's max-tokens stop reason;
    # "content_filter" (OpenAI Responses) → incomplete, filtered
    raw_stop: str | None = None  # the provider's own stop / finish reason, sent as it is
    # (OpenAI Responses: an incomplete_details.reason, the response then incomplete)
    chunk_size: int = 6  # characters per text / argument fragment
    trailing_signature: str | None = None  # Gemini: a signature on a final empty text part
    # failure modes
    status: int | None = None
    retry_after: float | None = None
    error_message: str | None = None
    error_body: Any = None
    error_after: int | None = None
    cut_after: int | None = None
    cut_cleanly: bool = False
    frame_delay: float = 0.0
    failed_code: str | None = None
    raw_frames: list[bytes] | None = None

    @classmethod
    def http_error(cls, status: int, message: str = "", retry_after: float | None = None) -> Turn:
        return cls(status=status, retry_after=retry_after, error_message=message or None)


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into fragments of ``size`` characters (at least one fragment)."""
    if not text:
        return []
    return [text[i : i + size] for i in range(0, len(text), max(1, size))]
