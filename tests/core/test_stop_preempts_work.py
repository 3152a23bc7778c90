"""docs/faults.md, "Nothing blocks Stop": the CPU work a run does on a tool's result runs
off the run's event loop, and Stop does not wait for it."""

from __future__ import annotations

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


def _twelve_large_pictures() -> list[object]:
    """One random picture (PNG cannot shrink noise, so fitting re-encodes it as JPEG),
    twelve times: 27 MB held, the work of twelve."""
    noise = Image.frombytes("RGB", (SIDE, SIDE), os.urandom(SIDE * SIDE * 3))
    return [noise] * 12


def test_stop_while_a_tools_pictures_are_fitted_ends_the_run_at_once():
    abort = threading.Event()
    pictures = _twelve_large_pictures()
    stopped_at: list[float] = []

    def click_stop() -> None:
        stopped_at.append(time.monotonic())
        abort.set()

    @op.function
    def photos() -> list[object]:
        """Twelve large photos."""
        threading.Timer(0.3, click_stop).start()  # the user clicks Stop just after it returns
        return pictures

    model = op.ScriptedModel([call("photos"), "never reached"])
    run = op.Runtime(model=model).run("go", tools=[photos], abort=abort)
    ended = time.monotonic()
    assert stopped_at, "the run ended before Stop was clicked"
    assert ended - stopped_at[0] < 3  # generous: fitting all twelve takes ~20 s here
    assert run.stop_reason == "aborted"
    [result] = results(run)
    assert result.status == "cancelled" and result.is_error and "result" in result.text
    assert model.rounds_played == 1
