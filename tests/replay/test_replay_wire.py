"""``run.wire`` of runs whose model sends nothing: a replayed run says what its cassette
holds; a scripted one says only provider models have a wire."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op

from .test_record_and_replay import make_add, record


def test_wire_of_a_replayed_run_says_the_cassette_holds_no_request_body(tmp_path):
    path = tmp_path / "run.json"
    record(path)
    run = op.Runtime(model=f"replay:{path}", capture_wire=True).run("What is 2 + 3, then + 5?", tools=[make_add()])
    assert run.stop_reason == "stop", run.error
    with pytest.raises(ValueError, match=r"cassette, which holds each reply and a summary of its request.*not the "
                                         r"request body"):
        run.wire(1)


def test_wire_of_a_scripted_run_says_nothing_goes_over_a_wire():
    run = op.Runtime(model=op.ScriptedModel(["hi"]), capture_wire=True).run("hello")
    with pytest.raises(ValueError, match="sends no request over a wire"):
        run.wire(1)
