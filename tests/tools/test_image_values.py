"""Which values a tool returns become pictures, and how a picture is fitted to what
providers take (tools/_images.py; issue 45's mutation survivors): a figure is its PNG
cropped to what is drawn; IPython's images in every form their display methods return;
an object that merely has a ``save`` or ``savefig`` method, or an IPython object with no
picture, stays text; a PNG whose colour profile is broken is repaired, not dropped; the
byte limit holds at exactly its size, with Pillow and without; scaling keeps the colours,
uses Lanczos and never makes an edge zero pixels; too many bytes shrink the picture step
by step until it fits, and a picture that never fits is left out with a note."""

from __future__ import annotations

import base64
import io
import random
import struct
import sys
import zlib
from typing import Any

from PIL import Image

from openprogram_jupyter.core.messages import ImageContent, TextContent
from openprogram_jupyter.tools import _images, result_content
from openprogram_jupyter.tools._display import result_display
from openprogram_jupyter.tools._images import MAX_BYTES, MAX_EDGE, fit_image

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes, crc: int | None = None) -> bytes:
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _encoded(picture: Image.Image, kind: str = "PNG", **options: Any) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format=kind, **options)
    return buffer.getvalue()


def _noise(width: int, height: int, mode: str = "RGB") -> Image.Image:
    return Image.frombytes(mode, (width, height), random.Random(7).randbytes(width * height * len(mode)))


def _block(data: bytes, mime: str = "image/png") -> ImageContent:
    return ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)


def _picture(block: ImageContent | TextContent) -> Image.Image:
    assert isinstance(block, ImageContent), block
    return Image.open(io.BytesIO(base64.b64decode(block.data)))


def _only(value: object) -> ImageContent | TextContent:
    (block,) = result_content(value)[0]
    return block


def _padded(png: bytes, size: int) -> bytes:
    """``png`` grown to exactly ``size`` bytes by a private ancillary chunk before IEND,
    which readers skip."""
    iend = png.rindex(b"IEND") - 4
    padding = size - len(png) - 12
    return png[:iend] + _chunk(b"prVt", bytes(padding)) + png[iend:]


# -- which values are pictures ----------------------------------------------------------


def test_an_object_with_a_save_or_savefig_method_is_not_taken_for_a_picture():
    class Report:
        def save(self, *args, **kwargs):
            raise AssertionError("a tool's own object is never saved as a picture")

        def savefig(self, *args, **kwargs):
            raise AssertionError("a tool's own object is never saved as a picture")

        def __repr__(self):
            return "<Report>"

    assert _only(Report()) == TextContent(text="<Report>")


def test_a_matplotlib_figure_is_its_png_cropped_to_what_is_drawn():
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4, 2), dpi=100)  # 400 × 200 pixels, almost all of it blank
    figure.text(0.5, 0.5, "x")
    picture = _picture(_only(figure))
    assert picture.format == "PNG" and _only(figure).mime_type == "image/png"
    assert picture.width < 100 and picture.height < 100  # tight: the letter, not the blank page


def test_a_figure_is_a_png_whatever_format_the_user_saves_figures_in():
    import matplotlib
    from matplotlib.figure import Figure

    figure = Figure(figsize=(1, 1), dpi=50)
    with matplotlib.rc_context({"savefig.format": "svg"}):
        block = _only(figure)
    assert isinstance(block, ImageContent) and _picture(block).format == "PNG"


def test_ipython_images_in_each_form_their_display_methods_return():
    from IPython.display import Image as IPythonImage

    png = _encoded(Image.new("RGB", (4, 3), "blue"))
    jpeg = _encoded(Image.new("RGB", (4, 3), "blue"), "JPEG")
    sized = _only(IPythonImage(data=png, format="png", width=40))  # returns (base64, metadata)
    assert isinstance(sized, ImageContent) and base64.b64decode(sized.data) == png
    photo = _only(IPythonImage(data=jpeg, format="jpeg"))  # no PNG form: its JPEG
    assert isinstance(photo, ImageContent) and photo.mime_type == "image/jpeg"
    assert base64.b64decode(photo.data) == jpeg
    shown = result_display("ignored", render=lambda _: IPythonImage(data=jpeg, format="jpeg"))
    assert shown == {"mime": "image/jpeg", "data": base64.b64encode(jpeg).decode("ascii")}
    shown = result_display("ignored", render=lambda _: IPythonImage(data=png, format="png"))
    assert shown == {"mime": "image/png", "data": base64.b64encode(png).decode("ascii")}


def _ipython_object(represented: object) -> object:
    """An object of IPython's whose ``_repr_png_`` returns ``represented``."""
    kind = type("Drawing", (), {"_repr_png_": lambda self: represented, "__repr__": lambda self: "<Drawing>"})
    kind.__module__ = "IPython.display"
    return kind()


def test_an_ipython_object_whose_png_is_raw_bytes_is_that_picture():
    png = _encoded(Image.new("RGB", (4, 3), "blue"))
    for represented in (png, bytearray(png), (png, {"width": 4})):
        block = _only(_ipython_object(represented))
        assert isinstance(block, ImageContent) and base64.b64decode(block.data) == png


def test_an_ipython_object_without_a_picture_stays_text():
    from IPython.display import HTML

    assert _only(HTML("<b>bold</b>")) == TextContent(text=repr(HTML("<b>bold</b>")))
    assert _only(_ipython_object("not base64!")) == TextContent(text="<Drawing>")
    assert _only(_ipython_object(None)) == TextContent(text="<Drawing>")


