"""The name for JSON-shaped data: provider bodies and replies, schemas, tool arguments,
Jupyter outputs.

``JsonObject`` checks no more than ``dict[str, Any]`` — JSON's values are dynamically
typed, and each is narrowed where it is read — but it says what the data is: a parsed
JSON object, safe to serialize again, not any mapping of Python values. A dict that may
hold Python objects (keyword arguments after validation, a notebook's namespace) stays
``dict[str, Any]``.

Text from outside — a provider's reply, a tool's result, a saved notebook — may hold a
lone surrogate (JSON allows ``"\\ud83d"``; a file name read with ``surrogateescape``
holds one), which no UTF-8 file, socket or widget takes. :func:`valid_text` and
:func:`valid_json` make such text valid where it enters, so nothing downstream meets one.
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias

__all__ = ["JsonObject", "loads_valid", "valid_json", "valid_text"]

JsonObject: TypeAlias = dict[str, Any]

REPLACEMENT = "\ufffd"


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: each surrogate pair (two code points a JSON escape or a
    UTF-16 source left apart) joined into the one character it encodes, each lone
    surrogate replaced by U+FFFD. Text that holds no surrogate is returned as it is, the
    same object."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def valid_json(value: Any) -> Any:
    """``value`` with every string in it — dict keys included, through dicts, lists and
    tuples (a tuple with a string changed becomes a list) — made valid by :func:`valid_text`. Anything else is
    kept. A container with nothing to change is returned as it is, the same object."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        pairs = [(valid_json(k), valid_json(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, (list, tuple)):
        items = [valid_json(item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def loads_valid(text: str | bytes) -> Any:
    """``json.loads(text)`` with every string of the result made valid (:func:`valid_json`);
    raises what ``json.loads`` raises."""
    return valid_json(json.loads(text))
