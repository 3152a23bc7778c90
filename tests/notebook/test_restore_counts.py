"""What ``%agent restore`` reports per session, and rebuilds (issue 45 item 3): the
messages and runs it restored; a session's latest start only, the runs from before a
``--new`` counted as left out; a run whose history the notebook no longer holds restored
with a gap said; the session keeps the start it was saved with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, restore_sessions, saved_run_metadata
from openprogram_jupyter.jupyter._sessions import Sessions

from .test_restore_untrusted import notebook_with


def _saved(prompt: str, *, appended_at: int, created_at: float | None, started_at: float) -> dict[str, Any]:
    run = op.Runtime(model=op.ScriptedModel([f"answer to {prompt}"])).run(prompt)
    saved = saved_run_metadata(run, "lesson", 0)["openprogram"]
    return {**saved, "appended_at": appended_at, "session_created_at": created_at, "started_at": started_at}


def _restored(tmp_path: Path, *saved: dict[str, Any]) -> tuple[list[str], Sessions]:
    path = notebook_with(tmp_path, *saved)
    sessions = Sessions()
    return restore_sessions(sessions, read_saved_runs(Path(path))), sessions


def test_two_runs_of_a_session_are_restored_in_order_and_counted(tmp_path):
    first = _saved("one", appended_at=0, created_at=100.0, started_at=101.0)
    second = _saved("two", appended_at=2, created_at=100.0, started_at=102.0)
    lines, sessions = _restored(tmp_path, second, first)  # notebook order is not session order
    assert lines == ["session lesson: 4 message(s) from 2 run(s)"]
    session = sessions.get("lesson")
    assert [m.text for m in session.messages] == ["one", "answer to one", "two", "answer to two"]
    assert session.created_at == 100.0 and len(session.runs) == 2


def test_only_the_latest_start_is_restored_and_the_runs_before_it_are_counted_as_left_out(tmp_path):
    old = _saved("before", appended_at=0, created_at=50.0, started_at=51.0)
    new = _saved("after", appended_at=0, created_at=100.0, started_at=101.0)
    lines, sessions = _restored(tmp_path, old, new)
    assert lines == ["session lesson: 2 message(s) from 1 run(s) (1 run(s) from before a --new left out)"]
    session = sessions.get("lesson")
    assert [m.text for m in session.messages] == ["after", "answer to after"] and session.created_at == 100.0


def test_a_run_whose_earlier_history_is_missing_is_restored_with_the_gap_said(tmp_path):
    later = _saved("three", appended_at=4, created_at=100.0, started_at=103.0)  # cells before it were cleared
    lines, sessions = _restored(tmp_path, later)
    assert lines == [
        "session lesson: 2 message(s) from 1 run(s); 1 run(s) had more history than the notebook holds "
        "(an earlier cell's output was cleared?), so the conversation has a gap"
    ]
    assert [m.text for m in sessions.get("lesson").messages] == ["three", "answer to three"]
