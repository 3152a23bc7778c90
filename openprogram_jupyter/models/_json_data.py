"""Plain JSON data from what an SDK hands over (its event objects, ``bytes``), for the wire
capture (:mod:`._wire`) and for the body Bedrock's botocore sends; and the readers of a
server's parsed JSON, which take whatever is not the expected shape as absent."""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["json_count", "json_index", "json_object", "json_objects", "json_text", "to_json_data"]


def to_json_data(value: object) -> Any:
    """``value`` as plain JSON data: an SDK object through its ``to_dict()`` (or pydantic
    ``model_dump(mode="json")``), ``bytes`` as base64 text, containers recursively."""
    if hasattr(value, "to_dict"):
        value = value.to_dict()
    elif hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): to_json_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_data(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def json_object(value: object) -> dict[str, Any]:
    """``value`` if the server sent an object there, else ``{}`` (``null`` or a stray shape)."""
    return value if isinstance(value, dict) else {}


def json_objects(value: object) -> list[dict[str, Any]]:
    """The objects of a JSON list (``[]`` for ``null`` or anything that is not a list)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def json_text(value: object) -> str:
    """``value`` if it is a string, else ``""``."""
    return value if isinstance(value, str) else ""


def json_count(value: object) -> int:
    """A token count the server sent (``0`` for ``null`` or anything but a whole number)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def json_index(value: object) -> int:
    """A position the server sent (``-1`` for ``null`` or anything but a whole number, so an
    odd value is never a key of the positions seen)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else -1
