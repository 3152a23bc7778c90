"""Pictures for the model: Python values as image blocks, fitted to what providers accept.

A tool may return a matplotlib ``Figure``, a PIL image, an ``IPython.display.Image``,
``(bytes, "image/...")``, an ``op.ImageContent``, or a list mixing text and any of those.
(Other objects with a PNG ``_repr_png_`` — a SymPy expression — stay text: the model
reads their text better than a picture of it.) :func:`as_image` turns one
value into an :class:`~openprogram_jupyter.core.messages.ImageContent`; :func:`fit_image`
makes it fit every provider before it is sent:

- the long edge at most :data:`MAX_EDGE` pixels (Anthropic's documented size beyond which
  it scales an image down itself; OpenAI and Gemini scale larger images down too, so more
  pixels only cost upload time);
- at most :data:`MAX_BYTES` bytes (Bedrock's Converse limit for one image, the smallest of
  the five: Anthropic's API takes 5 MB, OpenAI 20 MB, Gemini 20 MB per request).

Before any of that, an image a provider would refuse — a type none takes, bytes that are
not what they are labelled, a decompression bomb — becomes a one-line text block saying
why (``image dropped: ...``, :mod:`._image_checks`).

Fitting needs Pillow to decode and re-encode. Without it an image within the byte limit
is sent as it is (providers scale pixels down themselves), and one over it is replaced by
a text block saying why — never a request the provider refuses.

Making and fitting pictures is CPU work: a run does it off its event loop, and a
``checkpoint`` (called before each picture is made or fitted; it raises to stop) lets
a stopped run give up between pictures (docs/faults.md, "Nothing blocks Stop").
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

from ..core.messages import ImageContent, TextContent
from ._image_checks import Refused, checked_bytes, mime_of, open_header, said, without_broken_ancillary_chunks

__all__ = ["MAX_BYTES", "MAX_EDGE", "Checkpoint", "as_image", "fit_image", "mixed_blocks"]

MAX_EDGE = 1568
MAX_BYTES = 3_750_000
_IMAGE_MIME_PREFIX = "image/"

Checkpoint = Callable[[], None]
"""Called before each picture is made or fitted; raises to stop the work there."""


def _no_checkpoint() -> None:
    return None


def as_image(value: object) -> ImageContent | None:
    """``value`` as an image block, or ``None`` if it is no picture (see the module doc)."""
    if isinstance(value, ImageContent):
        return value
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], (bytes, bytearray))
        and isinstance(value[1], str)
        and value[1].startswith(_IMAGE_MIME_PREFIX)
    ):
        return _block(bytes(value[0]), value[1])
    module = type(value).__module__
    if module.startswith("PIL.") and hasattr(value, "save"):
        return _block(_png_of_pil(value), "image/png")
    if module.startswith("matplotlib.") and hasattr(value, "savefig"):
        buffer = io.BytesIO()
        value.savefig(buffer, format="png", bbox_inches="tight")
        return _block(buffer.getvalue(), "image/png")
    if module.startswith("IPython."):  # IPython.display.Image
        for method, mime in (("_repr_png_", "image/png"), ("_repr_jpeg_", "image/jpeg")):
            data = _repr_bytes(value, method)
            if data is not None:
                return _block(data, mime)
    return None


def mixed_blocks(value: object, checkpoint: Checkpoint = _no_checkpoint) -> list[TextContent | ImageContent] | None:
    """A list of text and pictures, with at least one picture, as blocks in order (strings
    and ``TextContent`` as text); ``None`` for any other value — a list of plain values
    is data, and goes to the model as JSON. ``checkpoint()`` is called before each item
    that is neither (making a picture's bytes is the slow part)."""
    if not isinstance(value, list) or not value:
        return None
    blocks: list[TextContent | ImageContent] = []
    for item in value:
        if isinstance(item, str):
            blocks.append(TextContent(text=item))
        elif isinstance(item, TextContent):
            blocks.append(item)
        else:
            checkpoint()
            image = as_image(item)
            if image is None:
                return None
            blocks.append(image)
    return blocks if any(isinstance(block, ImageContent) for block in blocks) else None


def fit_image(image: ImageContent) -> ImageContent | TextContent:
    """``image`` as providers take it: a text block ``image dropped: <why>`` if they would
    refuse it (:mod:`._image_checks`); else within :data:`MAX_EDGE` pixels and
    :data:`MAX_BYTES` bytes — as it is if it fits, scaled down (PNG stays PNG while it
    fits the bytes, else JPEG) if not, or a text block saying why it was left out when it
    cannot be made to fit."""
    try:
        mime = mime_of(image.mime_type)
        data = checked_bytes(image.data, mime)
    except Refused as refused:
        return _dropped(refused)
    if mime == "image/png" and (repaired := without_broken_ancillary_chunks(data)) is not data:
        data, image = repaired, ImageContent(data=base64.b64encode(repaired).decode("ascii"), mime_type=mime)
    if mime != image.mime_type:
        image = ImageContent(data=image.data, mime_type=mime)
    try:
        from PIL import Image  # noqa: F401  (only: is Pillow there?)
    except ImportError:
        if len(data) <= MAX_BYTES:
            return image
        return TextContent(
            text=f"(an image of {len(data) / 1e6:.1f} MB was left out: providers take at most "
            f"{MAX_BYTES / 1e6:.2f} MB, and scaling it down needs Pillow: pip install pillow)"
        )
    try:
        picture = open_header(data, mime)
        _decode(picture, mime)
    except Refused as refused:
        return _dropped(refused)
    if max(picture.size) <= MAX_EDGE and len(data) <= MAX_BYTES:
        return image
    return _scaled_down(picture, mime)


def _decode(picture: Any, mime: str) -> None:
    """Decode ``picture`` (its header already read); raises :class:`Refused` when its
    bytes cannot be decoded (truncated, corrupt)."""
    try:
        picture.load()
    except Exception as error:
        raise Refused(f"the {mime.removeprefix('image/').upper()} could not be decoded ({said(error)})") from None


def _dropped(refused: Refused) -> TextContent:
    return TextContent(text=f"image dropped: {refused}")


def _scaled_down(picture: Any, mime_type: str) -> ImageContent | TextContent:
    from PIL import Image

    scale = min(1.0, MAX_EDGE / max(picture.size))
    for _ in range(8):
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        smaller = picture.resize(size, Image.Resampling.LANCZOS) if size != picture.size else picture
        if mime_type == "image/png":
            data = _png_of_pil(smaller)
            if len(data) <= MAX_BYTES:
                return _block(data, "image/png")
        buffer = io.BytesIO()
        smaller.convert("RGB").save(buffer, format="JPEG", quality=85)
        if buffer.tell() <= MAX_BYTES:
            return _block(buffer.getvalue(), "image/jpeg")
        scale *= 0.7
    return TextContent(
        text=f"(an image of {picture.width}×{picture.height} pixels was left out: it could not "
        f"be brought under {MAX_BYTES / 1e6:.2f} MB)"
    )


def _block(data: bytes, mime_type: str) -> ImageContent:
    return ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime_type)


def _png_of_pil(picture: Any) -> bytes:
    buffer = io.BytesIO()
    try:
        picture.save(buffer, format="PNG")
    except (OSError, ValueError):  # a mode PNG cannot hold (CMYK, ...): convert first
        buffer = io.BytesIO()
        picture.convert("RGBA").save(buffer, format="PNG")
    return buffer.getvalue()


def _repr_bytes(value: object, method: str) -> bytes | None:
    """What ``value._repr_png_()`` (or ``_repr_jpeg_``) returns, as bytes: IPython's
    ``Image`` returns bytes, or ``(bytes, metadata)``; some return base64 text."""
    represent = getattr(value, method, None)
    if not callable(represent) or isinstance(value, type):
        return None
    try:
        data = represent()
    except Exception:  # a rich repr that fails is no picture
        return None
    if isinstance(data, tuple) and data:
        data = data[0]
    if isinstance(data, str):
        try:
            return base64.b64decode(data, validate=True)
        except ValueError:
            return None
    return bytes(data) if isinstance(data, (bytes, bytearray)) else None
