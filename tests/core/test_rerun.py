"""run.rerun(): the recorded replies played back while the tools run again, until a round's
results part from the recording — then the rerun stops there, or goes on live."""

from __future__ import annotations

import pickle

import pytest
from fakeserver import Call, FakeServer, Turn

import openprogram_jupyter as op

from .conftest import call

RAN: list[str] = []


def define_find_city(answers: dict[str, str] | None = None, *, doc: str = "Look a city up."):
    answers = answers or {}

    def find_city(city: str) -> str:
        RAN.append(city)
        return answers.get(city, city.upper())

    find_city.__doc__ = doc
    return op.function(find_city)


PROMPT = "Find Paris, Lyon and Nice."
SCRIPT = [call("find_city", city="paris"), call("find_city", city="lyon"), call("find_city", city="nice"), "Done."]


@pytest.fixture
def recorded():
    """A four-round run: three look-ups, then the answer."""
    RAN.clear()
    define_find_city()
    model = op.ScriptedModel(list(SCRIPT))
    run = op.Runtime(model=model).run(PROMPT)
    assert run.rounds == 4 and RAN == ["paris", "lyon", "nice"]
    RAN.clear()
    return run, model


def test_unchanged_tools_follow_the_recording_to_its_end_without_a_model_request(recorded):
    run, model = recorded
    again = run.rerun()
    assert len(model.requests) == 4  # the four of the original run: none more
    assert RAN == ["paris", "lyon", "nice"]  # the tools did run again
    assert again.divergence is None and again.stop_reason == "stop"
    assert again.rounds == 4 and again.text == "Done."


def test_a_changed_result_in_round_3_is_where_the_rerun_stops(recorded):
    run, model = recorded
    define_find_city({"nice": "NIZZA"})
    again = run.rerun()
    assert len(model.requests) == 4
    assert RAN == ["paris", "lyon", "nice"]
    assert again.stop_reason == "diverged" and again.rounds == 3
    found = again.divergence
    assert found is not None and found.round == 3 and found.tool_name == "find_city"
    assert found.arguments == {"city": "nice"}
    assert found.recorded.text == "NICE" and found.now.text == "NIZZA"
    assert found.why == "find_city returned a different result"
    assert [m.text for m in again.tool_results] == ["PARIS", "LYON", "NIZZA"]


def test_an_edit_that_keeps_the_results_is_no_divergence(recorded):
    run, model = recorded
    define_find_city(doc="Look a city up by its name (a new docstring, the same results).")
    again = run.rerun()
    assert again.divergence is None and again.stop_reason == "stop" and len(model.requests) == 4


def test_tools_given_replace_the_tools_of_the_same_name(recorded):
    run, _ = recorded

    def find_city(city: str) -> str:
        """Look a city up."""
        return "same for all"

    again = run.rerun(tools=[find_city])
    assert again.divergence.round == 1 and again.divergence.now.text == "same for all"
    assert RAN == []  # the registered find_city did not run


def test_a_recorded_call_that_no_longer_fits_the_schema_diverges_with_the_validation_error(recorded):
    run, _ = recorded

    @op.function
    def find_city(place: str) -> str:  # the parameter renamed: {"city": ...} no longer fits
        """Look a city up."""
        return place.upper()

    again = run.rerun()
    found = again.divergence
    assert found.round == 1 and found.now.is_error and not found.recorded.is_error
    assert found.why.startswith("the recorded arguments no longer fit find_city's schema: ")
    assert "place" in found.why and again.stop_reason == "diverged"


def test_a_tool_that_fails_now_says_so(recorded):
    run, _ = recorded

    @op.function
    def find_city(city: str) -> str:
        """Look a city up."""
        if city == "lyon":
            raise LookupError("no such city")
        return city.upper()

    found = run.rerun().divergence
    assert found.round == 2 and found.why == "find_city failed now; in the recording it succeeded"


def test_a_result_that_reads_the_same_but_failed_in_the_recording_diverges(recorded):
    run, _ = recorded
    index = next(i for i, m in enumerate(run.messages) if m.role == "toolResult" and m.text == "LYON")
    run.messages[index] = run.messages[index].model_copy(update={"is_error": True})
    found = run.rerun().divergence
    assert found.round == 2 and found.why == "find_city succeeded now; in the recording it failed"


def test_live_asks_the_model_only_after_the_divergence_and_only_once(recorded):
    run, model = recorded
    define_find_city({"lyon": "LUGDUNUM", "nice": "NIKAIA"})
    live = op.ScriptedModel([call("find_city", city="nice"), "Paris, Lugdunum, Nikaia."])
    again = run.rerun(live=True, runtime=op.Runtime(model=live))
    assert len(model.requests) == 4 and len(live.requests) == 2  # rounds 3 and 4
    sent = [m.text for m in live.requests[0].messages if m.role == "toolResult"]
    assert sent == ["PARIS", "LUGDUNUM"]  # the new round-2 result is what the model reads
    assert again.divergence.round == 2  # round 3's different result is not a second divergence
    assert again.stop_reason == "stop" and again.text == "Paris, Lugdunum, Nikaia."
    assert sum(e.type == "divergence" for e in again.events) == 1


