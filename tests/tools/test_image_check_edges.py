"""Why a provider would refuse an image, at the edges (tools/_image_checks.py; issue 45's
mutation survivors): the type as any case or alias spells it, a long type cut in the
note; each type's signature (both GIF versions, WebP's RIFF container); the pixel limit
at exactly its size, read from a PNG's header without Pillow and from a JPEG's with it;
the error a note quotes, on one line and cut; a PNG's broken ancillary chunks removed,
its good ones and the bytes after its end kept."""

from __future__ import annotations

import base64
import io
import struct
import sys
import zlib

from PIL import Image

from openprogram_jupyter.core.messages import ImageContent, TextContent
from openprogram_jupyter.tools._image_checks import MAX_PIXELS, said
from openprogram_jupyter.tools._images import fit_image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
TYPES = "(png, jpeg, gif, webp)"


def _chunk(kind: bytes, data: bytes, crc: int | None = None) -> bytes:
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _encoded(picture: Image.Image, kind: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format=kind)
    return buffer.getvalue()


def _block(data: bytes, mime: str = "image/png") -> ImageContent:
    return ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)


def _png_header(width: int, height: int) -> bytes:
    """A PNG's first 24 bytes: its signature, and its IHDR chunk up to the height."""
    return SIGNATURE + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", width, height)


def test_a_type_in_any_case_or_with_spaces_or_an_old_alias_is_the_providers_type():
    png, jpeg = _encoded(Image.new("RGB", (2, 2))), _encoded(Image.new("RGB", (2, 2)), "JPEG")
    for data, given, sent in ((png, " Image/PNG ", "image/png"), (jpeg, "image/pjpeg", "image/jpeg")):
        fitted = fit_image(_block(data, given))
        assert fitted == _block(data, sent)


def test_a_long_type_is_cut_in_the_note_and_one_of_sixty_characters_is_not():
    sixty = "image/" + "x" * 54
    note = fit_image(_block(b"data", sixty))
    assert note == TextContent(text=f"image dropped: {sixty} is not a type providers take {TYPES}")
    note = fit_image(_block(b"data", sixty + "y"))
    assert note == TextContent(text=f"image dropped: {sixty[:59]}… is not a type providers take {TYPES}")


def test_gif_of_either_version_and_webp_are_taken_and_other_riff_files_are_not():
    gif = _encoded(Image.new("P", (3, 2)), "GIF")
    for version in (b"GIF87a", b"GIF89a"):
        image = _block(version + gif[6:], "image/gif")
        assert fit_image(image) is image
    webp = _block(_encoded(Image.new("RGB", (3, 2)), "WEBP"), "image/webp")
    assert fit_image(webp) is webp
    wave = b"RIFF" + struct.pack("<I", 4) + b"WAVE"
    assert fit_image(_block(wave, "image/webp")) == TextContent(text="image dropped: the bytes are not a WEBP")


def test_without_pillow_a_png_header_of_exactly_the_pixel_limit_passes_and_one_pixel_more_does_not(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    exact = _block(_png_header(10_000, MAX_PIXELS // 10_000))
    assert fit_image(exact) is exact
    assert fit_image(_block(_png_header(MAX_PIXELS + 1, 1))) == TextContent(
        text="image dropped: 50000001×1 pixels is over the 50-megapixel limit"
    )


def test_a_jpeg_whose_header_claims_too_many_pixels_is_dropped_unread():
    jpeg = bytearray(_encoded(Image.new("RGB", (3, 2)), "JPEG"))
    frame = jpeg.index(b"\xff\xc0")  # start of frame: length, precision, height, width
    jpeg[frame + 5 : frame + 9] = struct.pack(">HH", 10_000, 10_000)
    assert fit_image(_block(bytes(jpeg), "image/jpeg")) == TextContent(
        text="image dropped: 10000×10000 pixels is over the 50-megapixel limit"
    )


def test_a_note_quotes_the_error_on_one_line_cut_to_120_characters():
    assert said(ValueError("bad\n   header\tbytes")) == "ValueError: bad header bytes"
    assert said(OSError("x" * 120)) == "OSError: " + "x" * 120
    assert said(OSError("x" * 121)) == "OSError: " + "x" * 119 + "…"


def test_a_png_too_short_to_be_read_is_dropped_naming_the_readers_error():
    note = fit_image(_block(_png_header(2, 2)))
    assert isinstance(note, TextContent)
    assert note == TextContent(
        text="image dropped: the bytes are not a PNG that can be read (OSError: Truncated File Read)"
    )


def test_broken_ancillary_chunks_are_removed_and_good_ones_and_the_bytes_after_the_end_kept():
    png = _encoded(Image.new("RGB", (4, 3), "green"))
    ihdr_end, iend = 33, png.rindex(b"IEND") - 4
    good = _chunk(b"tEXt", b"Title\x00good")  # its CRC has the high bit set: read unsigned
    assert zlib.crc32(b"tEXtTitle\x00good") >= 2**31
    broken = _chunk(b"tEXt", b"Author\x00dropped", crc=1) + _chunk(b"tIME", bytes(7), crc=2)
    with_good = _block(png[:ihdr_end] + good + png[ihdr_end:])
    assert fit_image(with_good) is with_good
    tail = b"trailing bytes"
    repaired = fit_image(_block(png[:ihdr_end] + good + broken + png[ihdr_end:iend] + broken + png[iend:] + tail))
    assert repaired == _block(png[:ihdr_end] + good + png[ihdr_end:] + tail)


def test_base64_with_stray_characters_is_refused():
    data = base64.b64encode(_encoded(Image.new("RGB", (2, 2)))).decode("ascii")
    for stray in (data[:8] + " " + data[8:], data[:8] + "\n" + data[8:], data + "!"):
        note = fit_image(ImageContent(data=stray, mime_type="image/png"))
        assert note == TextContent(text="image dropped: its data is not base64")


def test_without_pillow_a_png_header_past_two_billion_pixels_wide_is_refused(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    assert fit_image(_block(_png_header(2**31, 1))) == TextContent(
        text="image dropped: 2147483648×1 pixels is over the 50-megapixel limit"
    )


def test_a_png_whose_chunk_runs_past_its_end_is_not_repaired():
    png = _encoded(Image.new("RGB", (4, 3), "green"))
    broken = _chunk(b"tEXt", b"Author\x00dropped", crc=1)
    runaway = struct.pack(">I", 0xFFFFFFF0) + b"prVt" + bytes(8)  # its length is past the end of the file
    note = fit_image(_block(png[:33] + broken + png[33:-12] + runaway))
    assert isinstance(note, TextContent) and note.text.startswith("image dropped: the bytes are not a PNG")
