"""Decisions (docs/decisions.md): every shape an option may take, in the dict and the list form."""

from __future__ import annotations

import enum
import json
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_strategies import from_schema

import openprogram_jupyter as op
from openprogram_jupyter.engine._decision_judge import Pick, check_pick
from openprogram_jupyter.tools._decision_options import normalize_options

from .conftest import pick, scripted_runtime

# -- values ------------------------------------------------------------------------------


def test_value_in_a_list_is_named_by_itself_and_returned_as_is():
    rt, _ = scripted_runtime(pick("no"))
    assert rt.exec("Is 9 prime?", choices=["yes", "no"], tools=[]) == "no"


def test_value_in_a_dict_is_returned_as_is():
    verdict = {"score": 3}
    rt, _ = scripted_runtime(pick("keep"))
    assert rt.exec("Keep it?", choices={"keep": verdict, "drop": None}, tools=[]) is verdict


def test_value_option_whose_value_is_none_makes_exec_return_none_not_the_text():
    rt, _ = scripted_runtime(pick("drop"))
    assert rt.exec("Keep it?", choices={"keep": 1, "drop": None}, tools=[]) is None
    assert rt.last_run.decision.option == "drop"


def test_enum_member_in_a_list_is_named_by_its_member_name():
    class Colour(enum.Enum):
        RED = "r"
        BLUE = "b"

    rt, _ = scripted_runtime(pick("BLUE"))
    assert rt.exec("Sky?", choices=list(Colour), tools=[]) is Colour.BLUE


def test_number_value_in_a_list_is_named_by_its_text():
    rt, _ = scripted_runtime(pick("3"))
    assert rt.exec("How many?", choices=[1, 2, 3], tools=[]) == 3


def test_class_in_the_options_is_a_value_not_a_function():
    rt, _ = scripted_runtime(pick("ValueError"))
    assert rt.exec("Which error?", choices={"ValueError": ValueError}, tools=[]) is ValueError


def test_arguments_given_to_a_value_pick_are_ignored():
    rt, _ = scripted_runtime(pick("yes", reason="it is"))
    assert rt.exec("Sure?", choices=["yes", "no"], tools=[]) == "yes"
    assert rt.last_run.decision.arguments == {}


# -- functions ---------------------------------------------------------------------------


def test_function_option_runs_with_the_validated_arguments_and_returns_its_result():
    seen = []

    @op.function(register_globally=False)
    def refund(amount: float, reason: str) -> str:
        """Refund the customer."""
        seen.append((amount, reason))
        return f"refunded {amount}"

    rt, _ = scripted_runtime(pick("refund", amount=12.5, reason="late"))
    assert rt.exec("Handle the ticket", choices={"refund": refund, "ignore": None}, tools=[]) == "refunded 12.5"
    assert seen == [(12.5, "late")]


def test_plain_callable_in_a_list_is_named_by_its_function_name():
    def escalate(team: str) -> str:
        return f"sent to {team}"

    rt, _ = scripted_runtime(pick("escalate", team="billing"))
    assert rt.exec("Route it", choices=[escalate, "close"], tools=[]) == "sent to billing"


def test_plain_callable_in_a_dict_is_named_by_its_key():
    def double(x: int) -> int:
        return 2 * x

    rt, _ = scripted_runtime(pick("double it", x=4))
    assert rt.exec("Go", choices={"double it": double}, tools=[]) == 8


def test_function_option_that_cannot_be_described_is_refused_naming_the_option():
    rt, _ = scripted_runtime(pick("twice", x=4))
    with pytest.raises(TypeError, match=r"choices\['twice'\]: .*'x' has no type annotation"):
        rt.exec("Go", choices={"twice": lambda x: 2 * x}, tools=[])


def test_function_option_returning_none_makes_exec_return_none():
    def noop() -> None:
        return None

    rt, _ = scripted_runtime(pick("noop"))
    assert rt.exec("Go", choices=[noop], tools=[]) is None


async def test_async_function_option_is_awaited():
    async def fetch(key: str) -> str:
        return f"value of {key}"

    model = op.ScriptedModel([pick("fetch", key="k")])
    assert await op.Runtime(model=model).aexec("Go", choices=[fetch], tools=[]) == "value of k"


