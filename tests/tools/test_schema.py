"""@function: the schema a model sees, from the signature and the docstring."""

import dataclasses
import enum
import json
import math
import typing
from typing import Annotated, Literal, Optional

import pytest
import typing_extensions
from pydantic import BaseModel, Field

import openprogram_jupyter as op
from openprogram_jupyter.tools import SchemaError

from .conftest import props


# No `from __future__ import annotations` here: test_schema_future.py covers string
# annotations with the same kinds of types.
class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Size(enum.IntEnum):
    SMALL = 1
    LARGE = 2


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Shape(BaseModel):
    name: str
    corners: list[Point]


class Filters(typing_extensions.TypedDict):
    tag: str
    limit: typing_extensions.NotRequired[int]


class StdlibFilters(typing.TypedDict):
    tag: str


class Tree(BaseModel):
    label: str
    children: list["Tree"] = []


class Opaque:
    """Not something JSON can describe."""


def test_spec_is_name_description_and_an_object_schema():
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First number.
            b: Second number.
        """
        return a + b

    assert add.spec == {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "First number."},
                "b": {"type": "number", "description": "Second number."},
            },
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    }


def test_parameters_without_default_are_required_and_defaults_are_shown():
    @op.function
    def search(query: str, limit: int = 10, exact: bool = False) -> None:
        """Search."""

    parameters = search.spec["parameters"]
    assert parameters["required"] == ["query"]
    assert parameters["properties"]["limit"] == {"type": "integer", "default": 10}
    assert parameters["properties"]["exact"] == {"type": "boolean", "default": False}


def test_google_docstring_gives_summary_long_text_and_parameter_descriptions():
    @op.function
    def f(a: int, b: str) -> None:
        """Do the thing.

        More about the thing.

        Args:
            a (int): The a.
            b: The b,
                over two lines.

        Returns:
            Nothing the model needs.
        """

    assert f.description == "Do the thing.\n\nMore about the thing."
    assert props(f)["a"]["description"] == "The a."
    assert props(f)["b"]["description"] == "The b,\nover two lines."


def test_numpy_docstring_gives_parameter_descriptions():
    @op.function
    def f(a: int, b: float = 1.0) -> None:
        """Do the thing.

        Parameters
        ----------
        a : int
            The a.
        b : float, optional
            The b.
        """

    assert f.description == "Do the thing."
    assert props(f)["a"]["description"] == "The a."
    assert props(f)["b"]["description"] == "The b."


def test_numpy_line_naming_two_parameters_describes_both():
    @op.function
    def f(a: int, b: int) -> None:
        """Do the thing.

        Parameters
        ----------
        a, b : int
            The ends.
        """

    assert props(f)["a"]["description"] == props(f)["b"]["description"] == "The ends."


def test_rest_docstring_gives_parameter_descriptions():
    @op.function
    def f(a: int, b: str) -> None:
        """Do the thing.

        :param a: The a.
        :type a: int
        :param b: The b.
        :returns: nothing
        """

    assert f.description == "Do the thing."
    assert props(f)["a"]["description"] == "The a."
    assert props(f)["b"]["description"] == "The b."


def test_undocumented_parameter_has_no_description():
    @op.function
    def f(a: int, b: int) -> None:
        """Do.

        Args:
            a: The a.
        """

    assert "description" not in props(f)["b"]


def test_function_without_docstring_has_empty_description():
    @op.function
    def f(a: int) -> None:
        pass

    assert f.description == ""


def test_description_option_replaces_the_docstring_summary_but_keeps_parameter_docs():
    @op.function(description="Custom.")
    def f(a: int) -> None:
        """Original.

        Args:
            a: The a.
        """

    assert f.spec["description"] == "Custom."
    assert props(f)["a"]["description"] == "The a."


def test_optional_parameter_allows_null():
    @op.function
    def f(a: Optional[int], b: int | None = None) -> None:  # noqa: UP045 - both spellings under test
        """F."""

    assert props(f)["a"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert props(f)["b"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}
    assert f.spec["parameters"]["required"] == ["a"]


def test_literal_becomes_enum_and_single_literal_becomes_const():
    @op.function
    def f(mode: Literal["fast", "slow"], kind: Literal["only"]) -> None:
        """F."""

    assert props(f)["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props(f)["kind"] == {"type": "string", "const": "only"}


def test_enum_becomes_enum_of_its_values():
    @op.function
    def f(color: Color, size: Size = Size.SMALL) -> None:
        """F."""

    assert props(f)["color"] == {"type": "string", "enum": ["red", "green"]}
    assert props(f)["size"] == {"type": "integer", "enum": [1, 2], "default": 1}


def test_list_dict_and_tuple_schemas():
    @op.function
    def f(xs: list[int], counts: dict[str, int], pair: tuple[int, str]) -> None:
        """F."""

    assert props(f)["xs"] == {"type": "array", "items": {"type": "integer"}}
    assert props(f)["counts"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props(f)["pair"] == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    }


def test_int_keyed_dict_allows_only_integer_property_names():
    @op.function
    def f(by_id: dict[int, str]) -> None:
        """F."""

    assert props(f)["by_id"]["propertyNames"] == {"pattern": "^-?[0-9]+$"}


def test_nested_model_and_dataclass_are_inlined_without_refs_or_titles():
    @op.function
    def f(shape: Shape) -> None:
        """F."""

    text = json.dumps(f.spec)
    assert "$ref" not in text and "$defs" not in text and '"title"' not in text
    assert props(f)["shape"] == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "corners": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                    "required": ["x"],
                },
            },
        },
        "required": ["name", "corners"],
    }


def test_typed_dict_schema_is_closed_with_its_required_keys():
    @op.function
    def f(filters: Filters) -> None:
        """F."""

    assert props(f)["filters"] == {
        "type": "object",
        "properties": {"tag": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["tag"],
        "additionalProperties": False,
    }


def test_stdlib_typed_dict_is_accepted():
    # pydantic refuses typing.TypedDict before Python 3.12; notebooks use it anyway.
    @op.function
    def f(filters: StdlibFilters, many: list[StdlibFilters]) -> None:
        """F."""

    assert props(f)["filters"]["properties"] == {"tag": {"type": "string"}}
    assert f.validate({"filters": {"tag": "a"}, "many": [{"tag": "b"}]}) == {
        "filters": {"tag": "a"},
        "many": [{"tag": "b"}],
    }


def test_recursive_model_keeps_its_definitions():
    @op.function
    def f(tree: Tree) -> None:
        """F."""

    parameters = f.spec["parameters"]
    assert "Tree" in parameters["$defs"]
    assert props(f)["tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}
    assert f.validate({"tree": {"label": "a", "children": [{"label": "b"}]}})["tree"].children[0].label == "b"


def test_annotated_field_description_is_used():
    @op.function
    def f(a: Annotated[int, Field(description="From the field.")]) -> None:
        """F."""

    assert props(f)["a"] == {"type": "integer", "description": "From the field."}


def test_annotated_field_description_wins_over_the_docstring():
    @op.function
    def f(a: Annotated[int, Field(description="From the field.")] = 1) -> None:
        """F.

        Args:
            a: From the docstring.
        """

    assert props(f)["a"]["description"] == "From the field."


def test_annotated_field_constraints_reach_the_schema():
    @op.function
    def f(n: Annotated[int, Field(ge=1, le=5)], name: Annotated[str, Field(max_length=3)]) -> None:
        """F."""

    assert props(f)["n"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert props(f)["name"] == {"type": "string", "maxLength": 3}


def test_parameter_called_title_keeps_its_schema():
    @op.function
    def f(title: str) -> None:
        """F."""

    assert props(f) == {"title": {"type": "string"}}


def test_default_value_holding_a_title_key_is_kept_intact():
    @op.function
    def f(meta: dict = {"title": "kept"}) -> None:  # noqa: B006
        """F."""

    assert props(f)["meta"]["default"] == {"title": "kept"}


def test_non_finite_default_is_left_out_so_the_spec_stays_json():
    @op.function
    def f(limit: float = math.inf, tolerance: float = math.nan) -> None:
        """F."""

    json.dumps(f.spec, allow_nan=False)  # raises on Infinity / NaN
    assert props(f) == {"limit": {"type": "number"}, "tolerance": {"type": "number"}}


def test_names_pydantic_reserves_are_ordinary_parameters():
    @op.function
    def f(model_config: int, json: str, schema: bool, _private: int = 0) -> None:
        """F."""

    assert list(props(f)) == ["model_config", "json", "schema", "_private"]
    assert f.spec["parameters"]["required"] == ["model_config", "json", "schema"]


def test_unannotated_parameter_takes_the_type_of_its_default():
    @op.function
    def f(n=3, name="x") -> None:
        """F."""

    assert props(f) == {"n": {"type": "integer", "default": 3}, "name": {"type": "string", "default": "x"}}


def test_return_annotation_that_cannot_be_resolved_does_not_matter():
    @op.function
    def f(a: int) -> "NotDefinedAnywhere":  # noqa: F821
        """F."""

    assert props(f) == {"a": {"type": "integer"}}


# -- descriptions that cannot be made: errors at decoration ----------------------------


def test_star_args_is_a_clear_error_naming_function_and_parameter():
    with pytest.raises(SchemaError, match=r"^collect: parameter \*items cannot be described"):

        @op.function
        def collect(*items: int) -> None:
            """F."""


def test_star_kwargs_is_a_clear_error_naming_function_and_parameter():
    with pytest.raises(SchemaError, match=r"^configure: parameter \*\*options cannot be described"):

        @op.function
        def configure(name: str, **options: int) -> None:
            """F."""


def test_unannotated_parameter_without_default_is_a_clear_error():
    with pytest.raises(SchemaError, match=r"^scale: parameter 'factor' has no type annotation"):

        @op.function
        def scale(value: float, factor) -> None:
            """F."""


def test_unannotated_parameter_defaulting_to_none_is_a_clear_error():
    with pytest.raises(SchemaError, match=r"^scale: parameter 'factor' has no type annotation"):

        @op.function
        def scale(value: float, factor=None) -> None:
            """F."""


def test_positional_only_parameter_is_a_clear_error():
    with pytest.raises(SchemaError, match=r"^f: positional-only parameter 'a'"):

        @op.function
        def f(a: int, /) -> None:
            """F."""


def test_type_without_a_json_schema_names_the_parameter_and_type():
    with pytest.raises(SchemaError, match=r"^f: parameter 'thing' has type Opaque, which has no JSON Schema"):

        @op.function
        def f(a: int, thing: Opaque) -> None:
            """F."""


def test_callable_parameter_names_the_parameter():
    with pytest.raises(SchemaError, match=r"^f: parameter 'callback' has type"):

        @op.function
        def f(callback: typing.Callable[[int], int]) -> None:
            """F."""


def test_unresolvable_annotation_names_the_parameter():
    with pytest.raises(SchemaError, match=r"^f: parameter 'b': cannot resolve its annotation 'Missing'"):

        @op.function
        def f(a: int, b: "Missing") -> None:  # noqa: F821
            """F."""


def test_function_decorated_in_a_class_body_is_told_to_use_the_bound_method():
    with pytest.raises(SchemaError, match=r"decorate the bound method instead: op.function\(instance.area\)"):

        class Room:
            @op.function
            def area(self, scale: float) -> float:
                """Area."""
                return scale


def test_unusable_tool_name_is_a_clear_error():
    with pytest.raises(SchemaError, match="'two words' is not a usable tool name"):

        @op.function(name="two words")
        def f() -> None:
            """F."""


def test_schema_error_is_raised_before_anything_is_registered():
    with pytest.raises(SchemaError):

        @op.function
        def broken(*args: int) -> None:
            """F."""

    assert "broken" not in op.default_registry
