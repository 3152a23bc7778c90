"""The strict form of a tool's parameters, as each strict flavour is sent it, and the words
the schema page shows for what changed and what strict mode cannot express; and the
``null`` a strict model sends for an optional argument read as "not given" at any depth.
Pure functions, no server: the wire tests (``test_provider_strict_tools.py``) show the
same forms reach each provider."""

from __future__ import annotations

import copy

import pytest

from openprogram_jupyter.models._strict_schema import drop_absent_nulls, strict_form

LEFT_OUT = "(left out; still checked before the tool runs)"
NULLABLE = "optional, made required and nullable (null means not given)"

PARAMETERS = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "minLength": 2, "default": "x"},
        "n": {"type": "integer", "minimum": 1},
        "o": {
            "type": "object",
            "properties": {"z": {"type": "array", "items": {"type": "string", "maxLength": 3}}},
            "required": [],
        },
        "u": {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "d"},
        "e": {"enum": [1, 2]},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "nn": {"type": ["string", "null"]},
    },
    "required": ["n"],
    "$defs": {"D": {"type": "object", "properties": {"q": {"type": "string", "uniqueItems": True}}}},
}


def test_openai_flavour_requires_every_property_and_makes_the_optional_ones_nullable():
    given = copy.deepcopy(PARAMETERS)
    form = strict_form(given, "openai")
    assert given == PARAMETERS  # the tool's own schema is never changed
    assert form.possible
    assert form.schema == {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "n": {"type": "integer", "minimum": 1},
            "o": {
                "type": ["object", "null"],
                "properties": {"z": {"type": ["array", "null"], "items": {"type": "string"}}},
                "required": ["z"],
                "additionalProperties": False,
            },
            "u": {
                "anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}],
                "description": "d",
            },
            "e": {"anyOf": [{"enum": [1, 2]}, {"type": "null"}]},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            "nn": {"type": ["string", "null"]},
        },
        "required": ["a", "n", "o", "u", "e", "unit", "nn"],
        "$defs": {
            "D": {
                "type": "object",
                "properties": {"q": {"type": ["string", "null"]}},
                "additionalProperties": False,
                "required": ["q"],
            }
        },
        "additionalProperties": False,
    }
    assert form.changes == [
        f"a: {NULLABLE}; its default 'x' dropped (the tool's own applies)",
        f"o.z: {NULLABLE}",
        f"o: {NULLABLE}",
        f"u: {NULLABLE}",
        f"e: {NULLABLE}",
        f"unit: {NULLABLE}",
        f"nn: {NULLABLE}",
        f"$defs.D.q: {NULLABLE}",
    ]
    assert form.cannot == [
        f"a: minLength {LEFT_OUT}",
        f"o.z[]: maxLength {LEFT_OUT}",
        f"$defs.D.q: uniqueItems {LEFT_OUT}",
    ]


def test_closed_flavour_closes_every_object_keeps_optional_ones_optional_and_drops_bounds():
    form = strict_form(PARAMETERS, "closed")
    assert form.possible and form.changes == []
    assert form.schema["required"] == ["n"]
    assert form.schema["additionalProperties"] is False
    assert form.schema["properties"]["a"] == {"type": "string", "default": "x"}
    assert form.schema["properties"]["n"] == {"type": "integer"}
    assert form.schema["properties"]["o"] == {
        "type": "object",
        "properties": {"z": {"type": "array", "items": {"type": "string"}}},
        "required": [],
        "additionalProperties": False,
    }
    assert form.cannot == [
        f"a: minLength {LEFT_OUT}",
        f"n: minimum {LEFT_OUT}",
        f"o.z[]: maxLength {LEFT_OUT}",
        f"$defs.D.q: uniqueItems {LEFT_OUT}",
    ]


def test_keywords_inside_prefix_items_one_of_all_of_and_top_level_items_are_fitted_too():
    parameters = {
        "type": "object",
        "properties": {
            "t": {"type": "array", "prefixItems": [{"type": "string", "maxLength": 2}]},
            "w": {"oneOf": [{"type": "object", "properties": {"k": {"type": "integer"}}}], "allOf": [{"minLength": 1}]},
            "m": {"type": "array", "items": {"type": "array", "items": {"minLength": 1}}},
        },
        "required": ["t", "w", "m"],
        "minProperties": 1,
    }
    form = strict_form(parameters, "closed")
    assert form.schema["properties"]["t"] == {"type": "array", "prefixItems": [{"type": "string"}]}
    assert form.schema["properties"]["w"] == {
        "oneOf": [{"type": "object", "properties": {"k": {"type": "integer"}}, "additionalProperties": False}],
        "allOf": [{}],
    }
    assert form.cannot == [
        f"the top level: minProperties {LEFT_OUT}",
        f"t: maxLength {LEFT_OUT}",
        f"w: minLength {LEFT_OUT}",
        f"m[][]: minLength {LEFT_OUT}",
    ]


