"""The restore fuzzer: random saved runs in a notebook's output metadata — a real saved run
with fields deleted or of the wrong type, random messages, random JSON, lone surrogates —
read as ``%agent restore`` reads them (``read_saved_runs``, then ``restore_sessions``).
Nothing raises but a one-line ``ValueError``, a session the notebook does not name is
never changed, and what is restored saves as UTF-8."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, restore_sessions, saved_run_metadata
from openprogram_jupyter.jupyter._sessions import Sessions

from .conftest import counted, fuzz_settings
from .damage import edit_somewhere
from .strategies import json_like, texts

FIELDS = [
    "format",
    "run_id",
    "model",
    "session",
    "history_length",
    "appended_at",
    "started_at",
    "stop_reason",
    "messages",
    "session_created_at",
    "cell_id",
]


def _real_saved() -> dict[str, Any]:
    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="missing", arguments={"a": 1}), "done \ud83d"])).run("hi")
    return saved_run_metadata(run, "lesson", 0)["openprogram"]


REAL = json.loads(json.dumps(_real_saved()))
edits = st.lists(st.tuples(st.booleans(), st.integers(0, 10**6), json_like), max_size=4)
saved_runs = st.one_of(
    st.builds(lambda e: _edited(REAL, e), edits),
    st.dictionaries(st.sampled_from(FIELDS), json_like),
    json_like,
    st.builds(lambda m: {**REAL, "messages": m}, st.lists(json_like)),
)


def _edited(saved: dict[str, Any], edits: list[tuple[bool, int, Any]]) -> Any:
    """``saved`` (copied) with each edit: delete a field anywhere in it, or set it to a value."""
    data = json.loads(json.dumps(saved))
    for delete, where, value in edits:
        if not edit_somewhere(data, where, value, delete):
            break
    return data


def _notebook(folder: Path, runs: list[Any], raw_tail: str) -> Path:
    outputs = [[{"output_type": "display_data", "data": {}, "metadata": {"openprogram": r}}] for r in runs]
    cells = [{"cell_type": "code", "source": "%%agent", "metadata": {}, "outputs": o} for o in outputs]
    path = folder / "saved.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}) + raw_tail)
    return path


@fuzz_settings(short_examples=80)
@given(runs=st.lists(saved_runs, max_size=3), raw_tail=st.sampled_from(["", "", " ", "x", "]"]), name=texts)
@example(runs=[{**REAL, "messages": [{"role": "user", "content": "\ud83d"}]}], raw_tail="", name="lesson").via(
    "a lone surrogate in a saved message"
)
def test_any_saved_metadata_restores_or_is_refused_in_one_line(runs, raw_tail, name):
    counted("restore")
    sessions = Sessions()
    other = sessions.get(f"other-{name}", new=True)
    other.messages.append(op.UserMessage(content="mine"))
    with tempfile.TemporaryDirectory() as folder:
        try:
            restored = read_saved_runs(_notebook(Path(folder), runs, raw_tail))
            lines = restore_sessions(sessions, [r for r in restored if r.session != other.name])
        except ValueError as refused:
            assert "\n" not in str(refused), str(refused)
            str(refused).encode("utf-8")
            return
    assert [m.text for m in other.messages] == ["mine"]
    for line in lines:
        assert "\n" not in line
    for session in sessions:
        text = json.dumps([m.model_dump(mode="json") for m in session.messages], ensure_ascii=False)
        text.encode("utf-8")
