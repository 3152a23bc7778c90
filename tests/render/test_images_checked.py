"""Images are embedded only when their data is real base64, checked in one pass."""

from __future__ import annotations

import time

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import ImageContent
from openprogram_jupyter.render._sanitize import clean_html, is_base64

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="  # one pixel


def test_base64_is_checked_with_padding_and_whitespace_anywhere():
    assert is_base64(PNG) and is_base64(PNG[:8] + "\n  " + PNG[8:])
    assert not is_base64(PNG + "!") and not is_base64("aGVsbG8") and not is_base64("<img src=x>")


def test_an_image_block_of_whitespace_is_refused_at_once_on_every_path():
    """A hostile MCP server's image of whitespace made each render take 12 s (a regex
    that could match the whitespace two ways backtracked); rendering stays fast and
    embeds nothing."""
    hostile = " " * 300_000 + "!"

    @op.function
    def picture() -> list:
        """A picture."""
        return [ImageContent(data=hostile, mime_type="image/png"), ImageContent(data=PNG, mime_type="image/png")]

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="picture"), "done"])).run("go", tools=[picture])
    started = time.perf_counter()
    html = run._repr_html_()
    cleaned = clean_html(f'<img src="data:image/png;base64,{hostile}"><img src="data:image/png;base64,{PNG}">')
    elapsed = time.perf_counter() - started
    assert elapsed < 5.0  # the backtracking check took 12 s per render here
    assert html.count("data:image/png;base64,") == 1 and PNG in html
    assert cleaned.count("src=") == 1 and PNG in cleaned
