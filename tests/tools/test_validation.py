"""@function argument validation: strict, as on JSON; a failure names the field and the reason."""

import dataclasses
import enum
from typing import Annotated, Literal, Optional

import pytest
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

import openprogram_jupyter as op
from openprogram_jupyter.tools import ArgumentError


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Shape(BaseModel):
    name: str
    corners: list[Point]


class StrictShape(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class Filters(TypedDict):
    tag: str


@op.function
def place(x: int, y: int = 0, label: str = "", ratio: float = 1.0, flag: bool = False) -> str:
    """Place a thing."""
    return f"{x},{y}"


def reject(tool, arguments) -> ArgumentError:
    with pytest.raises(ArgumentError) as caught:
        tool.validate(arguments)
    return caught.value


def test_valid_arguments_become_keyword_arguments():
    assert place.validate({"x": 1, "y": 2}) == {"x": 1, "y": 2}


def test_string_is_not_an_integer():
    error = reject(place, {"x": "3"})
    assert error.problems == [("x", 'Input should be a valid integer (got "3")')]


def test_number_with_a_fraction_is_not_an_integer():
    assert reject(place, {"x": 3.5}).fields == ["x"]


def test_boolean_is_not_an_integer():
    assert reject(place, {"x": True}).fields == ["x"]


def test_integer_is_accepted_where_a_float_is_expected():
    assert place.validate({"x": 1, "ratio": 2}) == {"x": 1, "ratio": 2.0}


def test_string_is_not_a_boolean():
    assert reject(place, {"x": 1, "flag": "true"}).fields == ["flag"]


def test_number_is_not_a_string():
    assert reject(place, {"x": 1, "label": 5}).fields == ["label"]


def test_extra_field_is_rejected_and_named():
    error = reject(place, {"x": 1, "z": 2})
    assert error.problems == [("z", "unexpected argument (not in the schema)")]


def test_missing_field_is_named():
    error = reject(place, {"y": 2})
    assert error.problems == [("x", "missing required argument")]


def test_every_bad_field_is_reported_at_once():
    error = reject(place, {"y": "2", "z": 1})
    assert sorted(error.fields) == ["x", "y", "z"]


def test_message_for_the_model_lists_field_reason_and_value():
    error = reject(place, {"x": "three"})
    assert str(error) == 'invalid arguments:\n- x: Input should be a valid integer (got "three")'


def test_arguments_that_are_not_an_object_are_rejected():
    assert reject(place, [1, 2]).fields == ["(arguments)"]


def test_omitted_python_default_is_left_for_the_function_to_apply():
    sentinel = []

    @op.function
    def f(items: list = sentinel) -> bool:
        """F."""
        return items is sentinel

    assert f.validate({}) == {}
    assert f(**f.validate({})) is True


def test_annotated_default_without_python_default_is_passed_to_the_call():
    @op.function
    def f(n: Annotated[int, Field(default=5)]) -> int:
        """F."""
        return n

    assert f.spec["parameters"]["required"] == []
    assert f.validate({}) == {"n": 5}


def test_annotated_constraint_is_enforced():
    @op.function
    def f(n: Annotated[int, Field(ge=0)]) -> None:
        """F."""

    assert reject(f, {"n": -1}).problems == [("n", "Input should be greater than or equal to 0 (got -1)")]


def test_literal_rejects_a_value_not_listed():
    @op.function
    def f(mode: Literal["fast", "slow"]) -> None:
        """F."""

    assert reject(f, {"mode": "medium"}).fields == ["mode"]


def test_enum_value_becomes_the_enum_member():
    @op.function
    def f(color: Color) -> None:
        """F."""

    assert f.validate({"color": "red"}) == {"color": Color.RED}
    assert reject(f, {"color": "blue"}).fields == ["color"]


def test_optional_accepts_null():
    @op.function
    def f(n: Optional[int]) -> None:  # noqa: UP045 - the spelling under test
        """F."""

    assert f.validate({"n": None}) == {"n": None}


def test_tuple_argument_arrives_as_a_tuple():
    @op.function
    def f(pair: tuple[int, str]) -> None:
        """F."""

    assert f.validate({"pair": [1, "a"]}) == {"pair": (1, "a")}
    assert reject(f, {"pair": [1, 2]}).fields == ["pair.1"]


def test_int_keyed_dict_arrives_with_int_keys():
    @op.function
    def f(by_id: dict[int, str]) -> None:
        """F."""

    assert f.validate({"by_id": {"7": "a"}}) == {"by_id": {7: "a"}}


def test_nested_model_dataclass_and_typed_dict_become_real_instances():
    @op.function
    def f(shape: Shape, point: Point, filters: Filters) -> None:
        """F."""

    kwargs = f.validate(
        {"shape": {"name": "sq", "corners": [{"x": 1}]}, "point": {"x": 2, "y": 3}, "filters": {"tag": "t"}}
    )
    assert kwargs["shape"] == Shape(name="sq", corners=[Point(1, 0)])
    assert type(kwargs["shape"].corners[0]) is Point
    assert type(kwargs["point"]) is Point and kwargs["point"] == Point(2, 3)
    assert kwargs["filters"] == {"tag": "t"}


def test_nested_error_names_the_path_to_the_field():
    @op.function
    def f(shape: Shape) -> None:
        """F."""

    error = reject(f, {"shape": {"name": "sq", "corners": [{"x": 1}, {"x": "2"}]}})
    assert error.fields == ["shape.corners.1.x"]


def test_missing_nested_field_is_named_as_a_field():
    @op.function
    def f(point: Point) -> None:
        """F."""

    assert reject(f, {"point": {"y": 1}}).problems == [("point.x", "missing required field")]


def test_dataclass_parameter_rejects_extra_fields_and_its_schema_says_so():
    @op.function
    def f(points: list[Point]) -> None:
        """F."""

    assert f.spec["parameters"]["properties"]["points"]["items"]["additionalProperties"] is False
    problems = reject(f, {"points": [{"x": 1, "z": 2}]}).problems
    assert problems == [("points.0.z", "unexpected field (not in the schema)")]


def test_dataclass_inside_a_model_follows_the_models_extra_setting_in_schema_and_validation():
    @op.function
    def f(shape: Shape) -> None:
        """F."""

    corner = f.spec["parameters"]["properties"]["shape"]["properties"]["corners"]["items"]
    assert "additionalProperties" not in corner
    assert f.validate({"shape": {"name": "s", "corners": [{"x": 1, "z": 2}]}})["shape"].corners == [Point(1, 0)]


def test_nested_model_that_forbids_extras_rejects_them():
    @op.function
    def f(shape: StrictShape) -> None:
        """F."""

    assert reject(f, {"shape": {"name": "a", "colour": "red"}}).fields == ["shape.colour"]


def test_strictness_applies_inside_nested_values():
    @op.function
    def f(point: Point) -> None:
        """F."""

    assert reject(f, {"point": {"x": "1"}}).fields == ["point.x"]


def test_reserved_names_validate_under_their_own_names():
    @op.function
    def f(model_config: int, json: str, _private: int = 0) -> None:
        """F."""

    arguments = {"model_config": 1, "json": "a", "_private": 2}
    assert f.validate(arguments) == arguments


def test_internal_name_of_a_reserved_parameter_is_not_a_backdoor():
    @op.function
    def f(model_config: int = 0) -> None:
        """F."""

    internal = next(iter(f._schema.validator.model_fields))
    assert internal != "model_config"
    assert reject(f, {internal: 5}).fields == [internal]


def test_lone_surrogate_in_a_string_is_not_reported_as_invalid_json():
    # json.loads('"\\ud800"') gives such a string; it is not valid Unicode text.
    @op.function
    def f(text: str) -> None:
        """F."""

    assert f.validate({"text": "a\ud800b"}) == {"text": "a\ufffdb"}


def test_problems_are_listed_in_parameter_order_then_unexpected_ones():
    error = reject(place, {"zz": 1, "flag": "no", "x": "1", "aa": 2})
    assert error.fields == ["x", "flag", "zz", "aa"]


def test_an_integer_literal_refuses_a_boolean_as_its_schema_does():
    # {"enum": [0, 1]} does not accept true in JSON Schema; pydantic alone would pass 1 on.
    from typing import Literal

    @op.function
    def pick(level: Literal[0, 1], levels: list[Literal[2, 3]] | None = None) -> None:
        """Pick."""

    assert reject(pick, {"level": True}).problems == [("level", "Input should be 0 or 1, not a boolean (got true)")]
    assert reject(pick, {"level": 0, "levels": [False]}).fields == ["levels.0"]
    assert pick.validate({"level": 1, "levels": [3]}) == {"level": 1, "levels": [3]}
