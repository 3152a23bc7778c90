"""Cassettes that are built to hurt: nested thousands deep, a drift check an adversary
could make slow, and calls to tools the run does not offer (docs/faults.md, "Cassettes")."""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.core.errors import CassetteError
from openprogram_jupyter.models.replay import MAX_NESTING, ReplayModel, _same_text

from .conftest import add, tools

LINEAR_BOUND = 5.0  # seconds: a linear check takes milliseconds, the old one did not finish in minutes


def edit(path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))


# -- nested thousands deep ----------------------------------------------------------------


def _nest_arguments(cassette, opener: str, closer: str, depth: int) -> None:
    text = cassette.read_text()
    assert '"a": 2' in text
    cassette.write_text(text.replace('"a": 2', '"a": ' + opener * depth + closer * depth, 1))


@pytest.mark.parametrize(("opener", "closer"), [("[", "]"), ('{"x": ', "}")], ids=["arrays", "objects"])
def test_arguments_nested_5000_deep_are_a_cassette_error_not_a_recursion_error(cassette, opener, closer):
    _nest_arguments(cassette, opener, closer, 5000)
    with pytest.raises(
        CassetteError,
        match=r"nests 5,00\d levels deep \(from line \d+ column \d+\); "
        rf"a cassette may nest at most {MAX_NESTING}",
    ):
        ReplayModel(str(cassette))


def test_a_deep_cassette_fails_exec_with_a_cassette_error(cassette):
    _nest_arguments(cassette, "[", "]", 5000)
    with pytest.raises(CassetteError, match="levels deep"):
        op.Runtime(model=f"replay:{cassette}").exec("What is 2 + 3?", tools=tools(add))


def test_a_file_that_is_only_brackets_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "brackets.json"
    path.write_text("[" * 100_000)  # not even valid JSON: the depth is what is wrong first
    with pytest.raises(CassetteError, match=r"nests 100,000 levels deep \(from line 1 column 101\)"):
        ReplayModel(str(path))


def test_nesting_that_python_could_read_but_past_the_limit_is_refused_too(cassette):
    _nest_arguments(cassette, "[", "]", MAX_NESTING)  # about 100 + the file's own 7 levels
    with pytest.raises(CassetteError, match="levels deep"):
        ReplayModel(str(cassette))


def test_moderately_nested_arguments_and_brackets_inside_strings_replay(cassette, tmp_path):
    nested = json.loads("[" * 40 + "]" * 40)
    path = tmp_path / "ok.json"
    prompt = "Brackets in text are not nesting: " + "[{" * 5000
    script = [op.ToolCall(name="add", arguments={"a": 1, "b": 2, "deep": nested}), "ok"]

    def add_deep(a: int, b: int, deep: list) -> int:
        """Add two integers."""
        return a + b

    add_tool = op.function(add_deep, name="add", register_globally=False)
    op.Runtime(model=op.ScriptedModel(script), record=path).exec(prompt, tools=[add_tool])
    assert op.Runtime(model=f"replay:{path}").exec(prompt, tools=[add_tool]) == "ok"


# -- the drift check is linear --------------------------------------------------------------


def test_a_prompt_with_many_masks_is_compared_in_linear_time(cassette):
    recorded = "a***" * 50 + "a" * 20_000 + "b"  # the old regex backtracked without end on this
    edit(cassette, lambda data: data["rounds"][0]["request"].update(last_user_text=recorded))
    started = time.monotonic()
    run = op.Runtime(model=f"replay:{cassette}").run("a" * 20_100, tools=tools(add))
    took = time.monotonic() - started
    assert took < LINEAR_BOUND, f"the drift check took {took:.1f} s"
    assert run.stop_reason == "error" and "round 1 drifted from the recording: the last user message" in str(run.error)


def test_a_long_prompt_with_many_masks_still_matches_what_they_hid(cassette):
    pieces = [f"part {i} " + "x" * 200 for i in range(100)]
    recorded = "***".join(pieces)  # 99 masked secrets between 20,000+ characters of text
    now = "".join(piece + f"sk-secret-{i}" for i, piece in enumerate(pieces[:-1])) + pieces[-1]
    edit(cassette, lambda data: [entry["request"].update(last_user_text=recorded) for entry in data["rounds"]])
    started = time.monotonic()
    assert op.Runtime(model=f"replay:{cassette}").exec(now, tools=tools(add)) == "It is 5."
    assert time.monotonic() - started < LINEAR_BOUND


@given(st.text("ab*", max_size=12), st.text("ab", max_size=12))
def test_masks_match_exactly_what_the_old_pattern_matched(recorded, now):
    pattern = ".*?".join(re.escape(part) for part in recorded.split("***"))
    assert _same_text(recorded, now) == (re.fullmatch(pattern, now, re.DOTALL) is not None)


# -- a cassette calls only the run's own tools ----------------------------------------------


def test_a_call_to_a_tool_not_on_the_menu_is_refused_naming_the_tool_and_the_round(cassette):
    ran: list[str] = []

    @op.function  # registered globally: reachable by name, but not on this run's menu
    def wipe_disk() -> str:
        """Delete everything."""
        ran.append("wipe_disk")
        return "gone"

    edit(cassette, lambda data: data["rounds"][0]["reply"]["content"][0].update(name="wipe_disk"))
    run = op.Runtime(model=f"replay:{cassette}").run("What is 2 + 3?", tools=tools(add))
    assert ran == []
    assert run.stop_reason == "error"
    assert str(run.error) == (
        f"replay {cassette}: round 1 calls the tool 'wipe_disk', not on this run's menu [add]; "
        "a cassette may call only the run's own tools, so nothing of this round was played"
    )
    assert not [m for m in run.messages if m.role == "toolResult" and m.status == "done"]


def test_a_refused_call_in_a_later_round_names_that_round_and_earlier_rounds_ran(cassette):
    calls: list[tuple[int, int]] = []

    def add_counted(a: int, b: int) -> int:
        """Add two integers."""
        calls.append((a, b))
        return a + b

    def second_round(data):
        data["rounds"][1]["reply"]["content"] = [
            {"type": "toolCall", "id": "c2", "name": "rm", "arguments": {"path": "/"}},
            {"type": "toolCall", "id": "c3", "name": "curl", "arguments": {}},
        ]
        data["rounds"][1]["request"] = {}  # no recorded request: nothing to compare, still refused

    edit(cassette, second_round)
    run = op.Runtime(model=f"replay:{cassette}").run(
        "Any prompt at all", tools=[op.function(add_counted, name="add", register_globally=False)]
    )
    assert calls == [], "round 1 drifted (another prompt): nothing ran"
    run = op.Runtime(model=f"replay:{cassette}").run(
        "What is 2 + 3?", tools=[op.function(add_counted, name="add", register_globally=False)]
    )
    assert calls == [(2, 3)]
    assert f"replay {cassette}: round 2 calls the tools 'rm', 'curl', not on this run's menu [add]" in str(run.error)
