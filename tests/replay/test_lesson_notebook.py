"""notebooks/replay-lesson.ipynb replays its committed cassette in a real kernel and
gives the same transcript as the recorded run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSON = NOTEBOOKS / "replay-lesson.ipynb"
CASSETTES = NOTEBOOKS / "cassettes"

# Appended to the lesson when the test runs it: dump what the kernel replayed.
DUMP_CELL = """
import json as _json
print(_json.dumps({"runs": [[m.model_dump(mode="json") for m in r.messages] for r in (run, rt.last_run)],
                   "decision": decision}))
"""


def normalized(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages without what differs between two runs: timestamps, the model's display
    name, tool-call durations."""
    out = []
    for message in messages:
        message = {k: v for k, v in message.items() if k not in ("timestamp", "model")}
        if "details" in message:
            message["details"] = {k: v for k, v in message["details"].items() if k != "duration"}
        out.append(message)
    return out


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    notebook = nbformat.read(LESSON, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(DUMP_CELL))
    client = NotebookClient(
        notebook, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()
    return notebook


def stdout_of(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def test_lesson_replay_in_a_kernel_gives_the_recorded_transcript(executed):
    replayed = json.loads(stdout_of(executed.cells[-1]))
    recorded = json.loads((CASSETTES / "lesson.transcript.json").read_text(encoding="utf-8"))
    assert [normalized(run) for run in replayed["runs"]] == [normalized(run) for run in recorded["runs"]]
    assert replayed["decision"] == recorded["decision"] == {"decision": "pack", "layers": 2}


def test_lesson_shows_the_drift_message_when_the_question_changes(executed):
    drift_cell = next(c for c in executed.cells if c.cell_type == "code" and "drifted =" in c.source)
    assert "round 1 drifted from the recording: the last user message differs" in stdout_of(drift_cell)


def test_lesson_says_its_cassette_was_recorded_against_the_loopback_server():
    first = nbformat.read(LESSON, as_version=4).cells[0].source
    assert "loopback fake server" in first and "No real provider is reachable" in first


def test_committed_cassette_is_what_the_recording_script_records_today(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("record_lesson", CASSETTES / "record_lesson.py")
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    monkeypatch.setattr(recorder, "CASSETTE", tmp_path / "lesson.json")
    monkeypatch.setattr(recorder, "TRANSCRIPT", tmp_path / "lesson.transcript.json")
    recorder.record()

    def replies(path: Path) -> list[tuple[Any, ...]]:
        rounds = json.loads(path.read_text(encoding="utf-8"))["rounds"]
        return [(r["request"], r["reply"]["content"], r["reply"]["stop_reason"]) for r in rounds]

    assert replies(tmp_path / "lesson.json") == replies(CASSETTES / "lesson.json"), (
        "the committed cassette is stale: run python notebooks/cassettes/record_lesson.py"
    )