def test_a_pil_picture_render_returns_is_shown_as_a_png():
    picture = Image.new("RGB", (3, 2), "red")
    shown = result_display("ignored", render=lambda _: picture)
    assert shown == {"mime": "image/png", "data": base64.b64encode(_encoded(picture)).decode("ascii")}


def test_a_pil_picture_is_sent_in_its_own_colour_mode():
    for mode, colour in (("RGB", (255, 0, 0)), ("L", 90), ("RGBA", (0, 0, 255, 128))):
        picture = _picture(_only(Image.new(mode, (3, 2), colour)))
        assert (picture.mode, picture.getpixel((0, 0))) == (mode, colour)


# -- fitting ------------------------------------------------------------------------------


def test_a_png_whose_colour_profile_is_broken_is_sent_without_it():
    png = _encoded(Image.new("RGB", (4, 3), "green"))
    broken = png[:33] + _chunk(b"iCCP", b"profile\x00\x00" + zlib.compress(b"junk"), crc=0) + png[33:]
    fitted = fit_image(_block(broken))
    assert fitted == _block(png)  # the bytes less the broken chunk
    assert _picture(fitted).getpixel((0, 0)) == (0, 128, 0)


def test_a_png_cut_short_is_dropped_naming_the_decoders_error():
    png = _encoded(_noise(64, 64))
    assert fit_image(_block(png[:-500])) == TextContent(
        text="image dropped: the PNG could not be decoded (OSError: image file is truncated)"
    )


def test_without_pillow_an_image_of_exactly_the_byte_limit_is_sent_and_one_byte_more_is_not(monkeypatch):
    header = SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    exact = _block(header + bytes(MAX_BYTES - len(header)))
    assert fit_image(exact) is exact
    assert fit_image(_block(header + bytes(MAX_BYTES + 1 - len(header)))) == TextContent(
        text="(an image of 3.8 MB was left out: providers take at most 3.75 MB, and scaling it down "
        "needs Pillow: pip install pillow)"
    )


def test_a_picture_of_exactly_the_byte_limit_is_sent_as_it_is_and_one_byte_more_is_re_encoded():
    png = _encoded(Image.new("RGB", (40, 30), "green"))
    exact = _block(_padded(png, MAX_BYTES))
    assert fit_image(exact) is exact
    over = fit_image(_block(_padded(png, MAX_BYTES + 1)))
    assert over == _block(png)  # the same pixels as a PNG, without the padding


def test_a_line_one_pixel_wide_keeps_one_pixel_when_scaled():
    tall = _picture(fit_image(_block(_encoded(Image.new("RGB", (1, 4000), "red")))))
    wide = _picture(fit_image(_block(_encoded(Image.new("RGB", (4000, 1), "red")))))
    assert (tall.size, wide.size) == ((1, MAX_EDGE), (MAX_EDGE, 1))


def test_a_picture_is_scaled_down_with_lanczos_so_fine_lines_turn_grey():
    stripes = Image.new("L", (2 * MAX_EDGE, 4))
    stripes.putdata([255 * (x % 2) for _ in range(4) for x in range(2 * MAX_EDGE)])
    fitted = _picture(fit_image(_block(_encoded(stripes))))
    assert fitted.size == (MAX_EDGE, 2)
    assert fitted.tobytes() == stripes.resize((MAX_EDGE, 2), Image.Resampling.LANCZOS).tobytes()


def test_a_transparent_picture_too_large_for_png_is_sent_as_jpeg():
    noise = _noise(1200, 1100, "RGBA")
    fitted = fit_image(_block(_encoded(noise)))
    assert isinstance(fitted, ImageContent) and fitted.mime_type == "image/jpeg"
    assert (_picture(fitted).mode, _picture(fitted).size) == ("RGB", (1200, 1100))


def test_a_picture_that_does_not_fit_shrinks_by_steps_of_0_7(monkeypatch):
    picture = _noise(200, 100)
    second, third = (
        _encoded(picture.resize(size, Image.Resampling.LANCZOS), "JPEG", quality=85) for size in ((140, 70), (98, 49))
    )
    assert len(third) < len(second)
    monkeypatch.setattr(_images, "MAX_BYTES", len(third))  # a limit the third step meets
    assert _picture(fit_image(_block(_encoded(picture)))).size == (98, 49)


def test_a_re_encoding_of_exactly_the_byte_limit_is_sent(monkeypatch):
    picture = _noise(60, 40)
    png, jpeg = _encoded(picture), _encoded(picture, "JPEG", quality=85)
    monkeypatch.setattr(_images, "MAX_BYTES", len(png))
    assert fit_image(_block(_padded(png, len(png) + 100))) == _block(png)
    monkeypatch.setattr(_images, "MAX_BYTES", len(jpeg))  # under the PNG's size: JPEG
    fitted = fit_image(_block(png))
    assert fitted == _block(jpeg, "image/jpeg")


def test_a_picture_that_cannot_be_brought_under_the_limit_is_left_out_with_a_note(monkeypatch):
    monkeypatch.setattr(_images, "MAX_BYTES", 10)
    assert fit_image(_block(_encoded(_noise(40, 30)))) == TextContent(
        text="(an image of 40×30 pixels was left out: it could not be brought under 0.00 MB)"
    )
