"""Terminal IPython (no kernel): what ``%%agent`` prints shows a tool's or a model's
terminal escapes and obeys none, and holds no secret (docs/faults.md)."""

from __future__ import annotations

import re

import pytest

import openprogram_jupyter as op

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
LOCAL_TOKEN = "local-server-token-5e1d77aa"  # made up


@pytest.fixture(autouse=True)
def _fresh_registry(clean_registry):
    yield


def test_the_printed_transcript_shows_escapes_and_no_secret(shell, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", LOCAL_TOKEN)

    @op.function(register_globally=False)
    def screen() -> str:
        """Draw on the screen."""
        raise RuntimeError(f"\x1b[2J\x1b]0;pwned\x07 token {LOCAL_TOKEN}")

    shell.user_ns["screen"] = screen
    shell.user_ns["m"] = op.ScriptedModel([op.ToolCall(name="screen"), "Cleared \x1b[2J the \x1b[1A screen."])
    result = shell.run_cell("%%agent -m m -o r --tools screen\nClear it.")
    assert result.success, result.error_in_exec
    out = capsys.readouterr().out

    assert "Cleared ␛[2J the ␛[1A screen." in out and "␛[2J␛]0;pwned␇ token ***" in out
    assert not CONTROL.search(out) and LOCAL_TOKEN not in out
    assert shell.user_ns["r"].text == "Cleared \x1b[2J the \x1b[1A screen."  # the record keeps what was said


def test_a_failed_runs_one_line_shows_escapes_and_no_secret(shell, capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", LOCAL_TOKEN)
    failing = op.AssistantMessage(stop_reason="error", error_message=f"HTTP 500 \x1b[2J\x1b]0;t\x07 for {LOCAL_TOKEN}")
    shell.user_ns["m"] = op.ScriptedModel([failing])
    result = shell.run_cell("%%agent -m m -o r\nHi.")
    assert not result.success  # the cell fails, with one line
    printed = capsys.readouterr()
    both = printed.out + printed.err
    assert "HTTP 500 ␛[2J␛]0;t␇ for ***" in both  # in the transcript, once
    assert both.count("HTTP 500") == 1  # the one line points there instead of printing it again
    assert "RunFailed: the run ended with the error shown above (the Run is in r;" in both
    assert not CONTROL.search(both) and LOCAL_TOKEN not in both
    assert str(result.error_in_exec).startswith("HTTP 500 ␛[2J␛]0;t␇ for ***")  # what papermill or a CI log reads


def test_the_choose_a_model_hint_follows_the_errors_kind_not_its_words(shell, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = shell.run_cell("%%agent -m openai:gpt-4.1-mini -o r\nHi.")
    assert shell.user_ns["r"].error.kind == "credentials"
    assert "or choose a model: %config AgentMagics.model = '...', -m MODEL, or -m offline" in str(result.error_in_exec)

    # A reply whose words say "no API key" but whose fields say a refused key (401) gets no such hint.
    words = "openai:gpt-4.1-mini failed, HTTP 401: no API key was accepted"
    failing = op.AssistantMessage(
        stop_reason="error", error_message=words, error=op.ReplyError(kind="auth", summary=words, status=401)
    )
    shell.user_ns["m"] = op.ScriptedModel([failing])
    result = shell.run_cell("%%agent -m m -o r\nHi.")
    assert shell.user_ns["r"].error.status == 401
    assert str(result.error_in_exec).startswith(words) and "-m offline" not in str(result.error_in_exec)
