"""Decisions (docs/decisions.md): the menu rendered into the prompt, and reading the pick from the reply."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.lab.decision import Pick, parse_pick, render_menu

from .conftest import pick, scripted_runtime


def refund(amount: float, reason: str = "none given") -> str:
    """Refund the customer.

    Args:
        amount: Dollars to give back.
    """
    return "ok"


OPTIONS = {
    "refund": refund,
    "close": "closed",
    "plan": ("Plan the follow-up.", {"steps": [str], "why": str}),
}


# -- the menu ------------------------------------------------------------------------------


def test_menu_has_one_entry_per_option_with_signature_description_and_call_example():
    menu = render_menu(OPTIONS)
    assert '1. refund(amount: number, reason: string = "none given")' in menu
    assert "   Refund the customer." in menu
    assert "   - amount: Dollars to give back." in menu
    assert '   Call: {"call": "refund", "args": {"amount": 1.5}}' in menu
    assert '2. close\n   Means: "closed"\n' in menu
    assert '   Call: {"call": "close", "args": {}}' in menu
    assert "3. plan(steps: [string], why: string)" in menu
    assert '   Call: {"call": "plan", "args": {"steps": ["example"], "why": "example"}}' in menu
    assert menu.count("Call: ") == 3


def test_value_option_shows_its_value_only_when_short_text_or_a_number():
    menu = render_menu({"yes": "yes", "later": 3, "keep": {"a": 1}, "none": None, "long": "x" * 121})
    assert menu.count("Means:") == 1 and "Means: 3" in menu


def test_menu_names_the_answer_format_and_every_option():
    menu = render_menu(OPTIONS)
    assert '{"call": "<option>", "args": {...}}' in menu
    assert "The options are: refund, close, plan." in menu


@pytest.mark.parametrize("name", list(OPTIONS))
def test_every_call_example_in_the_menu_is_a_valid_pick(name):
    example = next(line for line in render_menu(OPTIONS).splitlines() if f'"call": "{name}"' in line)
    rt, _ = scripted_runtime(example.strip()[len("Call: ") :])
    rt.exec("Pick", choices=OPTIONS, tools=[])
    assert rt.last_run.decision.option == name


def test_menu_is_appended_to_the_prompt_the_model_receives():
    rt, model = scripted_runtime(pick("close"))
    rt.exec("Handle ticket 7.", choices=OPTIONS, tools=[])
    prompt = model.requests[0].messages[0].text
    assert prompt == "Handle ticket 7.\n\n" + render_menu(OPTIONS, work_first=False)


def test_exec_with_tools_says_the_model_may_work_first():
    @op.function(register_globally=False)
    def lookup() -> str:
        return "x"

    rt, model = scripted_runtime(pick("close"))
    rt.exec("Handle it.", choices=OPTIONS, tools=[lookup])
    assert "use your tools if they help" in model.requests[0].messages[0].text


def test_make_asks_for_a_pick_straight_away_with_no_tools():
    rt, model = scripted_runtime(pick("close"))
    assert op.decision.make("Handle it.", OPTIONS, runtime=rt) == "closed"
    assert model.requests[0].tools == []
    assert "Choose exactly one of the options below." in model.requests[0].messages[0].text


def test_menu_is_appended_to_a_user_message_prompt():
    rt, model = scripted_runtime(pick("close"))
    rt.exec(op.UserMessage(content="Handle it."), choices=OPTIONS, tools=[])
    assert model.requests[0].messages[0].text.startswith("Handle it.\n\nChoose exactly one")


# -- reading the pick ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '{"call": "refund", "args": {"amount": 3}}',
        'I will refund.\n```json\n{"call": "refund", "args": {"amount": 3}}\n```',
        'Done.\n```\n{"call": "refund", "args": {"amount": 3}}\n```\nThanks.',
        'My choice: {"call": "refund", "args": {"amount": 3}} — final.',
    ],
    ids=["bare", "fenced-json", "fenced-plain", "inline"],
)
def test_pick_is_read_bare_or_fenced(reply):
    assert parse_pick(reply) == Pick("refund", {"amount": 3})


@pytest.mark.parametrize("key", ["action", "function", "tool"])
def test_aliases_of_call_are_accepted(key):
    assert parse_pick(json.dumps({key: "close", "args": {}})) == Pick("close", {})


def test_arguments_is_accepted_for_args_and_missing_args_mean_none():
    assert parse_pick('{"call": "refund", "arguments": {"amount": 1}}') == Pick("refund", {"amount": 1})
    assert parse_pick('{"call": "close"}') == Pick("close", {})


def test_function_object_with_a_name_is_read_as_the_option_name():
    assert parse_pick('{"function": {"name": "close"}, "args": {}}') == Pick("close", {})


def test_other_json_objects_in_the_reply_are_not_picks():
    reply = 'The data was {"total": 3}.\n{"call": "close", "args": {}}'
    assert parse_pick(reply) == Pick("close", {})


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("", "the reply has no text"),
        ("I would close it.", "no pick found"),
        ('{"call": "refund", "args": {"amount": 3,}}', "malformed JSON"),
        ('{"call": "refund", "args": {"amount": 3', "ends early"),
        ('{"call": "close"} or {"call": "refund"}', "two picks"),
        ('{"call": 7}', 'the "call" value must be the option name as a string'),
        ('{"call": "close", "args": [1]}', '"args" must be a JSON object'),
    ],
    ids=["empty", "prose", "malformed", "truncated", "two-picks", "name-not-string", "args-not-object"],
)
def test_unusable_reply_is_refused_naming_the_problem(reply, words):
    with pytest.raises(ValueError, match=words):
        parse_pick(reply)


def test_malformed_json_error_quotes_where_it_broke():
    with pytest.raises(ValueError) as raised:
        parse_pick('Here: {"call": "refund" "args": {}}')
    assert "line 1 column" in str(raised.value)
    assert '{"call": "refund" "args"' in str(raised.value)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)


@given(
    name=st.text(min_size=1, max_size=20),
    arguments=st.dictionaries(st.text(max_size=8), _json_values, max_size=4),
    before=st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=30),
    after=st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=30),
    fenced=st.booleans(),
)
def test_any_pick_written_among_prose_is_read_back_exactly(name, arguments, before, after, fenced):
    body = json.dumps({"call": name, "args": arguments})
    if fenced:
        body = f"```json\n{body}\n```"
    assert parse_pick(f"{before}\n{body}\n{after}") == Pick(name, arguments)
