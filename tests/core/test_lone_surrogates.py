"""Text from outside the run that is not valid Unicode — a lone surrogate, which JSON's
``"\\ud83d"`` and Python's ``surrogateescape`` both make — is made U+FFFD where it enters
(issue 53), so the transcript, the notebook's saved run and the cassette save as UTF-8."""

from __future__ import annotations

import json

import openprogram_jupyter as op
from openprogram_jupyter.core._json import loads_valid, valid_json, valid_text
from openprogram_jupyter.jupyter._saved_runs import read_saved_runs, saved_run_metadata

REPLACED = "\ufffd"


def saves_everywhere(run: op.Run, tmp_path) -> None:
    for suffix in ("html", "md", "txt"):
        run.save(tmp_path / f"run.{suffix}")
    json.dumps(saved_run_metadata(run, "s", 0), ensure_ascii=False).encode("utf-8")


def test_valid_text_replaces_lone_surrogates_joins_pairs_and_keeps_valid_text_as_it_is():
    assert valid_text("x\ud83dy\udcff") == f"x{REPLACED}y{REPLACED}"
    assert valid_text("\ud83d\ude00") == "\U0001f600"  # a pair JSON left as two escapes
    kept = "caf\u00e9 \U0001f600"
    assert valid_text(kept) is kept
    data = {"a": ["b", {"c": 1.5}]}
    assert valid_json(data) is data
    assert valid_json({"k\ud83d": ("v\udcff", 3)}) == {f"k{REPLACED}": [f"v{REPLACED}", 3]}
    assert loads_valid('{"text": "x\\ud83dy"}') == {"text": f"x{REPLACED}y"}


def test_a_tool_result_with_a_lone_surrogate_saves(tmp_path):
    @op.function(register_globally=False)
    def listing() -> str:
        """A file name read with surrogateescape, as os.listdir gives an undecodable one."""
        print("printed \udcff")
        return b"caf\xe9.txt".decode("utf-8", "surrogateescape")

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="listing", arguments={}), "done"])).run(
        "go", tools=[listing]
    )
    assert run.stop_reason == "stop"
    assert run.messages[2].content[0].text == f"caf{REPLACED}.txt"
    saves_everywhere(run, tmp_path)
    assert "printed \ufffd" in (tmp_path / "run.html").read_text(encoding="utf-8")


def test_a_prompt_and_a_scripted_reply_with_lone_surrogates_save(tmp_path):
    cassette = tmp_path / "c.json"
    run = op.Runtime(model=op.ScriptedModel(["re \ud83d"]), record=cassette).run("hi \ud83d")
    assert run.messages[0].text == f"hi {REPLACED}" and run.messages[1].text == f"re {REPLACED}"
    saves_everywhere(run, tmp_path)
    assert f"re {REPLACED}" in cassette.read_text(encoding="utf-8")


def test_a_cassette_or_a_notebook_holding_an_escaped_lone_surrogate_is_read_as_a_replacement(tmp_path):
    cassette = tmp_path / "c.json"
    op.Runtime(model=op.ScriptedModel(["re"]), record=cassette).run("hi")
    cassette.write_text(cassette.read_text(encoding="utf-8").replace('"re"', '"re \\ud83d"'), encoding="utf-8")
    replayed = op.Runtime(model=f"replay:{cassette}").run("hi")
    assert replayed.messages[1].text == f"re {REPLACED}"
    saves_everywhere(replayed, tmp_path)

    saved = saved_run_metadata(op.Runtime(model=op.ScriptedModel(["re"])).run("hi"), "s", 0)["openprogram"]
    saved["messages"][1]["content"][0]["text"] = "re \ud83d"
    output = {"output_type": "display_data", "data": {}, "metadata": {"openprogram": saved}}
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [output]}],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    raw = notebook.read_text(encoding="utf-8")
    assert "\\ud83d" in raw  # escaped in the file, as a frontend's JSON.stringify writes it
    [restored] = read_saved_runs(notebook)
    assert restored.messages[1].text == f"re {REPLACED}"
