"""A tool result's blocks as one text, for whoever reads a result as text: the provider
fields that take no list of blocks, and the views.

The blocks keep their order and stay apart: each text block on its own line, and where an
image sits among text its marker ``[image N]`` (N counting the result's images from 1), so
the text still says where each image, attached after it, belongs.
"""

from __future__ import annotations

from collections.abc import Sequence

from .messages import ImageContent, TextContent

__all__ = ["image_marker", "result_blocks_text"]


def image_marker(number: int) -> str:
    """The text that stands for the ``number``-th image (from 1) of a result."""
    return f"[image {number}]"


def result_blocks_text(blocks: Sequence[object]) -> str:
    """The text blocks of ``blocks`` in order, one per line (``"\\n"`` between them); an
    image between them as its :func:`image_marker`. Images with no text around them leave
    no marker: a result of images only is ``""``, as one of text only is its text."""
    has_text = any(isinstance(block, TextContent) and block.text for block in blocks)
    lines: list[str] = []
    images = 0
    for block in blocks:
        if isinstance(block, TextContent):
            if block.text:
                lines.append(block.text)
        elif isinstance(block, ImageContent):
            images += 1
            if has_text:
                lines.append(image_marker(images))
    return "\n".join(lines)
