"""@function under ``from __future__ import annotations``: every annotation is a string."""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import Annotated, Literal, Optional

import pytest
import typing_extensions
from pydantic import BaseModel, Field

import openprogram_jupyter as op
from openprogram_jupyter.tools import SchemaError, ToolContext

from .conftest import props


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Box(BaseModel):
    corner: Point
    label: Optional[str] = None  # noqa: UP045 - the string names typing.Optional


class Query(typing_extensions.TypedDict):
    text: str


class StdlibQuery(typing.TypedDict):
    text: str


class Counter:
    def __init__(self) -> None:
        self.total = 0

    def add(self, amount: int, note: Optional[str] = None) -> int:  # noqa: UP045 - the string names typing.Optional
        """Add to the total.

        Args:
            amount: How much.
            note: Why.
        """
        self.total += amount
        return self.total


def test_string_annotations_give_the_same_schema_as_real_ones():
    @op.function
    def f(
        n: int,
        ratio: float,
        mode: Mode,
        kind: Literal["a", "b"],
        points: list[Point],
        counts: dict[str, int],
        pair: tuple[int, str],
        maybe: Optional[int] = None,  # noqa: UP045 - the string names typing.Optional
    ) -> str:
        """F."""

    assert props(f) == {
        "n": {"type": "integer"},
        "ratio": {"type": "number"},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "kind": {"type": "string", "enum": ["a", "b"]},
        "points": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                "required": ["x"],
                "additionalProperties": False,
            },
        },
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "pair": {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    }
    assert f.spec["parameters"]["required"] == ["n", "ratio", "mode", "kind", "points", "counts", "pair"]


def test_string_annotated_field_keeps_description_and_constraint():
    @op.function
    def f(n: Annotated[int, Field(description="How many.", ge=0)]) -> None:
        """F."""

    assert props(f)["n"] == {"type": "integer", "description": "How many.", "minimum": 0}


def test_nested_values_become_instances_under_string_annotations():
    @op.function
    def f(box: Box, query: Query, mode: Mode) -> None:
        """F."""

    kwargs = f.validate({"box": {"corner": {"x": 1}}, "query": {"text": "hi"}, "mode": "slow"})
    assert kwargs == {"box": Box(corner=Point(1, 0)), "query": {"text": "hi"}, "mode": Mode.SLOW}
    assert type(kwargs["box"].corner) is Point


def test_stdlib_typed_dict_under_string_annotations():
    @op.function
    def f(query: StdlibQuery) -> None:
        """F."""

    assert props(f)["query"]["required"] == ["text"]


def test_bound_method_under_string_annotations_has_no_self():
    counter = Counter()
    tool = op.function(counter.add)

    assert tool.name == "add"
    assert list(props(tool)) == ["amount", "note"]
    assert props(tool)["amount"]["description"] == "How much."
    assert tool(2) == 2 and tool(3) == 5 and counter.total == 5


def test_tool_context_under_string_annotation_is_injected_not_described():
    @op.function
    def f(n: int, ctx: ToolContext) -> int:
        """F."""
        return n

    assert list(props(f)) == ["n"]


def test_type_defined_inside_a_function_cannot_be_resolved_and_says_so():
    class Local(BaseModel):
        a: int

    with pytest.raises(SchemaError, match=r"^f: parameter 'item': cannot resolve its annotation 'Local'"):

        @op.function
        def f(item: Local) -> None:
            """F."""