def test_spec_and_execute_dict_option_runs_execute():
    tool = {
        "spec": {
            "name": "lookup",
            "description": "Look up a word.",
            "parameters": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
        },
        "execute": lambda word: word.upper(),
    }
    rt, _ = scripted_runtime(pick("lookup", word="hi"))
    assert rt.exec("Go", choices=[tool], tools=[]) == "HI"


def test_agentic_function_option_receives_the_runtime_that_decided():
    @op.agentic_function(register_globally=False)
    def delegate(task: str, runtime=None) -> object:
        """Hand the task on."""
        return runtime

    rt, _ = scripted_runtime(pick("delegate", task="x"))
    assert rt.exec("Go", choices=[delegate], tools=[]) is rt


def test_exception_raised_by_a_picked_function_reaches_the_caller():
    def explode() -> None:
        raise KeyError("boom")

    rt, _ = scripted_runtime(pick("explode"))
    with pytest.raises(KeyError, match="boom"):
        rt.exec("Go", choices=[explode], tools=[])


# -- schema options ----------------------------------------------------------------------


def test_schema_option_returns_the_decision_name_and_its_fields():
    rt, _ = scripted_runtime(pick("rate", stars=4, comment="good"))
    result = rt.exec("Rate it", choices={"rate": ("Give a rating.", {"stars": int, "comment": str})}, tools=[])
    assert result == {"decision": "rate", "stars": 4, "comment": "good"}


def test_nested_schema_option_with_a_list_of_strings():
    options = {"plan": ("Make a plan.", {"steps": [str], "why": str}), "give_up": None}
    rt, _ = scripted_runtime(pick("plan", steps=["read", "write"], why="it is short"))
    assert rt.exec("Plan the essay", choices=options, tools=[]) == {
        "decision": "plan",
        "steps": ["read", "write"],
        "why": "it is short",
    }


def test_schema_option_with_nested_objects_returns_plain_dicts():
    options = {"plan": ("Make a plan.", {"steps": [{"title": str, "done": bool}], "owner": {"name": str}})}
    rt, _ = scripted_runtime(pick("plan", steps=[{"title": "a", "done": False}], owner={"name": "Ada"}))
    result = rt.exec("Plan", choices=options, tools=[])
    assert result == {"decision": "plan", "steps": [{"title": "a", "done": False}], "owner": {"name": "Ada"}}
    assert type(result["owner"]) is dict


def test_schema_option_accepts_typing_annotations():
    options = {"label": ("Label it.", {"kind": Literal["bug", "feature"], "scores": list[int]})}
    rt, _ = scripted_runtime(pick("label", kind="bug", scores=[1, 2]))
    assert rt.exec("Label", choices=options, tools=[]) == {"decision": "label", "kind": "bug", "scores": [1, 2]}


def test_schema_field_descriptions_reach_the_menu_and_the_schema():
    options = {
        "plan": (
            "Make a plan.",
            {"why": (str, "the reason, in one sentence"), "inner": {"x": (int, "an inner number")}},
        )
    }
    menu = op.decision.render_menu(options)
    assert "- why: the reason, in one sentence" in menu
    rt, model = scripted_runtime(pick("plan", why="w", inner={"x": 1}))
    rt.exec("Plan", choices=options, tools=[])
    assert "the reason, in one sentence" in model.requests[0].messages[0].text


# -- the menu and the work before the pick ---------------------------------------------


def test_registered_function_option_is_left_off_the_work_menu():
    @op.function
    def approve() -> str:
        """Approve."""
        return "ok"

    @op.function
    def read_ticket() -> str:
        """Read the ticket."""
        return "ticket"

    rt, model = scripted_runtime(pick("approve"))
    assert rt.exec("Decide", choices=[approve, "reject"]) == "ok"
    assert [spec["name"] for spec in model.requests[0].tools] == ["read_ticket"]


