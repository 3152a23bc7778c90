"""Tools that bring their own schema: {"spec", "execute"} dicts and objects with .spec and
.execute, validated by tools/_jsonschema.py."""

from typing import Any, ClassVar

import pytest

from openprogram_jupyter.tools import ArgumentError, ToolContext, as_tool
from openprogram_jupyter.tools._jsonschema import validate_json_schema

WEATHER = {
    "name": "weather",
    "description": "Current weather.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
}


def context() -> ToolContext:
    return ToolContext(tool_call_id="c", tool_name="weather", run_id="r", depth=0, runtime=None)


def weather_tool():
    return as_tool({"spec": WEATHER, "execute": lambda city, unit="c", days=1: f"{city}:{unit}:{days}"})


def check(value, schema) -> list:
    return validate_json_schema(value, schema)


# -- the tool objects ------------------------------------------------------------------


def test_dict_tool_keeps_its_spec():
    assert weather_tool().spec == WEATHER


async def test_dict_tool_execute_gets_the_validated_arguments_as_keywords():
    tool = weather_tool()
    assert await tool.call(tool.validate({"city": "Oslo", "days": 2}), context()) == "Oslo:c:2"


async def test_object_with_spec_and_async_execute_is_awaited():
    class Lookup:
        spec: ClassVar[dict[str, Any]] = {
            "name": "lookup",
            "description": "Look up.",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        }

        async def execute(self, q: str) -> str:
            return q * 2

    tool = as_tool(Lookup())
    assert tool.name == "lookup"
    assert await tool.call(tool.validate({"q": "ab"}), context()) == "abab"


def test_dict_tool_bad_arguments_raise_argument_error_naming_fields():
    with pytest.raises(ArgumentError) as caught:
        weather_tool().validate({"unit": "k", "wind": True})
    assert sorted(caught.value.fields) == ["city", "unit", "wind"]
    assert str(caught.value).startswith("invalid arguments:\n- ")


def test_dict_tool_options_come_from_extra_keys():
    tool = as_tool(
        {"spec": WEATHER, "execute": print, "requires_approval": True, "timeout": 3, "max_result_chars": 200}
    )
    assert (tool.options.requires_approval, tool.options.timeout, tool.options.max_result_chars) == (True, 3, 200)


def test_object_tool_options_come_from_attributes():
    class Risky:
        spec = WEATHER
        requires_approval = True
        timeout = 1.5

        def execute(self, city: str) -> str:
            return city

    tool = as_tool(Risky())
    assert tool.options.requires_approval and tool.options.timeout == 1.5


def test_dict_tool_with_an_unknown_key_is_a_clear_error():
    with pytest.raises(TypeError, match=r"unknown key\(s\) \['timout'\]"):
        as_tool({"spec": WEATHER, "execute": print, "timout": 3})


def test_dict_without_execute_is_a_clear_error():
    with pytest.raises(TypeError, match="a tool dict needs 'spec' and 'execute' keys"):
        as_tool({"spec": WEATHER})


def test_spec_without_a_name_is_a_clear_error():
    with pytest.raises(TypeError, match="non-empty 'name'"):
        as_tool({"spec": {"description": "x"}, "execute": print})


def test_execute_that_is_not_callable_is_a_clear_error():
    with pytest.raises(TypeError, match="'execute' is not callable"):
        as_tool({"spec": WEATHER, "execute": "print"})


def test_something_that_is_not_a_tool_is_a_clear_error():
    with pytest.raises(TypeError, match="is not a tool"):
        as_tool(42)


def test_spec_without_parameters_takes_no_arguments_schema():
    tool = as_tool({"spec": {"name": "ping"}, "execute": lambda: "pong"})
    assert tool.parameters == {"type": "object", "properties": {}}
    assert tool.description == ""


# -- the checker ------------------------------------------------------------------------


def test_valid_value_has_no_problems():
    assert check({"city": "Oslo", "unit": "f", "days": 7}, WEATHER["parameters"]) == []


def test_wrong_type_is_named_with_what_was_expected_and_received():
    assert check({"city": 5}, WEATHER["parameters"]) == [("city", "expected string (got 5)")]


def test_missing_required_field_is_named():
    assert check({}, WEATHER["parameters"]) == [("city", "missing required argument")]


def test_unexpected_field_is_named_when_additional_properties_is_false():
    assert check({"city": "a", "x": 1}, WEATHER["parameters"]) == [("x", "unexpected argument (not in the schema)")]


