"""docs/faults.md, "Nothing blocks Stop": the CPU work a run does on a tool's result runs
off the run's event loop, and Stop does not wait for it."""

from __future__ import annotations

import base64
import os
import threading
import time

import pytest

import openprogram_jupyter as op

from .conftest import call, results

Image = pytest.importorskip("PIL.Image")

SIDE = 3000
"""Twelve random 3000×3000 pictures: fitting them for the model takes about 20 s on two
shared cores (measured: 1.8 s each, no other load), so a run that ends within a few
seconds of Stop was stopped, not finished."""


class _StopButton:
    """Stop as the user clicks it: ``abort`` for the run, ``clicked_at`` once clicked."""

    def __init__(self) -> None:
        self.abort = threading.Event()
        self.clicked_at: list[float] = []

    def click(self) -> None:
        self.clicked_at.append(time.monotonic())
        self.abort.set()


def _twelve_large_pictures() -> list[object]:
    """One random picture (PNG cannot shrink noise, so fitting re-encodes it as JPEG),
    twelve times: 27 MB held, the work of twelve."""
    noise = Image.frombytes("RGB", (SIDE, SIDE), os.urandom(SIDE * SIDE * 3))
    return [noise] * 12


def test_stop_while_a_tools_pictures_are_fitted_ends_the_run_at_once():
    stop = _StopButton()
    pictures = _twelve_large_pictures()

    @op.function
    def photos() -> list[object]:
        """Twelve large photos."""
        threading.Timer(0.3, stop.click).start()  # the user clicks Stop just after it returns
        return pictures

    model = op.ScriptedModel([call("photos"), "never reached"])
    run = op.Runtime(model=model).run("go", tools=[photos], abort=stop.abort)
    ended = time.monotonic()
    assert stop.clicked_at, "the run ended before Stop was clicked"
    assert ended - stop.clicked_at[0] < 3  # generous: fitting all twelve takes ~20 s here
    assert run.stop_reason == "aborted"
    [result] = results(run)
    assert result.status == "cancelled" and result.is_error and "result" in result.text
    assert model.rounds_played == 1


def test_stop_while_the_figures_a_tool_left_open_are_drawn_ends_the_run_at_once():
    pyplot = pytest.importorskip("matplotlib.pyplot")
    numpy = pytest.importorskip("numpy")
    stop = _StopButton()

    @op.function
    def plots() -> str:
        """Four large figures, left open (drawing each as PNG takes a second or more)."""
        side = 2000  # drawn as PNG in about 2.4 s each, on two shared cores
        noise = numpy.random.default_rng(0).integers(0, 256, (side, side, 3), dtype=numpy.uint8)
        for _ in range(4):
            pyplot.figure(figsize=(side / 100, side / 100), dpi=100).figimage(noise)
        threading.Timer(0.3, stop.click).start()  # the user clicks Stop just after it returns
        return "drawn"

    before = set(pyplot.get_fignums())
    model = op.ScriptedModel([call("plots"), "never reached"])
    run = op.Runtime(model=model).run("go", tools=[plots], abort=stop.abort)
    ended = time.monotonic()
    assert stop.clicked_at, "the run ended before Stop was clicked"
    assert ended - stop.clicked_at[0] < 3  # generous: drawing all four takes ~10 s here
    assert run.stop_reason == "aborted"
    [result] = results(run)
    assert result.status == "cancelled" and "figures" in result.text
    assert result.details["output"][-1]["text"] == (
        "[the figures this call left open were not drawn: the run was stopped]\n"
    )
    assert not any(item["type"] == "display" for item in result.details["output"])
    deadline = time.monotonic() + 60
    while set(pyplot.get_fignums()) - before and time.monotonic() < deadline:
        time.sleep(0.1)  # the worker closes the figure it was drawing, then the rest undrawn
    assert set(pyplot.get_fignums()) == before


def test_a_failed_call_with_large_pictures_in_its_output_is_ready_at_once():
    """A failed call's details are masked for key shapes as well as known values; in a
    picture's base64 only known values are looked for (shapes in 8 × 18 MB took ~10 s of
    the run's event loop, which Stop waits for; known values take a tenth of a second)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display

    InteractiveShell.instance()
    picture = base64.b64encode(os.urandom(13_500_000)).decode("ascii")
    failed_at: list[float] = []

    @op.function
    def photos() -> str:
        """Shows eight large photos, then fails."""
        for _ in range(8):
            display({"image/png": picture, "text/plain": "a photo AKIAABCDEFGHIJKLMNOP"}, raw=True)
        failed_at.append(time.monotonic())
        raise RuntimeError("the camera is gone")

    model = op.ScriptedModel([call("photos"), "noted"])
    run = op.Runtime(model=model).run("go", tools=[photos])
    assert time.monotonic() - failed_at[0] < 4  # generous: ~10 s before pictures were exempt from shapes
    assert run.stop_reason == "stop" and model.rounds_played == 2
    [result] = results(run)
    assert result.status == "error" and "camera is gone" in result.text
    shown = [item["data"] for item in result.details["output"] if item["type"] == "display"]
    assert len(shown) == 8
    assert all(data["image/png"] == picture for data in shown)  # a picture's bytes are not altered
    assert all(data["text/plain"] == "a photo AKIA***" for data in shown)  # text is masked for shapes
