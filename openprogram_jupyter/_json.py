"""The name for JSON-shaped data: provider bodies and replies, schemas, tool arguments,
Jupyter outputs.

``JsonObject`` checks no more than ``dict[str, Any]`` — JSON's values are dynamically
typed, and each is narrowed where it is read — but it says what the data is: a parsed
JSON object, safe to serialize again, not any mapping of Python values. A dict that may
hold Python objects (keyword arguments after validation, a notebook's namespace) stays
``dict[str, Any]``.
"""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["JsonObject"]

JsonObject: TypeAlias = dict[str, Any]