@pytest.mark.parametrize("flavour", ["openai", "closed"])
@pytest.mark.parametrize("extra", [True, {"type": "string"}])
def test_an_object_with_free_form_keys_cannot_go_strict_and_says_where(flavour, extra):
    nested = strict_form(
        {"type": "object", "properties": {"f": {"type": "object", "additionalProperties": extra}}, "required": ["f"]},
        flavour,
    )
    assert not nested.possible
    assert nested.cannot == ["f: an object with free-form keys (additionalProperties)"]
    top = strict_form({"type": "object", "additionalProperties": extra}, flavour)
    assert not top.possible
    assert top.cannot == ["the top level: an object with free-form keys (additionalProperties)"]


def test_an_object_that_already_refuses_extra_keys_can_go_strict():
    form = strict_form({"type": "object", "properties": {}, "additionalProperties": False}, "openai")
    assert form.possible and form.cannot == [] and form.changes == []
    assert form.schema == {"type": "object", "properties": {}, "additionalProperties": False, "required": []}


def test_a_top_level_that_is_no_object_cannot_go_strict():
    form = strict_form({"type": "array", "items": {"minLength": 1}}, "openai")
    assert not form.possible
    assert form.cannot == ["a top level that is not a plain object schema"]


def test_an_unknown_flavour_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError) as refused:
        strict_form({"type": "object"}, "gemini")  # type: ignore[arg-type]
    assert str(refused.value) == "unknown strict flavour 'gemini'; known: openai, closed"


def test_a_null_for_an_optional_argument_is_dropped_at_any_depth_and_named():
    schema = {
        "type": "object",
        "required": ["r"],
        "properties": {
            "x": {"type": "string"},
            "r": {"type": "string"},
            "n": {"type": ["string", "null"]},
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "o": {"type": "object", "properties": {"y": {"type": "integer"}, "z": {"type": "integer"}}},
            "l": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "string"}}}},
            "opt": {"anyOf": [{"type": "object", "properties": {"y": {"type": "string"}}}, {"type": "null"}]},
        },
    }
    arguments = {
        "x": None,
        "r": None,
        "n": None,
        "a": None,
        "o": {"y": None, "z": 1},
        "l": [{"y": None}, {"y": "kept"}],
        "opt": {"y": None},
        "extra": None,
    }
    assert drop_absent_nulls(arguments, schema) == ["x", "o.y", "l[0].y", "opt.y"]
    # a required null, a property that accepts null and a name the schema does not know stay
    assert arguments == {
        "r": None,
        "n": None,
        "a": None,
        "o": {"z": 1},
        "l": [{}, {"y": "kept"}],
        "opt": {},
        "extra": None,
    }


def test_nothing_is_dropped_where_the_schema_says_nothing_of_the_arguments():
    arguments = {"x": None}
    assert drop_absent_nulls(arguments, {"type": "object"}) == []
    assert drop_absent_nulls(arguments, {"type": "object", "properties": {"x": True}}) == []
    two_objects = {"anyOf": [{"properties": {"x": {"type": "string"}}}, {"properties": {"x": {"type": "integer"}}}]}
    assert drop_absent_nulls(arguments, two_objects) == []
    assert arguments == {"x": None}
    assert drop_absent_nulls({"x": [None]}, {"properties": {"x": {"type": "array", "items": True}}}) == []


def test_a_schema_with_properties_but_no_type_and_the_branches_of_any_of_are_fitted():
    parameters = {
        "type": "object",
        "properties": {
            "p": {"properties": {"q": {"type": "string"}}},
            "v": {"anyOf": [{"type": "string", "maxLength": 9}, {"type": "object", "properties": {}}]},
        },
        "required": ["p", "v"],
    }
    form = strict_form(parameters, "closed")
    assert form.schema["properties"]["p"] == {"properties": {"q": {"type": "string"}}, "additionalProperties": False}
    assert form.schema["properties"]["v"] == {
        "anyOf": [{"type": "string"}, {"type": "object", "properties": {}, "additionalProperties": False}]
    }
    assert form.cannot == [f"v: maxLength {LEFT_OUT}"]


def test_a_name_the_schema_does_not_know_does_not_stop_the_nulls_after_it_being_dropped():
    schema = {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}}
    arguments = {"unknown": None, "x": None, "y": None}
    assert drop_absent_nulls(arguments, schema) == ["x", "y"]
    assert arguments == {"unknown": None}


def test_an_optional_property_of_several_types_gets_null_as_one_more():
    parameters = {"type": "object", "properties": {"id": {"type": ["string", "integer"]}}}
    assert strict_form(parameters, "openai").schema["properties"]["id"] == {"type": ["string", "integer", "null"]}
