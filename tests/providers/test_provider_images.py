"""A tool's pictures reach the model, on all five providers, in each one's own shape.

Whole runs through ``op.Runtime`` against the loopback server with the real SDK clients:
a tool returns a matplotlib figure, a PIL image or a list of text and pictures, or only
draws with ``figures_to_model=True``; the test reads the image out of the body the
server received, where that provider puts it, and decodes the bytes.
"""

from __future__ import annotations

import base64
import io

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.tools._images import MAX_EDGE

from .cases import CASE_IDS, CASES

matplotlib = pytest.importorskip("matplotlib")  # in the test lock; never a core dependency
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)


def _data_url(url: str) -> bytes:
    head, _, data = url.partition(",")
    assert head in ("data:image/png;base64", "data:image/jpeg;base64"), head
    return base64.b64decode(data)


def images_sent(prefix: str, body: dict) -> list[bytes]:
    """The images of the last tool results in ``body``, read where ``prefix`` carries them."""
    if prefix == "openai":  # a tool message cannot hold images: one user message follows the results
        last = body["messages"][-1]
        assert last["role"] == "user" and body["messages"][-2]["role"] == "tool"
        return [_data_url(part["image_url"]["url"]) for part in last["content"] if part["type"] == "image_url"]
    if prefix == "openai-responses":
        outputs = [item["output"] for item in body["input"] if item.get("type") == "function_call_output"]
        return [_data_url(part["image_url"]) for part in outputs[-1] if part["type"] == "input_image"]
    if prefix == "anthropic":
        (result,) = [b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]
        return [base64.b64decode(b["source"]["data"]) for b in result["content"] if b["type"] == "image"]
    if prefix == "gemini":
        parts = body["contents"][-1]["parts"]
        assert "functionResponse" in parts[0], "the images follow the function responses"
        return [base64.b64decode(p["inlineData"]["data"]) for p in parts if "inlineData" in p]
    if prefix == "bedrock":
        (result,) = [b["toolResult"] for b in body["messages"][-1]["content"] if "toolResult" in b]
        return [base64.b64decode(b["image"]["source"]["bytes"]) for b in result["content"] if "image" in b]
    raise AssertionError(prefix)


async def _second_request(case, server, tool, **options) -> dict:
    server.script(Turn(calls=[Call(tool.name, {})]), Turn(text="I see it."))
    run = await case.runtime(server).arun("Show me.", tools=[tool], **options)
    assert run.stop_reason == "stop", run.error
    return server.requests[-1].body  # the request after the tool ran


def _figure(width_inches: float = 4, height_inches: float = 3):
    figure, axes = plt.subplots(figsize=(width_inches, height_inches), dpi=100)
    axes.plot([0, 1, 2], [0, 1, 4])
    return figure


def _picture(data: bytes) -> Image.Image:
    picture = Image.open(io.BytesIO(data))
    picture.load()
    return picture


async def test_a_returned_figure_reaches_the_model(case, server):
    @op.function(register_globally=False)
    def plot() -> object:
        """Plot the squares."""
        figure = _figure()
        plt.close(figure)  # returned, not left open: the value is the picture
        return figure

    (sent,) = images_sent(case.prefix, await _second_request(case, server, plot))
    picture = _picture(sent)
    assert picture.format == "PNG" and 200 < picture.width <= 400 and 150 < picture.height <= 300


async def test_a_returned_pil_image_reaches_the_model_as_its_pixels(case, server):
    original = Image.new("RGB", (32, 16), (200, 30, 40))

    @op.function(register_globally=False)
    def swatch() -> object:
        """A red swatch."""
        return original

    (sent,) = images_sent(case.prefix, await _second_request(case, server, swatch))
    picture = _picture(sent)
    assert picture.size == (32, 16) and picture.convert("RGB").getpixel((5, 5)) == (200, 30, 40)


async def test_a_tool_that_only_draws_sends_its_figure_when_it_opts_in(case, server):
    @op.function(register_globally=False, figures_to_model=True)
    def draw() -> None:
        """Draw the squares and leave the figure open."""
        _figure(3, 2)

    (sent,) = images_sent(case.prefix, await _second_request(case, server, draw))
    assert _picture(sent).format == "PNG"


async def test_without_opting_in_a_drawn_figure_stays_in_the_card(case, server):
    @op.function(register_globally=False)
    def draw() -> None:
        """Draw the squares and leave the figure open."""
        _figure(3, 2)

    body = await _second_request(case, server, draw)
    assert "iVBORw0KGgo" not in str(body)  # no PNG anywhere in the request
    body = await _second_request(case, server, draw, figures_to_model=True)  # the run setting opts every tool in
    assert len(images_sent(case.prefix, body)) == 1


async def test_a_large_picture_is_scaled_down_to_the_limit_before_it_is_sent(case, server):
    @op.function(register_globally=False)
    def poster() -> object:
        """A large picture."""
        return Image.new("RGB", (4000, 1000), (10, 120, 200))

    (sent,) = images_sent(case.prefix, await _second_request(case, server, poster))
    assert _picture(sent).size == (MAX_EDGE, round(1000 * MAX_EDGE / 4000))


async def test_a_list_of_text_and_pictures_keeps_both_in_order(case, server):
    @op.function(register_globally=False)
    def report() -> object:
        """A caption and a swatch."""
        return ["The swatch is blue.", Image.new("RGB", (8, 8), (0, 0, 255))]

    body = await _second_request(case, server, report)
    (sent,) = images_sent(case.prefix, body)
    assert _picture(sent).size == (8, 8) and "The swatch is blue." in str(body)


async def test_a_model_that_takes_no_images_gets_a_note_instead(case, server):
    @op.function(register_globally=False)
    def swatch() -> object:
        """A swatch."""
        return Image.new("RGB", (8, 8))

    body = await _second_request(case, server, swatch, images_to_model=False)
    assert "iVBORw0KGgo" not in str(body) and "an image was left out here" in str(body)
