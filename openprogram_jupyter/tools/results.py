"""Turning whatever a tool returned into the content blocks the model sees."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pydantic import BaseModel

from ..core._json import JsonObject
from ..core.messages import ImageContent, TextContent
from ._images import Checkpoint, as_image, fit_image, mixed_blocks
from ._table_text import is_table, table_text

__all__ = [
    "DEFAULT_MAX_RESULT_CHARS",
    "FULL_TEXT_KEPT",
    "PICTURE_CHARS",
    "as_image",
    "result_content",
    "truncate_text",
]

DEFAULT_MAX_RESULT_CHARS = 50_000
"""The run setting ``max_result_chars``'s default: results longer are cut (head and tail
kept) unless the run or the tool sets its own limit."""

PICTURE_CHARS = 6_400
"""What one picture counts against ``max_result_chars``: the ~1,600 tokens Anthropic and
OpenAI count for an image scaled to fit, at four characters a token (engine/_context.py)."""

FULL_TEXT_KEPT = 200_000
"""How much of a cut result's whole text its ``details["full_text"]`` keeps for the card
(head and tail): the details are saved with the notebook, so they are bounded too."""


def result_content(
    value: Any, max_chars: int | None = DEFAULT_MAX_RESULT_CHARS, checkpoint: Checkpoint | None = None
) -> tuple[list[TextContent | ImageContent], JsonObject]:
    """Render a tool's return value; returns ``(content, details)``.

    - ``str`` as is; ``None`` as an empty result;
    - dicts, lists, tuples, numbers, booleans, pydantic models and dataclasses as
      indented JSON (values and keys JSON cannot hold fall back to their ``repr``);
    - a picture — a matplotlib figure, a PIL image, an ``IPython.display.Image``,
      ``(bytes, "image/...")`` — as an image block;
    - a ``TextContent`` / ``ImageContent`` block, or a list mixing blocks, strings and
      pictures, as those blocks in order (each text block cut like any text);
    - anything else as its ``repr``.

    - a pandas ``DataFrame`` or ``Series`` as its shape, dtypes and first and last rows
      within ``max_chars`` (:mod:`._table_text`; ``details["rows"]`` and
      ``details["rows_shown"]``), never as its whole text.

    Every image is fitted to what providers accept (:func:`._images.fit_image`: scaled
    down, or a text block saying why it was left out). Text past ``max_chars`` keeps its
    head and tail with a marker saying how many characters were cut, of how many, and how
    to read the rest (:func:`truncate_text`); ``details["truncated_chars"]`` and
    ``details["original_chars"]`` record the numbers and ``details["full_text"]`` the
    whole text for the card (at most :data:`FULL_TEXT_KEPT` characters, head and tail).
    Among blocks, text and pictures share ``max_chars``: each picture counts
    :data:`PICTURE_CHARS`, and the pictures past it become one note
    (``details["pictures_left_out"]``).

    ``checkpoint()``, if given, is called before each picture is made and before each is
    fitted — the slow steps; whatever it raises stops the work and propagates (a stopped
    run's way out, docs/faults.md "Nothing blocks Stop").
    """
    checkpoint = checkpoint or _no_checkpoint
    if _is_blocks(value):
        return _render_blocks(value if isinstance(value, list) else [value], max_chars, checkpoint)
    blocks = mixed_blocks(value, checkpoint)
    if blocks is not None:
        return _render_blocks(blocks, max_chars, checkpoint)
    checkpoint()
    image = as_image(value)
    if image is not None:
        checkpoint()
        return [fit_image(image)], {}
    details: JsonObject = {}
    if is_table(value):
        text, rows, shown = table_text(value, max_chars)
        details.update(rows=rows, rows_shown=shown)
    else:
        text = _as_text(value)
    if max_chars is not None and len(text) > max_chars:
        details.update(_cut_details(text, max_chars))
        text = truncate_text(text, max_chars)
    return ([TextContent(text=text)] if text else []), details


def _cut_details(text: str, max_chars: int) -> JsonObject:
    """What a cut of ``text`` to ``max_chars`` records: how much was cut, of how much, and
    the whole text for the card (itself bounded by :data:`FULL_TEXT_KEPT`)."""
    kept = text if len(text) <= FULL_TEXT_KEPT else truncate_text(text, FULL_TEXT_KEPT, for_model=False)
    return {"truncated_chars": len(text) - max_chars, "original_chars": len(text), "full_text": kept}


def _is_blocks(value: object) -> bool:
    if isinstance(value, (TextContent, ImageContent)):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(b, (TextContent, ImageContent)) for b in value)


def _no_checkpoint() -> None:
    return None


def _render_blocks(
    blocks: list[TextContent | ImageContent], max_chars: int | None, checkpoint: Checkpoint
) -> tuple[list[TextContent | ImageContent], JsonObject]:
    """Each text block cut to ``max_chars``; text and pictures together share
    ``max_chars`` (a picture counts :data:`PICTURE_CHARS`), the pictures past it left out
    and named in one note at the end."""
    content: list[TextContent | ImageContent] = []
    cut = 0
    room = max_chars
    pictures, left_out = sum(isinstance(block, ImageContent) for block in blocks), 0
    for block in blocks:
        if isinstance(block, TextContent):
            if max_chars is not None and len(block.text) > max_chars:
                cut += len(block.text) - max_chars
                block = TextContent(text=truncate_text(block.text, max_chars))
            room = None if room is None else max(0, room - len(block.text))
        elif room is not None and room < PICTURE_CHARS:
            left_out += 1
            continue
        else:
            room = None if room is None else room - PICTURE_CHARS
            checkpoint()
            block = fit_image(block)
        content.append(block)
    details: JsonObject = {"truncated_chars": cut} if cut else {}
    if left_out:
        content.append(
            TextContent(
                text=f"[{left_out} of {pictures} pictures left out: past max_result_chars={max_chars:,} "
                f"(a picture counts as {PICTURE_CHARS:,})]"
            )
        )
        details["pictures_left_out"] = left_out
    return content, details


def truncate_text(text: str, max_chars: int, *, for_model: bool = True) -> str:
    """Keep the first and last ``max_chars // 2`` characters with a marker between saying
    how many were cut of how many; ``for_model``, the marker also names the limit and tells
    the model how to read the rest."""
    if len(text) <= max_chars:
        return text
    head = max_chars // 2
    tail = max_chars - head
    cut = len(text) - head - tail
    how = (
        f" (max_result_chars={max_chars:,}); the whole result stays in the run: to read the rest, "
        "call the tool again for a narrower part"
        if for_model
        else ""
    )
    return f"{text[:head]}\n\n[... {cut:,} characters cut of {len(text):,}{how} ...]\n\n{text[-tail:] if tail else ''}"


def _as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value))
    if isinstance(value, (dict, list, tuple, int, float, bool, BaseModel)) or _is_dataclass_instance(value):
        return json.dumps(_jsonable(value, ()), indent=2, ensure_ascii=False)
    return repr(value)


def _is_dataclass_instance(value: object) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _jsonable(value: Any, parents: tuple[int, ...]) -> Any:
    """``value`` as plain JSON data; what JSON cannot hold becomes its ``repr``.

    Never raises: a model that refuses to serialize, a dataclass holding a lock, a dict
    with tuple keys and a list that contains itself all still render.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if id(value) in parents:
        return f"<cycle: {type(value).__name__}>"
    inside = (*parents, id(value))
    if isinstance(value, BaseModel):
        try:
            return value.model_dump(mode="json")
        except Exception:
            value = {name: getattr(value, name, None) for name in type(value).model_fields}
    elif _is_dataclass_instance(value):
        value = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {_json_key(key): _jsonable(item, inside) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item, inside) for item in value]
    if isinstance(value, (set, frozenset)):
        return [_jsonable(item, inside) for item in sorted(value, key=repr)]
    return repr(value)


def _json_key(key: object) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return repr(key)
