"""A bad cassette, or a replay that drifts from its recording, says what and where."""

from __future__ import annotations

import json

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.models.replay import CassetteError, ReplayModel

from .conftest import add, tools


def mul(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


# -- files that are not usable cassettes ---------------------------------------------------


def test_truncated_cassette_says_it_ends_early(cassette):
    text = cassette.read_text()
    cassette.write_text(text[: len(text) // 2])
    ends_early = rf"cassette {cassette} is not valid JSON: .* the file ends early \(truncated\?\)"
    with pytest.raises(CassetteError, match=ends_early):
        ReplayModel(str(cassette))


def test_corrupt_cassette_says_where_the_json_breaks(cassette):
    cassette.write_text('{"cassette": "openprogram-jupyter", "version": 1, "rounds": [}')
    with pytest.raises(CassetteError, match=r"is not valid JSON: Expecting value at line 1 column 62 \(corrupt\?\)"):
        ReplayModel(str(cassette))


def test_missing_cassette_says_how_to_record_one(tmp_path):
    path = tmp_path / "none.json"
    with pytest.raises(CassetteError, match=r"does not exist \(record one with Runtime\(record="):
        ReplayModel(str(path))


@pytest.mark.parametrize(
    "content",
    ["[1, 2]", '{"rounds": []}', '{"cassette": "openprogram-jupyter", "version": 1}'],
    ids=["list", "no-mark", "no-rounds"],
)
def test_json_that_is_not_a_cassette_is_refused(tmp_path, content):
    path = tmp_path / "other.json"
    path.write_text(content)
    with pytest.raises(CassetteError, match="is not an openprogram-jupyter cassette"):
        ReplayModel(str(path))


def test_cassette_of_another_version_is_refused(cassette):
    data = json.loads(cassette.read_text())
    data["version"] = 99
    cassette.write_text(json.dumps(data))
    with pytest.raises(CassetteError, match="has version 99; this version reads 1"):
        ReplayModel(str(cassette))


def test_invalid_reply_names_the_round_and_the_field(cassette):
    data = json.loads(cassette.read_text())
    data["rounds"][1]["reply"]["content"][0]["type"] = "video"
    cassette.write_text(json.dumps(data))
    with pytest.raises(CassetteError, match=r"round 2: the reply is not a valid assistant message \(content\.0"):
        ReplayModel(str(cassette))


def test_round_without_a_reply_names_the_round(cassette):
    data = json.loads(cassette.read_text())
    del data["rounds"][0]["reply"]
    cassette.write_text(json.dumps(data))
    with pytest.raises(CassetteError, match=r"round 1: expected an object with a \"reply\" object"):
        ReplayModel(str(cassette))


def test_bad_cassette_error_reaches_exec_as_a_value_error(cassette):
    cassette.write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        op.Runtime(model=f"replay:{cassette}").exec("What is 2 + 3?", tools=tools(add))


# -- drift -----------------------------------------------------------------------------------


def test_replay_with_different_tools_names_the_round_and_the_tools(cassette):
    run = op.Runtime(model=f"replay:{cassette}").run("What is 2 + 3?", tools=tools(add, mul))
    assert run.stop_reason == "error"
    assert str(run.error) == (
        f"replay {cassette}: round 1 drifted from the recording: the tools differ "
        "(recorded [add], now [add, mul]; new now: mul)"
    )


def test_replay_with_a_tool_missing_says_which(cassette):
    run = op.Runtime(model=f"replay:{cassette}").run("What is 2 + 3?", tools=tools(mul))
    assert "missing now: add; new now: mul" in str(run.error)


def test_replay_with_a_different_prompt_says_where_it_differs(cassette):
    run = op.Runtime(model=f"replay:{cassette}").run("What is 2 + 4?", tools=tools(add))
    assert str(run.error) == (
        f"replay {cassette}: round 1 drifted from the recording: the last user message differs "
        "(from character 12: recorded 'What is 2 + 3?', now 'What is 2 + 4?')"
    )


def test_drift_in_a_later_round_names_that_round(cassette):
    data = json.loads(cassette.read_text())
    data["rounds"][1]["request"]["tools"] = ["add", "sub"]
    cassette.write_text(json.dumps(data))
    run = op.Runtime(model=f"replay:{cassette}").run("What is 2 + 3?", tools=tools(add))
    assert run.rounds == 2
    assert f"replay {cassette}: round 2 drifted" in str(run.error)


def test_drift_raises_run_error_from_exec(cassette):
    with pytest.raises(op.RunError, match="round 1 drifted from the recording"):
        op.Runtime(model=f"replay:{cassette}").exec("Something else", tools=tools(add))


def test_asking_for_more_rounds_than_recorded_says_how_many_there_are(cassette):
    rt = op.Runtime(model=f"replay:{cassette}")
    rt.exec("What is 2 + 3?", tools=tools(add))
    run = rt.run("What is 2 + 3?", tools=tools(add))
    assert str(run.error) == (
        f"replay {cassette}: the cassette has 2 round(s) and round 3 was requested — this run "
        "asks the model more often than the recorded one did"
    )


def test_a_masked_secret_in_the_prompt_does_not_count_as_drift(tmp_path):
    path = tmp_path / "run.json"
    key = "sk-live-abcdefghijklmnop"
    op.Runtime(model=op.ScriptedModel(["ok"]), record=path).exec(f"Check {key} works", tools=[])
    assert key not in path.read_text()
    assert op.Runtime(model=f"replay:{path}").exec(f"Check {key} works", tools=[]) == "ok"
