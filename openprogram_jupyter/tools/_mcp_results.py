"""What the model reads of an MCP tool's result (an SDK ``CallToolResult``).

Each content block becomes a content block of ours, in the server's order:

- ``text`` is text; ``image`` is an image;
- an embedded ``resource`` with ``text`` is that text; with a ``blob``, an ``image/*`` blob is
  an image, a ``text/*`` (or JSON, XML) blob that is UTF-8 is its text, and any other blob
  — audio, an archive, bytes of any kind — is a one-line note with its type and size (the
  base64 never reaches the model as text);
- ``audio`` is such a note too: no provider this package speaks to is sent audio in a
  tool result;
- anything else (a ``resource_link``) is its JSON, with the protocol's own field names
  (``mimeType``).

Nothing here imports the SDK: blocks are read by their ``type`` and fields.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from ..core.errors import ToolFailure
from ..core.messages import ImageContent, TextContent

__all__ = ["McpToolError", "blob_note", "result_value"]

_URI_CHARS = 200
_TEXT_TYPES = ("application/json", "application/xml", "application/yaml", "application/x-yaml")


class McpToolError(ToolFailure, RuntimeError):
    """The MCP server answered a call with ``isError``; the message says so, with what it said."""


def result_value(result: Any) -> Any:
    """What a tool returns for an SDK ``CallToolResult``: its blocks as content blocks
    (module docstring), or the structured content when there are no blocks. An ``isError``
    result raises :class:`McpToolError` with its text."""
    blocks = [_block(block) for block in result.content or []]
    if result.is_error:
        text = "\n".join(b.text for b in blocks if isinstance(b, TextContent)) or "the tool reported an error"
        raise McpToolError(f"the MCP server reported an error: {text}")
    if not blocks and result.structured_content is not None:
        return result.structured_content
    return blocks or ""


def _block(block: Any) -> TextContent | ImageContent:
    kind = getattr(block, "type", None)
    if kind == "text":
        return TextContent(text=block.text)
    if kind == "image":
        return ImageContent(data=block.data, mime_type=block.mime_type)
    if kind == "audio":
        return TextContent(text=blob_note("audio", None, block.mime_type, block.data))
    if kind == "resource":
        return _resource(block.resource)
    return TextContent(text=json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True)))


def _resource(resource: Any) -> TextContent | ImageContent:
    """An embedded resource: its text, its image, or a note of its type and size."""
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return TextContent(text=text)
    mime = str(getattr(resource, "mime_type", None) or "application/octet-stream")
    blob = str(getattr(resource, "blob", "") or "")
    uri = str(getattr(resource, "uri", "") or "")
    if mime.startswith("image/") and _decoded(blob) is not None:
        return ImageContent(data=blob, mime_type=mime)
    decoded = _decoded(blob) if mime.startswith("text/") or mime in _TEXT_TYPES else None
    if decoded is not None:
        try:
            return TextContent(text=decoded.decode("utf-8"))
        except UnicodeDecodeError:
            pass  # not text after all: a note
    return TextContent(text=blob_note("audio" if mime.startswith("audio/") else "binary resource", uri, mime, blob))


def blob_note(what: str, uri: str | None, mime: str, data: str) -> str:
    """A blob in one line, for the model and every view alike: ``[audio: audio/wav, 16,044
    bytes; not sent to the model]`` (``uri`` after ``what`` when given; the size of ``data``
    decoded from base64, or ``not valid base64``)."""
    decoded = _decoded(data)
    size = f"{len(decoded):,} bytes" if decoded is not None else "not valid base64"
    where = f" {uri[:_URI_CHARS]}" if uri else ""
    return f"[{what}{where}: {mime[:100]}, {size}; not sent to the model]"


def _decoded(data: str) -> bytes | None:
    """``data`` decoded from base64, or ``None`` when it is not base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
