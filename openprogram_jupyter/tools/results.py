"""Turning whatever a tool returned into the content blocks the model sees."""

from __future__ import annotations

import base64
import dataclasses
import io
import json
from typing import Any

from pydantic import BaseModel

from ..messages import ImageContent, TextContent

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "render_result", "truncate_text"]

DEFAULT_MAX_RESULT_CHARS = 50_000
"""Results longer than this are cut (head and tail kept) unless a tool sets its own limit."""

_IMAGE_MIME_PREFIX = "image/"


def render_result(value: Any, max_chars: int | None = DEFAULT_MAX_RESULT_CHARS) -> tuple[list[TextContent | ImageContent], dict[str, Any]]:
    """Render a tool's return value; returns ``(content, details)``.

    - ``str`` as is; ``None`` as an empty result;
    - dicts, lists, tuples, pydantic models and dataclasses as JSON (values JSON cannot
      hold fall back to their ``repr``);
    - a PIL image, or ``(bytes, "image/...")``, as an image block;
    - anything else as its ``repr``.

    Text past ``max_chars`` keeps its head and tail with a marker saying how many
    characters were cut; ``details["truncated_chars"]`` records the number.
    """
    image = _as_image(value)
    if image is not None:
        return [image], {}
    text = _as_text(value)
    details: dict[str, Any] = {}
    if max_chars is not None and len(text) > max_chars:
        details["truncated_chars"] = len(text) - max_chars
        details["original_chars"] = len(text)
        text = truncate_text(text, max_chars)
    return ([TextContent(text=text)] if text else []), details


def truncate_text(text: str, max_chars: int) -> str:
    """Keep the first and last ``max_chars // 2`` characters with a marker between."""
    if len(text) <= max_chars:
        return text
    head = max_chars // 2
    tail = max_chars - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n\n[... {cut:,} characters cut of {len(text):,} ...]\n\n{text[-tail:] if tail else ''}"


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value))
    if isinstance(value, BaseModel):
        return value.model_dump_json(indent=2)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, (dict, list, tuple, int, float, bool)):
        try:
            return json.dumps(value, indent=2, ensure_ascii=False, default=_json_fallback)
        except (TypeError, ValueError):
            return repr(value)
    return repr(value)


def _json_fallback(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def _as_image(value: Any) -> ImageContent | None:
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], (bytes, bytearray))
        and isinstance(value[1], str)
        and value[1].startswith(_IMAGE_MIME_PREFIX)
    ):
        return ImageContent(data=base64.b64encode(bytes(value[0])).decode("ascii"), mime_type=value[1])
    if type(value).__module__.startswith("PIL.") and hasattr(value, "save"):
        buffer = io.BytesIO()
        value.save(buffer, format="PNG")
        return ImageContent(data=base64.b64encode(buffer.getvalue()).decode("ascii"), mime_type="image/png")
    return None
