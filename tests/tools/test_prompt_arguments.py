"""The offline model's arguments read from the prompt: what it takes, in which order, and
that what it produces always fits the tool's schema."""

from __future__ import annotations

import enum
from typing import Literal

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.tools.prompt_arguments import PromptValues, arguments_from_prompt


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def tool(fn):
    return op.function(fn, register_globally=False)


@tool
def add(a: float, b: float) -> float:
    """Add."""
    return a + b


@tool
def repeat(text: str, times: int, loud: bool = False) -> str:
    """Repeat."""
    return text * times


@tool
def paint(color: Color, sort: Literal["relevance", "year"] = "relevance", note: str | None = None) -> str:
    """Paint."""
    return color.value


def fill(prompt: str, *tools) -> list[dict]:
    values = PromptValues.read(prompt)
    return [arguments_from_prompt(t.spec["parameters"], values) for t in tools]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("What is 2 + 3?", {"a": 2, "b": 3}),
        ("Add 1.5 and -2.25.", {"a": 1.5, "b": -2.25}),
        ("Add 7", {"a": 7, "b": 1.5}),  # the rest from the examples
        ("No numbers here.", {"a": 1.5, "b": 1.5}),
    ],
)
def test_numbers_are_taken_in_parameter_order(prompt, expected):
    assert fill(prompt, add) == [expected]


def test_a_quoted_string_an_integer_and_a_boolean_word():
    assert fill('Say "hi there" 2.5 then 3 times, true', repeat) == [{"text": "hi there", "times": 3, "loud": True}]


def test_enum_words_match_case_insensitively_and_optional_parameters_stay_out_when_nothing_fits():
    assert fill("Paint it BLUE, newest by year", paint) == [{"color": "blue", "sort": "year"}]
    assert fill("Paint it", paint) == [{"color": "red"}]


def test_a_value_is_used_once_across_the_tools_of_a_round():
    assert fill('What is 2 + 3, and repeat "ab" 4 times?', add, repeat) == [
        {"a": 2, "b": 3},
        {"text": "ab", "times": 4},
    ]


def test_numbers_inside_words_and_versions_are_not_arguments():
    assert PromptValues.read("Use gpt4 on v1.2.3 then 5").numbers == [5]


@settings(max_examples=200, deadline=None)
@given(prompt=st.text(max_size=80))
def test_whatever_the_prompt_the_arguments_fit_the_schema(prompt):
    for t, arguments in zip((add, repeat, paint), fill(prompt, add, repeat, paint), strict=True):
        jsonschema.validate(arguments, t.spec["parameters"])
        t.validate(dict(arguments))


@tool
def plot_squares(n: int) -> str:
    """Plot the squares of 0 to n."""
    return "plotted"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Plot the squares of the numbers 0 to 5", {"n": 5}),  # gave n=0
        ("Plot squares up to 7.", {"n": 7}),
        ("Squares from 2 through 9, please", {"n": 9}),
        ("Plot 4 squares", {"n": 4}),  # no range: the first number
        ("What is 5 - 3?", {"n": 5}),  # a minus is no range
    ],
)
def test_a_lone_number_parameter_takes_the_end_of_a_stated_range(prompt, expected):
    assert fill(prompt, plot_squares) == [expected]


def test_two_number_parameters_still_take_a_range_in_order():
    assert fill("Add the numbers 0 to 5", add) == [{"a": 0, "b": 5}]
