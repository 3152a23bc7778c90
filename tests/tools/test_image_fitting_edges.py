"""Fitting a picture for providers at its edges: one of exactly the largest edge is kept as
it is, one a pixel longer is scaled to exactly that edge, and one too many bytes but small
in pixels is re-encoded at its own size — never scaled up (issue 45 item 3; tools/_images.py)."""

from __future__ import annotations

import base64
import io
import random

from PIL import Image

from openprogram_jupyter.core.messages import ImageContent
from openprogram_jupyter.tools._images import MAX_BYTES, MAX_EDGE, fit_image


def _png(width: int, height: int, *, noise: bool = False) -> ImageContent:
    picture = Image.new("RGB", (width, height), (200, 30, 30))
    if noise:
        rng = random.Random(7)
        picture = Image.frombytes("RGB", (width, height), bytes(rng.getrandbits(8) for _ in range(width * height * 3)))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return ImageContent(data=base64.b64encode(buffer.getvalue()).decode("ascii"), mime_type="image/png")


def _size(block: ImageContent) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(block.data))).size


def test_a_picture_of_exactly_the_largest_edge_is_kept_as_it_is():
    image = _png(MAX_EDGE, 40)
    assert fit_image(image) is image


def test_a_picture_one_pixel_longer_is_scaled_to_exactly_the_largest_edge_and_stays_png():
    fitted = fit_image(_png(MAX_EDGE + 1, 40))
    assert isinstance(fitted, ImageContent) and fitted.mime_type == "image/png"
    assert _size(fitted)[0] == MAX_EDGE


def test_a_small_picture_of_too_many_bytes_is_re_encoded_at_its_own_size_not_scaled_up():
    image = _png(1200, 1100, noise=True)  # noise does not compress: over the byte limit
    assert len(base64.b64decode(image.data)) > MAX_BYTES
    fitted = fit_image(image)
    assert isinstance(fitted, ImageContent) and fitted.mime_type == "image/jpeg"
    assert _size(fitted) == (1200, 1100)
    assert len(base64.b64decode(fitted.data)) <= MAX_BYTES
