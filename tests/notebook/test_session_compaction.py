"""Sessions compact across cells (issue 47): a ``-s`` cell that compacted leaves its
session compacted — the summary, the pins and the rounds kept — so the next cell sends
that and does not compact the same rounds again; ``%agent restore`` rebuilds the compacted
session from the saved runs, pins included; saved compactions that do not fit are refused
naming the cell, the kernel's session left as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, restore_sessions, saved_run_metadata
from openprogram_jupyter.jupyter._sessions import Sessions

from .test_restore_untrusted import notebook_with

FIRST = "Rule: answer in French. " + "x" * 3_000
SECOND = "Question two. " + "y" * 3_000
COMPACTING = "%%agent -m m -s chat --compact 1000 --keep-last 1"


@pytest.fixture(autouse=True)
def _fresh_sessions(clean_registry, shell, monkeypatch):
    from openprogram_jupyter.jupyter import _LOADED

    monkeypatch.setattr(_LOADED[id(shell)], "sessions", Sessions())
    yield


def _sessions(shell) -> Sessions:
    from openprogram_jupyter.jupyter import _LOADED

    return _LOADED[id(shell)].sessions


def _two_cells(shell, *, pin_first: bool = False) -> op.ScriptedModel:
    """Two compacting cells of session ``chat``: the second compacts the first's round."""
    model = op.ScriptedModel(["first answer", "the summary", "second answer", "third answer"])
    shell.user_ns["m"] = model
    assert shell.run_cell(f"{COMPACTING} --new\n{FIRST}").success
    if pin_first:
        shell.run_line_magic("agent", "pin -s chat 1")
    assert shell.run_cell(f"{COMPACTING}\n{SECOND}").success
    return model


def _texts(messages: list[Any]) -> list[str]:
    return [message.text for message in messages]


def test_the_next_cell_sends_the_compacted_session_and_compacts_nothing_again(shell):
    model = _two_cells(shell)
    summary = "[Summary of 2 earlier messages, written when the conversation was compacted]\nthe summary"
    assert _texts(_sessions(shell).get("chat").messages) == [summary, SECOND, "second answer"]
    assert shell.run_cell(f"{COMPACTING}\nQuestion three.").success
    assert _texts(model.requests[-1].messages) == [summary, SECOND, "second answer", "Question three."]
    assert len(model.requests) == 4  # three answers and one summary: no second compaction


def test_a_pinned_message_stays_in_the_compacted_session(shell):
    _two_cells(shell, pin_first=True)
    messages = _sessions(shell).get("chat").messages
    assert _texts(messages)[0] == FIRST and messages[0].pinned
    assert _texts(messages)[1].startswith("[Summary of 1 earlier messages")  # the first answer alone
    assert _texts(messages)[2:] == [SECOND, "second answer"]


def _saved(session: Any) -> list[dict[str, Any]]:
    """Each run of ``session`` as its cell saved it (what ``_cell._metadata`` writes)."""
    return [
        json.loads(
            json.dumps(
                saved_run_metadata(run, "chat", len(run.spec.history), session.appended_at(run), session.created_at)[
                    "openprogram"
                ]
            )
        )
        for run in session.runs
    ]


def test_restore_rebuilds_the_compacted_session_with_its_pins(shell, tmp_path):
    _two_cells(shell, pin_first=True)
    live = _sessions(shell).get("chat")
    saved = _saved(live)
    assert "compactions" not in saved[0] and len(saved[1]["compactions"]) == 1
    restored = Sessions()
    lines = restore_sessions(restored, read_saved_runs(Path(notebook_with(tmp_path, *saved))))
    assert lines == ["session chat: 4 message(s) from 2 run(s)"]
    again = restored.get("chat").messages
    assert _texts(again) == _texts(live.messages)
    assert [message.pinned for message in again if hasattr(message, "pinned")] == [True, False, False]


def test_saved_compactions_that_do_not_fit_are_refused_naming_the_cell(shell, tmp_path):
    _two_cells(shell)
    saved = _saved(_sessions(shell).get("chat"))
    saved[1]["compactions"][0]["dropped"] = [0, 99]
    kept = Sessions()
    kept.get("chat").messages.append(op.UserMessage(content="kept as it was"))
    with pytest.raises(
        ValueError,
        match=r"^code cell 2: its saved run's compaction 1 replaces positions \[0, 99\] of a conversation of "
        r"4 messages, which it does not fit$",
    ):
        restore_sessions(kept, read_saved_runs(Path(notebook_with(tmp_path, *saved))))
    assert _texts(kept.get("chat").messages) == ["kept as it was"]
