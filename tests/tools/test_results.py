"""result_content: what the model sees for whatever a tool returned."""

import base64
import dataclasses
import io
import json
import threading

from PIL import Image
from pydantic import BaseModel, ConfigDict

from openprogram_jupyter.core.messages import ImageContent, TextContent
from openprogram_jupyter.tools import result_content


def text_of(value, max_chars=50_000) -> str:
    content, _ = result_content(value, max_chars)
    assert all(isinstance(block, TextContent) for block in content)
    return "".join(block.text for block in content)


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Reading(BaseModel):
    sensor: str
    value: float


class Opaque:
    def __repr__(self) -> str:
        return "<Opaque>"


def test_string_is_returned_as_is():
    assert result_content("hello\nworld") == ([TextContent(text="hello\nworld")], {})


def test_none_is_an_empty_result():
    assert result_content(None) == ([], {})


def test_dict_is_json():
    assert json.loads(text_of({"a": 1, "b": [True, None]})) == {"a": 1, "b": [True, None]}


def test_list_and_tuple_are_json_arrays():
    assert json.loads(text_of([1, "x"])) == [1, "x"]
    assert json.loads(text_of((1, "x"))) == [1, "x"]


def test_numbers_and_booleans_are_json():
    assert (text_of(3), text_of(2.5), text_of(True)) == ("3", "2.5", "true")


def test_non_ascii_text_in_json_is_kept_readable():
    assert text_of({"city": "Zürich"}) == '{\n  "city": "Zürich"\n}'


def test_pydantic_model_is_json():
    assert json.loads(text_of(Reading(sensor="t1", value=20.5))) == {"sensor": "t1", "value": 20.5}


def test_dataclass_is_json():
    assert json.loads(text_of(Point(1, 2))) == {"x": 1, "y": 2}


def test_models_and_dataclasses_inside_containers_are_json():
    value = {"points": [Point(1, 2)], "reading": Reading(sensor="a", value=1.0), "tags": {"b", "a"}}
    assert json.loads(text_of(value)) == {
        "points": [{"x": 1, "y": 2}],
        "reading": {"sensor": "a", "value": 1.0},
        "tags": ["a", "b"],
    }


def test_value_json_cannot_hold_inside_a_dict_falls_back_to_its_repr():
    assert json.loads(text_of({"thing": Opaque(), "n": 1})) == {"thing": "<Opaque>", "n": 1}


def test_dict_with_keys_json_cannot_hold_still_renders():
    assert json.loads(text_of({(1, 2): "pair", 3: "three"})) == {"(1, 2)": "pair", "3": "three"}


def test_list_that_contains_itself_still_renders():
    loop = [1]
    loop.append(loop)
    assert json.loads(text_of(loop)) == [1, "<cycle: list>"]


def test_dataclass_holding_a_lock_still_renders():
    @dataclasses.dataclass
    class Job:
        name: str
        lock: object

    rendered = json.loads(text_of(Job("j", threading.Lock())))
    assert rendered["name"] == "j" and "lock" in rendered["lock"]


def test_pydantic_model_that_refuses_to_serialize_still_renders():
    class Holder(BaseModel):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        name: str
        thing: Opaque

    assert json.loads(text_of(Holder(name="h", thing=Opaque()))) == {"name": "h", "thing": "<Opaque>"}


def test_other_values_are_their_repr():
    assert text_of(Opaque()) == "<Opaque>"
    assert text_of(b"raw") == "b'raw'"


def test_pil_image_becomes_a_png_image_block():
    content, _ = result_content(Image.new("RGB", (3, 2), "red"))
    assert len(content) == 1 and isinstance(content[0], ImageContent)
    assert content[0].mime_type == "image/png"
    decoded = Image.open(io.BytesIO(base64.b64decode(content[0].data)))
    assert decoded.size == (3, 2) and decoded.getpixel((0, 0))[:3] == (255, 0, 0)


def test_pil_image_in_a_mode_png_cannot_hold_is_converted():
    content, _ = result_content(Image.new("CMYK", (2, 2)))
    assert isinstance(content[0], ImageContent) and content[0].mime_type == "image/png"


def _png(width: int = 4, height: int = 3) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "green").save(buffer, format="PNG")
    return buffer.getvalue()