def test_unexpected_field_is_allowed_when_the_schema_does_not_close_the_object():
    assert check({"x": 1}, {"type": "object", "properties": {}}) == []


def test_additional_properties_schema_checks_each_extra_value():
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert check({"a": 1, "b": "2"}, schema) == [("b", 'expected integer (got "2")')]


def test_integer_rejects_a_fraction_and_a_boolean():
    schema = {"type": "integer"}
    assert check(3, schema) == [] and check(3.5, schema) != [] and check(True, schema) != []


def test_number_accepts_an_integer_but_not_a_boolean():
    schema = {"type": "number"}
    assert check(3, schema) == [] and check(False, schema) != []


def test_type_list_accepts_any_listed_type():
    assert check(None, {"type": ["string", "null"]}) == []


def test_enum_rejects_a_value_not_listed():
    assert check("k", {"enum": ["c", "f"]}) == [("(arguments)", 'must be one of ["c", "f"] (got "k")')]


def test_enum_does_not_confuse_true_with_one():
    assert check(True, {"enum": [1, 2]}) != []
    assert check(1, {"enum": [True]}) != []
    assert check(1.0, {"enum": [1]}) == []


def test_const_must_match_as_json():
    assert check(0, {"const": False}) != [] and check(False, {"const": False}) == []


def test_nested_problem_has_a_dotted_path():
    schema = {
        "type": "object",
        "properties": {
            "points": {
                "type": "array",
                "items": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
            }
        },
    }
    assert check({"points": [{"x": 1}, {"x": "2"}, {}]}, schema) == [
        ("points.1.x", 'expected integer (got "2")'),
        ("points.2.x", "missing required field"),
    ]


def test_prefix_items_check_each_position():
    schema = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}
    assert check([1, "a"], schema) == [] and check([1, 2], schema) == [("1", "expected string (got 2)")]


def test_draft7_items_array_checks_each_position():
    schema = {"type": "array", "items": [{"type": "integer"}], "additionalItems": {"type": "string"}}
    assert check([1, "a", 2], schema) == [("2", "expected string (got 2)")]


def test_any_of_needs_one_match():
    schema = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert check(None, schema) == [] and check("x", schema) != []


def test_one_of_needs_exactly_one_match():
    schema = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert check(1.5, schema) == []
    assert check(1, schema) == [("(arguments)", "matches 2, not exactly one, of the allowed shapes (got 1)")]


def test_all_of_needs_every_match():
    schema = {"allOf": [{"type": "integer"}, {"minimum": 3}]}
    assert check(3, schema) == [] and check(2, schema) != []


def test_local_ref_is_followed():
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/Point"}},
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
    }
    assert check({"p": {"x": 1}}, schema) == [] and check({"p": {}}, schema) == [("p.x", "missing required field")]


def test_recursive_ref_checks_every_level():
    schema = {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}
        },
    }
    deep = {"v": 1, "next": {"v": 2, "next": {"v": "3"}}}
    assert check(deep, schema) == [("next.next.v", 'expected integer (got "3")')]


def test_pattern_is_checked():
    assert check("ab1", {"type": "string", "pattern": "^[a-z]+$"}) != []
    assert check("ab", {"type": "string", "pattern": "^[a-z]+$"}) == []


def test_bounds_are_checked():
    assert check(0, {"minimum": 1}) == [("(arguments)", "must be >= 1 (got 0)")]
    assert check(5, {"exclusiveMaximum": 5}) != []
    assert check("", {"minLength": 1}) != []
    assert check([1, 2, 3], {"maxItems": 2}) != []
    assert check({}, {"minProperties": 1}) != []


def test_unique_items_is_checked():
    assert check([1, 1], {"uniqueItems": True}) == [("(arguments)", "items must be unique")]


def test_unknown_keywords_and_types_are_ignored():
    assert check("x", {"type": "string", "format": "no-such-format", "x-custom": 1}) == []
    assert check("x", {"type": "strnig"}) == []


def test_non_local_ref_is_ignored():
    assert check(1, {"$ref": "https://example.com/schema.json"}) == []


def test_unexpected_nested_field_is_named_as_a_field():
    closed = {"type": "object", "properties": {}, "additionalProperties": False}
    schema = {"type": "object", "properties": {"p": closed}}
    assert check({"p": {"q": 1}}, schema) == [("p.q", "unexpected field (not in the schema)")]
