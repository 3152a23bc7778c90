"""Why a provider would refuse an image: its type, its bytes, its pixel count.

Every image the package sends passes :func:`refusal` first (through
:func:`._images.fit_image`), so a request never carries one a provider refuses:

- a type none of the providers takes: they all take PNG, JPEG, GIF and WebP, and only
  those (``image/jpg`` is read as ``image/jpeg``);
- data that is not base64, or bytes that are not the type they are labelled (a PNG
  label on JPEG bytes, or on no image at all): the bytes must begin with their type's
  signature, and, with Pillow, their header must read as that type;
- more than :data:`MAX_PIXELS` pixels — a decompression bomb is a few kilobytes that
  decode to gigabytes; the pixel count is read from the header, never by decoding.

Without Pillow the signature is still checked, and a PNG's size is read from its header;
the other types' sizes need Pillow.
"""

from __future__ import annotations

import base64
import binascii
import io
import struct
import zlib
from typing import Any

__all__ = [
    "MAX_PIXELS",
    "PROVIDER_TYPES",
    "Refused",
    "check_pixels",
    "checked_bytes",
    "mime_of",
    "open_header",
    "said",
    "without_broken_ancillary_chunks",
]

MAX_PIXELS = 50_000_000
"""The most pixels an image may have (50 megapixels: 7,071 × 7,071). Beyond it the image is
dropped before it is decoded; below it, fitting scales it to what providers take."""

PROVIDER_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}
"""The image types every provider takes, each with its Pillow format name."""

_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg"}
_TYPE_NAMES = ", ".join(mime.removeprefix("image/") for mime in PROVIDER_TYPES)
_SIGNATURES = {"PNG": (b"\x89PNG\r\n\x1a\n",), "JPEG": (b"\xff\xd8\xff",), "GIF": (b"GIF87a", b"GIF89a")}


class Refused(ValueError):
    """An image a provider would refuse; ``str()`` is the reason, for the note that
    replaces it (``"image dropped: <reason>"``)."""


def mime_of(mime_type: str) -> str:
    """``mime_type`` as providers spell it (lower case, ``image/jpg`` as ``image/jpeg``);
    raises :class:`Refused` for a type none of them takes."""
    mime = mime_type.strip().lower()
    mime = _ALIASES.get(mime, mime)
    if mime not in PROVIDER_TYPES:
        shown = mime_type if len(mime_type) <= 60 else mime_type[:59] + "…"
        raise Refused(f"{shown} is not a type providers take ({_TYPE_NAMES})")
    return mime


def checked_bytes(data: str, mime: str) -> bytes:
    """The bytes of base64 ``data``, labelled ``mime`` (one of :data:`PROVIDER_TYPES`),
    once they begin with that type's signature and — for a PNG, whose header says it
    without Pillow — hold at most :data:`MAX_PIXELS` pixels. Raises :class:`Refused`."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Refused("its data is not base64") from None
    kind = PROVIDER_TYPES[mime]
    if not _signed(raw, kind):
        raise Refused(f"the bytes are not a {kind}")
    if kind == "PNG" and len(raw) >= 24:
        check_pixels(*struct.unpack(">II", raw[16:24]))
    return raw


def without_broken_ancillary_chunks(raw: bytes) -> bytes:
    """A PNG's bytes less every ancillary chunk (its type's first letter lower case: a
    colour profile, text, a time) whose CRC does not match — libpng only warns about those,
    Pillow refuses the whole image (the MCP logo server-everything sends has a bad ``iCCP``
    CRC). ``raw`` itself when no chunk was dropped or the chunks do not parse."""
    position, kept, dropped = 8, [raw[:8]], False
    while position + 12 <= len(raw):
        (length,) = struct.unpack(">I", raw[position : position + 4])
        end = position + 12 + length
        if end > len(raw):
            return raw
        kind = raw[position + 4 : position + 8]
        (crc,) = struct.unpack(">I", raw[end - 4 : end])
        if kind[:1].islower() and zlib.crc32(raw[position + 4 : end - 4]) != crc:
            dropped = True
        else:
            kept.append(raw[position:end])
        position = end
        if kind == b"IEND":
            kept.append(raw[position:])
            break
    return b"".join(kept) if dropped else raw


def open_header(raw: bytes, mime: str) -> Any:
    """A Pillow image of ``raw`` read as ``mime``'s type, its header only (nothing decoded
    yet), once its size is within :data:`MAX_PIXELS`. Raises :class:`Refused`."""
    from PIL import Image

    kind = PROVIDER_TYPES[mime]
    Image.init()
    factory, _accept = Image.OPEN[kind]
    try:  # the format's own reader: Image.open would refuse a bomb without saying its size
        picture = factory(io.BytesIO(raw), "")
    except Exception as error:
        raise Refused(f"the bytes are not a {kind} that can be read ({said(error)})") from None
    check_pixels(*picture.size)
    return picture


def check_pixels(width: int, height: int) -> None:
    """Raise :class:`Refused` for a ``width`` × ``height`` image over :data:`MAX_PIXELS`."""
    if width * height > MAX_PIXELS:
        raise Refused(f"{width}×{height} pixels is over the {MAX_PIXELS // 1_000_000}-megapixel limit")


def said(error: BaseException) -> str:
    """``error`` as one short line: its type, and its message cut to 120 characters."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:119] + '…' if len(text) > 120 else text}"


def _signed(raw: bytes, kind: str) -> bool:
    if kind == "WEBP":
        return raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"
    return raw.startswith(_SIGNATURES[kind])