def test_explicit_tools_list_keeps_a_function_option_on_the_work_menu():
    @op.function
    def approve() -> str:
        """Approve."""
        return "ok"

    rt, model = scripted_runtime(pick("approve"))
    rt.exec("Decide", choices=[approve], tools=[approve])
    assert [spec["name"] for spec in model.requests[0].tools] == ["approve"]


def test_tools_stay_usable_before_the_decision():
    looked_up = []

    @op.function(register_globally=False)
    def weather(city: str) -> str:
        """Today's weather."""
        looked_up.append(city)
        return "rain"

    rt, _ = scripted_runtime(
        op.ToolCall(name="weather", arguments={"city": "Oslo"}), "It rains, so: " + pick("umbrella")
    )
    assert rt.exec("Umbrella?", tools=[weather], choices=["umbrella", "sunglasses"]) == "umbrella"
    assert looked_up == ["Oslo"]
    assert [m.role for m in rt.last_run.messages] == ["user", "assistant", "toolResult", "assistant"]


def test_run_with_choices_returns_the_run_with_result_and_decision():
    rt, _ = scripted_runtime(pick("b"))
    run = rt.run("Pick", choices=["a", "b"], tools=[])
    assert run.result == "b"
    assert run.decision == op.decision.Decision(option="b", arguments={}, value="b", attempts=1)
    assert rt.last_run is run


def test_user_on_event_listener_still_sees_every_event():
    seen = []
    rt, _ = scripted_runtime(pick("a"))
    rt.exec("Pick", choices=["a"], tools=[], on_event=lambda e: seen.append(e.type))
    assert seen == [e.type for e in rt.last_run.events]  # every event, in order, none held back


# -- bad options, refused before anything runs --------------------------------------------


@pytest.mark.parametrize(
    ("choices", "error", "words"),
    [
        ([], ValueError, "at least one option"),
        ({}, ValueError, "at least one option"),
        (["a", "a"], ValueError, "two options are named 'a'"),
        ("yes", TypeError, "dict {name: option} or a list"),
        ([("Plan.", {"steps": [str]})], TypeError, "needs a name"),
        ({"plan": ("Plan.", {"steps": "str"})}, TypeError, "'plan.steps' is the string 'str'"),
        ({"plan": ("Plan.", {"steps": [str, int]})}, TypeError, "one item type"),
        ({"plan": ("Plan.", {})}, TypeError, "has no fields"),
        ({"plan": ("Plan.", {"my-field": str})}, TypeError, "'my-field' must be a Python identifier"),
        ({"plan": ("Plan.", {"when": object()})}, TypeError, "'plan.when'"),
        ({"": 1}, TypeError, "non-empty one-line strings"),
        ([lambda: 1], TypeError, "dict form"),
    ],
)
def test_bad_choices_are_refused_before_the_model_is_asked(choices, error, words):
    rt, model = scripted_runtime(pick("a"))
    with pytest.raises(error) as raised:
        rt.exec("Pick", choices=choices, tools=[])
    assert words in str(raised.value)
    assert model.requests == []


# -- schema options: what the model is shown is what is accepted --------------------------

_field_names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
    lambda n: n not in ("if", "in", "is", "or", "as")
)
_field_types = st.recursive(
    st.sampled_from([str, int, float, bool]),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=1) | st.dictionaries(_field_names, inner, min_size=1, max_size=3)
    ),
    max_leaves=6,
)
_schemas = st.dictionaries(_field_names, _field_types, min_size=1, max_size=4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=_schemas, data=st.data())
def test_any_arguments_fitting_a_schema_options_shown_schema_are_accepted_as_given(schema, data):
    option = normalize_options({"choose": ("Choose.", schema)})[0]
    arguments = data.draw(from_schema(option.parameters))
    picked, validated = check_pick(Pick("choose", arguments), [option])
    assert picked is option
    assert validated == arguments


@settings(max_examples=40, deadline=None)
@given(schema=_schemas)
def test_a_schema_options_call_example_is_always_accepted(schema):
    menu = op.decision.render_menu({"choose": ("Choose.", schema)})
    example = json.loads(op.decision.example_pick(menu))
    check_pick(Pick(example["call"], example["args"]), normalize_options({"choose": ("Choose.", schema)}))
