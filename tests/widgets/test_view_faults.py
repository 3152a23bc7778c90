"""The live view under faults (docs/faults.md): a huge model text is cut on screen, and a
retry wait counts down."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._view import RunView
from openprogram_jupyter.render._format import DEFAULT_MAX_TEXT_CHARS

from .test_view import all_html, delta, start_events


def test_a_huge_streamed_text_is_cut_on_screen_while_it_streams_and_after(recorder):
    view = RunView()
    for event in start_events():
        view.feed(event)
    view.feed(delta("y" * 3_000_000))
    view.tick(force=True)
    html = all_html(view)
    assert len(html) < 2 * DEFAULT_MAX_TEXT_CHARS
    assert f"… {3_000_000 - DEFAULT_MAX_TEXT_CHARS:,} more characters not shown (the full text is in" in html
    view.feed(delta("z" * 1_000_000))
    view.tick(force=True)
    assert f"… {4_000_000 - DEFAULT_MAX_TEXT_CHARS:,} more characters not shown" in all_html(view)
    assert "zzz" not in all_html(view), "what is shown is the start of the text"


def test_the_view_limit_is_a_constructor_option_and_a_run_keeps_its_text(recorder):
    view = RunView(max_text_chars=50)
    run = op.Runtime(model=op.ScriptedModel(["word " * 1000])).run("go", tools=[], on_event=view.feed)
    view.finish()
    html = all_html(view)
    assert "word " * 10 in html and "word " * 11 not in html
    assert "… 4,950 more characters not shown" in html
    assert len(run.text) == 5000
