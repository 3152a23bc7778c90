"""An MCP tool's audio shows in its live card as the one-line note the model reads (its
MIME type and size), never as base64 (tests/tool_sources/test_mcp_audio.py: the model,
the transcripts, sampling)."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._live import LiveRun
from tests.tool_sources.test_mcp_audio import NOTE, WAV_BASE64_START, media_run

from .test_view import all_html


def test_an_audio_result_is_its_note_in_the_live_card(recorder):
    live = LiveRun(widgets=True, clicks=False)
    with op.Runtime(model="offline") as runtime:
        run = media_run(runtime, on_event=live.on_event)
    assert run.stop_reason == "stop", run.error
    live.tick(force=True)
    shown = all_html(live.view)
    assert NOTE in shown
    assert WAV_BASE64_START not in shown
