"""What each wire format supplies to the server."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .script import Turn


@dataclass
class Reject:
    """A JSON reply (an HTTP error, or a whole non-streamed completion): status, body,
    extra headers."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


def sse(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


class Wire:
    """One provider's format. ``frames`` is the whole stream of a turn, end marker last."""

    name = "wire"
    content_type = "text/event-stream"

    def key(self, headers: dict[str, str]) -> str | None:
        """The API key the request carried."""
        raise NotImplementedError

    def validate(self, body: dict[str, Any]) -> Reject | None:
        """What the real API would reject in ``body``, with its status and error shape."""
        raise NotImplementedError

    def http_error(self, status: int, message: str) -> Reject:
        raise NotImplementedError

    def result_count(self, body: dict[str, Any]) -> int:
        """How many tool results the request holds (scripts use it to decide a turn)."""
        raise NotImplementedError

    def frames(self, turn: Turn, body: dict[str, Any], new_id: Callable[[str], str]) -> list[bytes]:
        raise NotImplementedError

    def error_frame(self, message: str) -> bytes:
        raise NotImplementedError

    def stream_headers(self) -> dict[str, str]:
        return {"Content-Type": self.content_type, "Cache-Control": "no-cache"}
