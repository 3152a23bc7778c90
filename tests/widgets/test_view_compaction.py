"""The live view of a compacted run: the compaction's line opens to show the summary and
what it replaced, as the saved transcript does."""

from __future__ import annotations

import sys
from pathlib import Path

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._view import RunView

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
from test_compaction import LongModel, _fetch

from .test_view import all_html


def test_the_live_view_shows_what_was_compacted(recorder):
    view = RunView()
    run = op.Runtime(model=LongModel(rounds=12)).run(
        "Read.", tools=[_fetch()], compact=0.5, keep_last=2, max_iterations=None, on_event=view.feed
    )
    view.finish()
    html = all_html(view)
    last = run.compactions[-1]  # the view draws a window of the rounds: the last ones
    assert f"compacted: {len(last.dropped)} messages" in html
    assert f"summary:\n{last.summary.text}" in html and last.dropped_lines[-1].rstrip("…")[:60] in html