@pytest.mark.parametrize("cap", [3, 10], ids=["the answer round at the new cap", "a round like any"])
def test_a_recording_that_ends_before_the_rerun_does_is_a_divergence(cap):
    RAN.clear()
    define_find_city()
    model = op.ScriptedModel(list(SCRIPT))
    run = op.Runtime(model=model).run(PROMPT, max_iterations=2, finish_at_limit=False)
    assert run.stop_reason == "max_iterations" and run.rounds == 2
    again = run.rerun(max_iterations=cap, finish_at_limit=True)
    assert again.stop_reason == "diverged" and again.rounds == 2
    assert again.divergence.round == 2 and again.divergence.tool_name is None
    assert "the recording ends after round 2" in again.divergence.why
    assert len(model.requests) == 2


def test_the_answer_round_at_a_limit_is_played_back_too():
    RAN.clear()
    define_find_city()
    model = op.ScriptedModel([*SCRIPT[:2], "Paris and Lyon."])
    run = op.Runtime(model=model).run(PROMPT, max_iterations=3)
    assert run.stop_reason == "max_iterations" and run.rounds == 3
    again = run.rerun()
    assert len(model.requests) == 3 and again.divergence is None
    assert again.stop_reason == "max_iterations" and again.text == "Paris and Lyon."


def test_the_messages_the_recording_delivered_are_delivered_again():
    define_find_city()
    follow_ups = [["And Lille?"]]
    model = op.ScriptedModel([call("find_city", city="paris"), "Paris.", call("find_city", city="lille"), "Lille."])
    run = op.Runtime(model=model).run(PROMPT, get_follow_up_messages=lambda: follow_ups.pop() if follow_ups else [])
    assert run.rounds == 4
    again = run.rerun()
    assert again.divergence is None and again.rounds == 4 and again.text == "Lille."
    assert [m.text for m in again.messages if m.role == "user"] == [PROMPT, "And Lille?"]
    assert len(model.requests) == 4


def test_the_transcripts_show_both_results_and_where_it_stopped(recorded):
    run, _ = recorded
    define_find_city({"nice": "<b>NIZZA</b>"})
    again = run.rerun()
    html, markdown, plain = again._repr_html_(), again._repr_markdown_(), repr(again)
    for text in (html, markdown, plain):
        assert "differs from the recording" in text
        assert "round 3 (find_city): find_city returned a different result" in text
    assert "&lt;b&gt;NIZZA&lt;/b&gt;" in html and "<b>NIZZA" not in html
    assert "<th" in html and ">recorded</th>" in html and ">this rerun</th>" in html
    assert "recorded result:" in markdown and "NICE" in markdown
    assert "recorded result:" in plain and "NICE" in plain
    assert plain.count("no model request") == 3  # each played-back round says so


def test_a_run_without_rounds_cannot_be_rerun():
    run = op.Run("run_empty", "scripted", [])
    with pytest.raises(op.SetupError, match="no prompt"):
        run.rerun(runtime=op.Runtime(model=op.ScriptedModel([])))
    run.messages = [op.UserMessage(content="hi")]
    with pytest.raises(op.SetupError, match="no recorded round"):
        run.rerun(runtime=op.Runtime(model=op.ScriptedModel([])))


def test_same_decides_what_counts_as_the_same_result(recorded):
    run, _ = recorded
    define_find_city({"nice": "NICE (checked 12:04)"})
    assert run.rerun().divergence.round == 3
    followed = run.rerun(same=lambda recorded, now: now.text.startswith(recorded.text))
    assert followed.divergence is None and followed.stop_reason == "stop"
    strict = run.rerun(same=lambda recorded, now: False)
    assert strict.divergence.round == 1 and strict.divergence.why == "find_city returned a different result"


def test_a_same_that_raises_is_a_divergence_saying_so(recorded):
    run, _ = recorded

    def same(recorded, now):
        raise KeyError("score")

    found = run.rerun(same=same).divergence
    assert found.round == 1 and found.why == "same(recorded, now) raised KeyError: 'score'"
    with pytest.raises(op.SetupError, match="same must be a function"):
        run.rerun(same="text")


def test_live_must_be_a_bool(recorded):
    run, _ = recorded
    with pytest.raises(op.SetupError, match="live must be True or False"):
        run.rerun(live="yes")


