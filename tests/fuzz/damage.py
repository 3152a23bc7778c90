"""A provider's stream damaged as a broken server or proxy damages it: frames dropped,
duplicated or cut mid-JSON, junk lines, fields deleted or of the wrong type, the stream
ended early. Each damage is ``(kind, where, value)``; :func:`damaged` applies a list."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from .strategies import json_like, texts

KINDS = ["drop", "duplicate", "cut", "junk", "delete_field", "retype_field", "end"]
JUNK = [
    b"data: {\n\n",
    b": keep-alive\n\n",
    b"event: ping\n\n",
    b"data: null\n\n",
    b"data: 42\n\n",
    b"data: []\n\n",
    b"\xff\xfe garbage\n\n",
    b'data: {"x": "\\ud83d"}\n\n',
    b"\n\n",
    b"data:\n\n",
]
damages = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(0, 10**6), st.one_of(json_like, texts)), min_size=1, max_size=4
)


def _data_line(frame: bytes) -> tuple[list[bytes], int] | None:
    lines = frame.split(b"\n")
    for number, line in enumerate(lines):
        if line.startswith(b"data: ") and line[6:7] in (b"{", b"["):
            return lines, number
    return None


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside ``value`` (dict keys and list indexes), depth first."""
    found: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found.append((*path, key))
        found += _paths(item, (*path, key))
    return found


def edit_somewhere(data: Any, where: int, value: Any, delete: bool) -> bool:
    """Delete the field at path number ``where`` (modulo their count) inside ``data``, or
    set it to ``value``, in place; ``False`` when ``data`` holds no field."""
    paths = _paths(data)
    if not paths:
        return False
    *parents, last = paths[where % len(paths)]
    holder = data
    for key in parents:
        holder = holder[key]
    if delete:
        del holder[last]
    else:
        holder[last] = value
    return True


def _edit_field(frame: bytes, where: int, value: Any, delete: bool) -> bytes:
    """``frame`` with one field of its JSON deleted, or set to ``value``."""
    found = _data_line(frame)
    if found is None:
        return frame
    lines, number = found
    data = json.loads(lines[number][6:])
    if not edit_somewhere(data, where, value, delete):
        return frame
    lines[number] = b"data: " + json.dumps(data).encode()
    return b"\n".join(lines)


def _apply(frames: list[bytes], kind: str, where: int, value: Any) -> list[bytes]:
    if not frames:
        return frames
    index = where % len(frames)
    frame = frames[index]
    if kind == "drop":
        return frames[:index] + frames[index + 1 :]
    if kind == "duplicate":
        return frames[: index + 1] + frames[index:]
    if kind == "cut":
        return [*frames[:index], frame[: where % max(1, len(frame))], *frames[index + 1 :]]
    if kind == "junk":
        return [*frames[:index], JUNK[where % len(JUNK)], *frames[index:]]
    if kind == "end":
        return frames[:index]
    return [*frames[:index], _edit_field(frame, where, value, kind == "delete_field"), *frames[index + 1 :]]


def damaged(frames: list[bytes], damage: list[tuple[str, int, Any]]) -> list[bytes]:
    """``frames`` with each damage applied in turn."""
    for kind, where, value in damage:
        frames = _apply(frames, kind, where, value)
    return frames
