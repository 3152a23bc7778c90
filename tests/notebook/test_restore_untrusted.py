"""``%agent restore`` reads a saved notebook, which is untrusted: whatever it holds, the
answer is a restored session or one line naming the cell and field — never a raw
TypeError, RecursionError or OverflowError, and never a change to a session the notebook
does not name."""

from __future__ import annotations

import json

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _LOADED
from openprogram_jupyter.jupyter._saved_runs import saved_run_metadata
from openprogram_jupyter.jupyter._sessions import Session


def saved(run_messages, **fields) -> dict:
    data = {
        "format": 1,
        "run_id": "run_x",
        "model": "scripted",
        "session": "lesson",
        "history_length": 0,
        "started_at": 1.0,
        "stop_reason": "stop",
        "messages": run_messages,
    }
    data.update(fields)
    return data


def messages(text: str) -> list[dict]:
    return [
        op.UserMessage(content=text).model_dump(mode="json"),
        op.AssistantMessage(content=[op.TextContent(text=f"re: {text}")]).model_dump(mode="json"),
    ]


def notebook_with(tmp_path, *saved_runs, raw=None) -> str:
    outputs = [[{"output_type": "display_data", "data": {}, "metadata": {"openprogram": s}}] for s in saved_runs]
    cells = [
        {"cell_type": "code", "source": "%%agent", "metadata": {}, "outputs": o, "execution_count": None}
        for o in outputs
    ]
    path = tmp_path / "saved.ipynb"
    path.write_text(
        raw if raw is not None else json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    return str(path)


def restore(shell, path: str) -> None:
    shell.run_line_magic("agent", f"restore {path}")


def sessions_of(shell):
    return _LOADED[id(shell)].sessions


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"history_length": [1]}, "history_length"),
        ({"history_length": None}, "history_length"),
        ({"history_length": -2}, "history_length"),
        ({"history_length": "3"}, "history_length"),
        ({"history_length": True}, "history_length"),
        ({"session": ["lesson"]}, "session"),
        ({"session": {"a": 1}}, "session"),
        ({"session": 7}, "session"),
        ({"started_at": "yesterday"}, "started_at"),
        ({"messages": [{"role": "wizard"}]}, "messages.0"),
        ({"messages": 5}, "messages"),
    ],
)
def test_a_saved_run_that_does_not_fit_is_refused_naming_its_cell_and_field(shell, tmp_path, fields, named):
    keep = sessions_of(shell).get("other", new=True)
    keep.messages.extend([op.UserMessage(content="mine")])
    path = notebook_with(tmp_path, saved(messages("one")), saved(messages("two"), **fields))
    with pytest.raises(UsageError) as refused:
        restore(shell, path)
    said = str(refused.value)
    assert said.startswith(f"%agent restore: code cell 2: its saved run has a bad {named}")
    assert "\n" not in said and "nothing was restored" in said
    assert "lesson" not in sessions_of(shell) and [m.text for m in keep.messages] == ["mine"]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("[1, 2, 3]", "is not a notebook (no list of cells"),
        ('{"cells": 5}', "is not a notebook (no list of cells"),
        ("[" * 100_000 + "]" * 100_000, "levels deep"),
        ("{not json", "is not a notebook (not JSON"),
    ],
)
def test_a_file_that_is_no_notebook_is_refused_in_one_line(shell, tmp_path, raw, words):
    with pytest.raises(UsageError, match="%agent restore: .*" + words.replace("(", r"\(")):
        restore(shell, notebook_with(tmp_path, raw=raw))


def test_an_infinite_start_time_is_refused(shell, tmp_path):
    path = notebook_with(tmp_path, saved(messages("one")))
    text = open(path).read().replace('"started_at": 1.0', '"started_at": 1e999')
    open(path, "w").write(text)
    with pytest.raises(UsageError, match="bad started_at"):
        restore(shell, path)


def test_outputs_that_are_not_ours_are_skipped(shell, tmp_path):
    path = tmp_path / "odd.ipynb"
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "outputs": [1, "two", None, {"metadata": [1, 2]}, {"metadata": {"openprogram": 3}}],
                    },
                    {"cell_type": "code", "outputs": 7},
                    {"cell_type": "code", "outputs": [{"metadata": {"openprogram": saved(messages("one"))}}]},
                ]
            }
        )
    )
    restore(shell, str(path))
    assert [m.text for m in sessions_of(shell).get("lesson").messages] == ["one", "re: one"]


def test_two_background_runs_on_one_session_come_back_one_after_the_other(shell, tmp_path):
    """Both started from the same history; the live session appended one, then the other.
    Both saved history_length 0, and restore used to drop one of them."""

    class _Run:
        def __init__(self, run_id, text, started_at):
            self.run_id, self.model, self.stop_reason, self.started_at = run_id, "scripted", "stop", started_at
            self.messages = [op.UserMessage(content=text), op.AssistantMessage(content=[op.TextContent(text="ok")])]

    first, second = _Run("run_a", "first", 2.0), _Run("run_b", "second", 1.0)  # the second started earlier
    live = Session("lesson")
    live.add(first)
    live.add(second)
    path = notebook_with(
        tmp_path,
        *(saved_run_metadata(run, "lesson", 0, live.appended_at(run))["openprogram"] for run in (first, second)),
    )
    restore(shell, path)
    restored = sessions_of(shell).get("lesson")
    assert [m.text for m in restored.messages] == [m.text for m in live.messages] == ["first", "ok", "second", "ok"]
