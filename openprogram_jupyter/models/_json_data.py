"""Plain JSON data from what an SDK hands over (its event objects, ``bytes``), for the wire
capture (:mod:`._wire`) and for the body Bedrock's botocore sends."""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["to_json_data"]


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