def test_a_divergence_survives_pickling(recorded):
    run, _ = recorded
    define_find_city({"paris": "PARIGI"})
    again = pickle.loads(pickle.dumps(run.rerun()))
    assert again.divergence.round == 1 and again.divergence.now.text == "PARIGI"


def test_rerun_all_tables_which_runs_break_and_where(recorded):
    run, _ = recorded
    other = op.Runtime(model=op.ScriptedModel([call("find_city", city="nice"), "Nice."])).run("Find Nice.")
    define_find_city({"nice": "NIZZA"})
    report = op.rerun_all({"three cities": run, "nice only": other, "first again": run})
    assert [row.label for row in report] == ["three cities", "nice only", "first again"]
    assert [row.divergence.round for row in report] == [3, 1, 3]
    assert len(report.diverged) == 3
    define_find_city()
    report = op.rerun_all([run, other])
    assert report.diverged == [] and [row.label for row in report] == [run.run_id, other.run_id]
    assert "0 of 2 run(s) diverged" in repr(report) and "no divergence" in report._repr_html_()


def test_rerun_all_names_what_is_not_a_run(recorded):
    run, _ = recorded
    with pytest.raises(TypeError, match=r"runs\['b'\] holds a str, not a Run"):
        op.rerun_all({"a": run, "b": "run_1"})


# -- against a real client, counted at the loopback server --------------------------------


def _city_turns(*cities: str) -> list[Turn]:
    return [Turn(calls=[Call("find_city", {"city": city})]) for city in cities]


def test_over_the_wire_a_rerun_sends_nothing_and_live_sends_only_from_the_divergence():
    RAN.clear()
    define_find_city()
    with FakeServer() as server:
        server.script(*_city_turns("paris", "lyon", "nice"), Turn(text="Done."))
        runtime = op.Runtime(model="openai:gpt-4.1-mini", api_key="sk-test-not-real", base_url=server.openai_base_url)
        run = runtime.run(PROMPT)
        assert run.rounds == 4 and len(server.requests) == 4

        same = run.rerun()
        assert same.divergence is None and len(server.requests) == 4

        define_find_city({"nice": "NIZZA"})
        stopped = run.rerun()
        assert stopped.divergence.round == 3 and len(server.requests) == 4
        assert (stopped.divergence.recorded.text, stopped.divergence.now.text) == ("NICE", "NIZZA")

        server.script(Turn(text="Paris, Lyon and Nizza."))
        live = run.rerun(live=True)
        assert len(server.requests) == 5 and live.text == "Paris, Lyon and Nizza."
        results = [m["content"] for m in server.requests[4].body["messages"] if m["role"] == "tool"]
        assert results == ["PARIS", "LYON", "NIZZA"]  # the one request is round 4's, after the new result


# -- what mutmut found unpinned in engine/rerun.py (docs/testing.md, "Mutation tool") --------


def test_a_bad_live_or_same_is_refused_naming_it(recorded):
    run, _ = recorded
    with pytest.raises(op.SetupError) as live:
        run.rerun(live="yes")
    assert (live.value.option, str(live.value)) == ("live", "rerun: live must be True or False, got 'yes'")
    with pytest.raises(op.SetupError) as same:
        run.rerun(same=3)
    assert (same.value.option, str(same.value)) == (
        "same",
        "rerun: same must be a function (recorded, now) -> bool, got 3",
    )


def test_rerun_all_given_a_runtime_and_live_asks_that_runtime_s_model_after_a_divergence(recorded):
    run, _ = recorded
    define_find_city({"nice": "NIZZA"})  # registered now: round 3 reads differently
    later = op.ScriptedModel(["Found the three."])
    [row] = op.rerun_all([run], runtime=op.Runtime(model=later), live=True)
    assert row.original is run and row.divergence.round == 3
    assert len(later.requests) == 1 and row.rerun.text == "Found the three."


def test_rerun_all_given_tools_reruns_with_them(recorded):
    run, _ = recorded
    unchanged = define_find_city()
    define_find_city({"nice": "NIZZA"})  # registered now; the tools given win
    [row] = op.rerun_all([run], tools=[unchanged])
    assert row.divergence is None and RAN == ["paris", "lyon", "nice"]


def test_rerun_all_of_a_list_names_the_position_of_what_is_not_a_run(recorded):
    run, _ = recorded
    with pytest.raises(TypeError) as refused:
        op.rerun_all([run, 3])
    assert str(refused.value) == "rerun_all: runs holds a int, not a Run"


def test_each_replayed_reply_of_a_rerun_names_the_run_it_came_from(recorded):
    run, _ = recorded
    again = run.rerun()
    notices = [e.update.delta for e in again.events if e.type == "message_update" and e.update.kind == "notice"]
    assert notices == [f"rerun of {run.run_id}: the recorded reply (no model request); its calls ran again"] * 4
