"""MCP audio is a one-line note with its MIME type and size everywhere: in what the model
reads of a tool result, in every saved transcript (and the live card:
tests/widgets/test_view_mcp_audio.py), and in a sampling
request's messages. No provider the package speaks to takes audio in a tool result
(docs/tools.md says which could and why), so no base64 of it reaches a model or a view."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import openprogram_jupyter as op

from .feature_server import WAV

FEATURE_SERVER = [sys.executable, str(Path(__file__).with_name("feature_server.py"))]
SAMPLING_SERVER = [sys.executable, str(Path(__file__).with_name("sampling_server.py"))]
NOTE = "[audio: audio/wav, 16,044 bytes; not sent to the model]"
WAV_BASE64_START = base64.b64encode(WAV)[:12].decode()


def media_run(runtime, **hooks) -> op.Run:
    """A run of the feature server's ``media`` tool (text, a PNG, audio twice, a PDF, text)."""
    op.mcp(command=FEATURE_SERVER, name="feat", runtime=runtime)
    runtime.model = op.ScriptedModel([op.ToolCall(name="feat_media", arguments={}), "done"])
    return runtime.run("media", **hooks)


def test_an_audio_result_is_its_note_in_every_saved_transcript(runtime, tmp_path):
    run = media_run(runtime)
    for suffix in ("html", "md", "txt"):
        path = tmp_path / f"run.{suffix}"
        run.save(path)
        saved = path.read_text()
        assert NOTE in saved, suffix
        assert WAV_BASE64_START not in saved, suffix


def test_audio_in_a_sampling_request_reaches_the_model_as_its_note(runtime):
    op.mcp(command=SAMPLING_SERVER, name="smp", runtime=runtime)
    model = op.ScriptedModel([op.ToolCall(name="smp_ask_about_audio", arguments={}), "A beep.", "done"])
    runtime.model = model
    run = runtime.run("go")
    assert run.tool_results[0].text == "sampled scripted: A beep."
    [message] = model.requests[1].messages
    assert message.text == NOTE + "\nWhat is this?"
