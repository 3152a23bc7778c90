"""docs/faults.md, "Images the provider refuses": an image a provider would refuse is never
sent; it becomes one line saying why, wherever it comes from."""

from __future__ import annotations

import base64
import io
import struct
import sys
import zlib
from types import SimpleNamespace

import pytest
from PIL import Image

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import ImageContent, TextContent
from openprogram_jupyter.tools import result_content
from openprogram_jupyter.tools.mcp_source import result_value

EVIL_NOTE = "image dropped: image/x-evil is not a type providers take (png, jpeg, gif, webp)"
NOT_PNG_NOTE = "image dropped: the bytes are not a PNG"
BOMB_NOTE = "image dropped: 20000×20000 pixels is over the 50-megapixel limit"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _bomb_png(side: int = 20_000) -> bytes:
    """A real decompression bomb: a valid black 1-bit PNG of ``side`` × ``side`` pixels
    (400 megapixels) in about 50 kB, compressed row by row so the test never holds it."""
    squeeze = zlib.compressobj(9)
    row = bytes(1 + side // 8)  # the filter byte, then 8 pixels a byte
    data = b"".join(squeeze.compress(row) for _ in range(side)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "green").save(buffer, format="PNG")
    return buffer.getvalue()


def _only(value: object) -> object:
    content, _ = result_content(value)
    assert len(content) == 1
    return content[0]


def test_a_decompression_bomb_is_dropped_unread_with_its_size():
    bomb = _bomb_png()
    assert len(bomb) < 200_000
    assert _only((bomb, "image/png")) == TextContent(text=BOMB_NOTE)


def test_a_decompression_bomb_is_dropped_without_pillow_too(monkeypatch):
    bomb = _bomb_png()
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    assert _only((bomb, "image/png")) == TextContent(text=BOMB_NOTE)


def test_bytes_that_are_not_what_their_label_says_are_dropped():
    assert _only((b"this is no picture at all", "image/png")) == TextContent(text=NOT_PNG_NOTE)
    jpeg = io.BytesIO()
    Image.new("RGB", (2, 2)).save(jpeg, format="JPEG")
    assert _only((jpeg.getvalue(), "image/png")) == TextContent(text=NOT_PNG_NOTE)


def test_a_png_whose_body_is_broken_is_dropped_saying_so():
    buffer = io.BytesIO()
    Image.effect_noise((64, 64), 50).save(buffer, format="PNG")
    note = _only((buffer.getvalue()[:-500], "image/png"))  # the header whole, the pixels cut short
    assert isinstance(note, TextContent) and note.text.startswith("image dropped: the PNG could not be decoded (")
    assert "\n" not in note.text


def test_a_type_no_provider_takes_is_dropped():
    assert _only((_png(), "image/x-evil")) == TextContent(text=EVIL_NOTE)
    block = ImageContent(data=base64.b64encode(_png()).decode(), mime_type="image/x-evil")
    assert _only(block) == TextContent(text=EVIL_NOTE)


def test_data_that_is_not_base64_is_dropped():
    assert _only(ImageContent(data="not base64!", mime_type="image/png")) == TextContent(
        text="image dropped: its data is not base64"
    )


def test_a_good_image_still_goes_and_image_jpg_is_named_as_providers_spell_it():
    png = _only((_png(), "image/png"))
    assert isinstance(png, ImageContent) and png.mime_type == "image/png"
    jpeg = io.BytesIO()
    Image.new("RGB", (2, 2)).save(jpeg, format="JPEG")
    block = _only((jpeg.getvalue(), "image/jpg"))
    assert isinstance(block, ImageContent) and block.mime_type == "image/jpeg"


def test_an_mcp_tools_refused_images_become_notes():
    images = [
        SimpleNamespace(type="image", data=base64.b64encode(data).decode(), mime_type=mime)
        for data, mime in ((_png(), "image/x-evil"), (b"junk", "image/png"), (_bomb_png(), "image/png"))
    ]
    value = result_value(SimpleNamespace(content=images, is_error=False, structured_content=None))
    assert result_content(value)[0] == [
        TextContent(text=EVIL_NOTE),
        TextContent(text=NOT_PNG_NOTE),
        TextContent(text=BOMB_NOTE),
    ]


def test_the_model_reads_a_note_for_each_refused_image_and_gets_the_good_one():
    @op.function
    def pictures() -> list[object]:
        """Four pictures, three of them refused."""
        return [(_bomb_png(), "image/png"), (b"junk", "image/png"), (_png(), "image/x-evil"), (_png(), "image/png")]

    model = op.ScriptedModel([op.ToolCall(name="pictures", arguments={}), "done"])
    op.Runtime(model=model).run("go", tools=[pictures])
    sent = model.requests[1].messages[-1]
    assert isinstance(sent, op.ToolResultMessage) and not sent.is_error
    assert [b.text for b in sent.content if isinstance(b, TextContent)] == [BOMB_NOTE, NOT_PNG_NOTE, EVIL_NOTE]
    assert [b.mime_type for b in sent.content if isinstance(b, ImageContent)] == ["image/png"]


@pytest.mark.parametrize(
    ("data", "mime", "why"),
    [
        (b"junk", "image/png", NOT_PNG_NOTE),
        (None, "image/x-evil", EVIL_NOTE),
    ],
)
def test_a_prompt_image_a_provider_would_refuse_is_refused_before_the_run(data, mime, why):
    block = ImageContent(data=base64.b64encode(data or _png()).decode(), mime_type=mime)
    model = op.ScriptedModel(["never"])
    for content in ([TextContent(text="look"), block], op.UserMessage(content=[TextContent(text="look"), block])):
        with pytest.raises(op.SetupError) as raised:
            op.Runtime(model=model).run(content)
        assert str(raised.value) == f"content: {why}"
    assert model.requests == []


def test_a_large_prompt_image_is_fitted_like_a_result():
    big = io.BytesIO()
    Image.new("RGB", (3000, 200), "blue").save(big, format="PNG")
    model = op.ScriptedModel(["seen"])
    op.Runtime(model=model).run([ImageContent(data=base64.b64encode(big.getvalue()).decode(), mime_type="image/png")])
    (sent,) = model.requests[0].messages[0].content
    assert isinstance(sent, ImageContent)
    assert Image.open(io.BytesIO(base64.b64decode(sent.data))).size == (1568, 105)