def test_bytes_with_an_image_mime_type_become_an_image_block():
    png = _png()
    content, _ = result_content((png, "image/png"))
    assert content == [ImageContent(data=base64.b64encode(png).decode(), mime_type="image/png")]


def test_bytes_with_a_non_image_mime_type_are_not_an_image():
    content, _ = result_content((b"abc", "text/plain"))
    assert content == [TextContent(text='[\n  "b\'abc\'",\n  "text/plain"\n]')]  # the tuple, as JSON text


def test_ten_megabyte_string_is_cut_keeping_head_and_tail_with_a_marker():
    text = "H" * 1000 + "x" * (10_000_000 - 2000) + "T" * 1000
    content, details = result_content(text, 1000)
    out = content[0].text
    assert out.startswith("H" * 500) and out.endswith("T" * 500)
    assert "[... 9,999,000 characters cut of 10,000,000 (max_result_chars=1,000)" in out
    assert len(out) < 1200  # the limit and the marker, which says how to read the rest
    assert {key: details[key] for key in ("truncated_chars", "original_chars")} == {
        "truncated_chars": 9_999_000,
        "original_chars": 10_000_000,
    }
    full = details["full_text"]  # the card's: 200,000 characters, head and tail, with a marker
    assert full.startswith("H" * 1000) and full.endswith("T" * 1000) and len(full) < 200_100


def test_long_json_is_cut_too():
    content, details = result_content(list(range(100_000)), 200)
    assert "characters cut of" in content[0].text and details["truncated_chars"] > 0


def test_text_at_the_limit_is_not_cut():
    assert result_content("x" * 100, 100) == ([TextContent(text="x" * 100)], {})


def test_no_limit_means_no_cut():
    content, details = result_content("x" * 200_000, None)
    assert len(content[0].text) == 200_000 and details == {}


def test_images_are_never_cut():
    content, details = result_content((_png(200, 200), "image/png"), 100)
    assert isinstance(content[0], ImageContent) and details == {}


def test_a_list_of_plain_strings_is_data_not_text_blocks():
    assert json.loads(text_of(["a", "b"])) == ["a", "b"]


def test_a_list_of_text_and_a_picture_is_blocks_in_order():
    content, _ = result_content(["above", Image.new("RGB", (2, 2)), TextContent(text="below")])
    assert [type(b).__name__ for b in content] == ["TextContent", "ImageContent", "TextContent"]
    assert (content[0].text, content[2].text) == ("above", "below")


def test_an_ipython_image_becomes_an_image_block_and_another_png_repr_stays_text():
    from IPython.display import Image as IPythonImage

    png = io.BytesIO()
    Image.new("RGB", (4, 3), "blue").save(png, format="PNG")
    (block,) = result_content(IPythonImage(data=png.getvalue(), format="png"))[0]
    assert isinstance(block, ImageContent) and base64.b64decode(block.data) == png.getvalue()

    class Formula:  # draws itself, as a SymPy expression does, but is text to the model
        def _repr_png_(self):
            return png.getvalue()

        def __repr__(self):
            return "x**2 + 1"

    assert result_content(Formula())[0] == [TextContent(text="x**2 + 1")]


def _noise_png(side: int) -> bytes:
    """A PNG that cannot compress: ``side`` × ``side`` random pixels, about 3 bytes each."""
    import random

    rng = random.Random(7)
    picture = Image.frombytes("RGB", (side, side), bytes(rng.getrandbits(8) for _ in range(side * side * 3)))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def test_an_image_over_the_byte_limit_is_reencoded_under_it():
    from openprogram_jupyter.tools._images import MAX_BYTES

    big = _noise_png(1200)
    assert len(big) > MAX_BYTES
    (block,) = result_content((big, "image/png"))[0]
    assert isinstance(block, ImageContent) and block.mime_type == "image/jpeg"
    assert len(base64.b64decode(block.data)) <= MAX_BYTES


def test_without_pillow_an_image_over_the_byte_limit_is_a_note_not_a_refused_request(monkeypatch):
    import sys

    big, small = _noise_png(1200), (_png(), "image/png")
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now raises ImportError
    (block,) = result_content((big, "image/png"))[0]
    assert isinstance(block, TextContent) and "was left out" in block.text and "pip install pillow" in block.text
    assert isinstance(result_content(small)[0][0], ImageContent)  # within the limit: sent as given
