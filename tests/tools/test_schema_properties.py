"""Property tests: for generated signatures, the schema the model sees and the validator the
arguments must pass agree.

Functions are built dynamically with varied parameter types (int, float, str, bool,
Literal, Enum, Optional, list, dict, tuple, nested dataclasses / pydantic models /
TypedDicts, with or without defaults). Arguments are generated from the tool's own
schema (``tests/schema_strategies.py``); valid ones must be accepted and come back as real
Python values of the annotated types, and ones made invalid on purpose must be rejected
with an ArgumentError naming the field.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import inspect
import json
import keyword
from collections.abc import Callable
from typing import Any, Literal, Optional

import jsonschema
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import create_model
from schema_strategies import from_schema
from typing_extensions import TypedDict

import openprogram_jupyter as op
from openprogram_jupyter.tools import ArgumentError
from openprogram_jupyter.tools._jsonschema import validate_json_schema

PROPERTY_SETTINGS = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@dataclasses.dataclass(frozen=True)
class Kind:
    """One parameter type: its annotation, the JSON types a value may take, a valid default,
    and a check that a validated value really is of the annotated Python type."""

    annotation: Any
    json_types: frozenset
    default: Any
    is_instance: Callable[[Any], bool]
    label: str

    def __repr__(self) -> str:
        return self.label


def _leaf(annotation: Any, json_types: set, default: Any, python_type: type, label: str) -> Kind:
    return Kind(annotation, frozenset(json_types), default, lambda v: type(v) is python_type, label)


LEAVES = [
    _leaf(int, {"integer"}, 0, int, "int"),
    _leaf(float, {"integer", "number"}, 0.5, float, "float"),
    _leaf(str, {"string"}, "", str, "str"),
    _leaf(bool, {"boolean"}, False, bool, "bool"),
]


def literal_kinds() -> st.SearchStrategy[Kind]:
    strings = st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=3, unique=True)
    integers = st.lists(st.integers(-5, 5), min_size=1, max_size=3, unique=True)

    def build(values: list) -> Kind:
        json_type = "string" if isinstance(values[0], str) else "integer"
        return Kind(
            Literal[tuple(values)],
            frozenset({json_type}),
            values[0],
            lambda v, values=values: v in values and type(v) is type(values[0]),
            f"Literal{values}",
        )

    return st.one_of(strings, integers).map(build)


def enum_kinds() -> st.SearchStrategy[Kind]:
    def build(values: list) -> Kind:
        choice = enum.Enum("Choice", {f"M{i}": value for i, value in enumerate(values)})
        return Kind(
            choice,
            frozenset({"string"}),
            next(iter(choice)),
            lambda v, choice=choice: isinstance(v, choice),
            f"Enum{values}",
        )

    return st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=3, unique=True).map(build)


FIELD_NAMES = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n) and not n.startswith("model")
)


def composite(children: st.SearchStrategy[Kind]) -> st.SearchStrategy[Kind]:
    def optional(k: Kind) -> Kind:
        return Kind(
            Optional[k.annotation],  # noqa: UP045 - Optional[] accepts any annotation object
            k.json_types | {"null"},
            None,
            lambda v: v is None or k.is_instance(v),
            f"Optional[{k!r}]",
        )

    def list_of(k: Kind) -> Kind:
        return Kind(
            list[k.annotation],
            frozenset({"array"}),
            [],
            lambda v: type(v) is list and all(map(k.is_instance, v)),
            f"list[{k!r}]",
        )

    def dict_of(k: Kind) -> Kind:
        return Kind(
            dict[str, k.annotation],
            frozenset({"object"}),
            {},
            lambda v: type(v) is dict and all(map(k.is_instance, v.values())),
            f"dict[str, {k!r}]",
        )

    def tuple_of(pair: tuple) -> Kind:
        a, b = pair
        return Kind(
            tuple[a.annotation, b.annotation],
            frozenset({"array"}),
            None,
            lambda v: type(v) is tuple and len(v) == 2 and a.is_instance(v[0]) and b.is_instance(v[1]),
            f"tuple[{a!r}, {b!r}]",
        )

    fields = st.dictionaries(FIELD_NAMES, children, min_size=1, max_size=3)

    def fields_hold(value_of: Callable[[Any, str], Any], fields: dict) -> Callable[[Any], bool]:
        return lambda v: all(k.is_instance(value_of(v, name)) for name, k in fields.items())

    # Every nested class of a kind has the same name on purpose: pydantic must keep the
    # definitions apart, and the $ref inlining must not mix them up.
    def dataclass_of(fields: dict) -> Kind:
        cls = dataclasses.make_dataclass("Item", [(name, k.annotation) for name, k in fields.items()])
        check = fields_hold(getattr, fields)
        return Kind(cls, frozenset({"object"}), None, lambda v: type(v) is cls and check(v), f"dataclass{fields}")

    def model_of(fields: dict) -> Kind:
        cls = create_model("Record", **{name: (k.annotation, ...) for name, k in fields.items()})
        check = fields_hold(getattr, fields)
        return Kind(cls, frozenset({"object"}), None, lambda v: type(v) is cls and check(v), f"model{fields}")

    def typed_dict_of(fields: dict) -> Kind:
        cls = TypedDict("Entry", {name: k.annotation for name, k in fields.items()})
        check = fields_hold(dict.__getitem__, fields)
        return Kind(
            cls,
            frozenset({"object"}),
            None,
            lambda v: type(v) is dict and set(v) == set(fields) and check(v),
            f"TypedDict{fields}",
        )

    return st.one_of(
        children.map(optional),
        children.map(list_of),
        children.map(dict_of),
        st.tuples(children, children).map(tuple_of),
        fields.map(dataclass_of),
        fields.map(model_of),
        fields.map(typed_dict_of),
    )


KINDS = st.recursive(st.one_of(st.sampled_from(LEAVES), literal_kinds(), enum_kinds()), composite, max_leaves=4)

# Names pydantic reserves or that mean something in a JSON Schema are mixed in on purpose.
PARAMETER_NAMES = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n)),
    st.sampled_from(
        [
            "title",
            "type",
            "properties",
            "required",
            "description",
            "default",
            "json",
            "schema",
            "copy",
            "model_config",
            "model_dump",
            "_private",
            "__dunder",
        ]
    ),
)


@dataclasses.dataclass
class Param:
    name: str
    kind: Kind
    has_default: bool

    def __repr__(self) -> str:
        return f"{self.name}: {self.kind!r}{' = default' if self.has_default else ''}"


@st.composite
def signatures(draw) -> list[Param]:
    names = draw(st.lists(PARAMETER_NAMES, min_size=1, max_size=5, unique=True))
    params = []
    for name in names:
        kind = draw(KINDS)
        has_default = kind.default is not None or kind.label.startswith("Optional")
        params.append(Param(name, kind, has_default and draw(st.booleans())))
    return params


def build_tool(params: list[Param]):
    """A real @function whose signature is ``params`` (keyword-only, so any order works)."""
    signature = inspect.Signature(
        [
            inspect.Parameter(
                p.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=p.kind.annotation,
                default=p.kind.default if p.has_default else inspect.Parameter.empty,
            )
            for p in params
        ]
    )

    def generated(**kwargs: Any) -> dict:
        return kwargs

    generated.__signature__ = signature  # type: ignore[attr-defined]
    generated.__annotations__ = {p.name: p.kind.annotation for p in params}
    generated.__doc__ = "Generated.\n\nArgs:\n" + "\n".join(f"    {p.name}: About {p.name}." for p in params)
    return op.function(generated, register_globally=False)


def valid_arguments(data, tool) -> dict:
    return data.draw(from_schema(tool.spec["parameters"]), label="arguments")


WRONG_VALUES = [7, 2.5, "wrong", True, None, [1], {"zz": 1}]


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", type(None): "null", list: "array", dict: "object"}[type(value)]


def names_field(error: ArgumentError, name: str) -> bool:
    return any(field == name or field.startswith(name + ".") for field in error.fields)


# -- the properties --------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(params=signatures())
def test_required_lists_exactly_the_parameters_without_defaults(params):
    tool = build_tool(params)
    parameters = tool.spec["parameters"]
    assert parameters["required"] == [p.name for p in params if not p.has_default]
    assert list(parameters["properties"]) == [p.name for p in params]
    assert parameters["additionalProperties"] is False
    for p in params:
        assert parameters["properties"][p.name]["description"] == f"About {p.name}."
    json.dumps(tool.spec, allow_nan=False)


@PROPERTY_SETTINGS
@given(params=signatures(), data=st.data())
def test_arguments_generated_from_the_schema_are_accepted_as_real_values(params, data):
    tool = build_tool(params)
    arguments = valid_arguments(data, tool)
    kwargs = tool.validate(copy.deepcopy(arguments))
    by_name = {p.name: p for p in params}
    assert set(kwargs) == set(arguments)  # omitted defaults are left to the function
    for name, value in kwargs.items():
        assert by_name[name].kind.is_instance(value), (name, by_name[name].kind, value)
    assert tool(**kwargs) == kwargs  # and the function can be called with them


@PROPERTY_SETTINGS
@given(params=signatures(), data=st.data())
def test_a_value_of_the_wrong_json_type_is_rejected_naming_the_field(params, data):
    tool = build_tool(params)
    arguments = valid_arguments(data, tool)
    target = data.draw(st.sampled_from(params), label="target")
    wrong = data.draw(st.sampled_from([v for v in WRONG_VALUES if json_type(v) not in target.kind.json_types]))
    arguments[target.name] = wrong
    with pytest.raises(ArgumentError) as caught:
        tool.validate(arguments)
    assert names_field(caught.value, target.name), (caught.value.problems, target)


@PROPERTY_SETTINGS
@given(params=signatures(), data=st.data())
def test_a_missing_required_field_is_rejected_naming_it(params, data):
    required = [p for p in params if not p.has_default]
    assume(required)
    tool = build_tool(params)
    arguments = valid_arguments(data, tool)
    target = data.draw(st.sampled_from(required), label="target")
    del arguments[target.name]
    with pytest.raises(ArgumentError) as caught:
        tool.validate(arguments)
    assert caught.value.problems == [(target.name, "missing required argument")]


@PROPERTY_SETTINGS
@given(params=signatures(), data=st.data())
def test_an_extra_field_is_rejected_naming_it(params, data):
    tool = build_tool(params)
    arguments = valid_arguments(data, tool)
    taken = set(arguments) | {p.name for p in params}
    extra = data.draw(st.text(min_size=1, max_size=10).filter(lambda n: n not in taken))
    arguments[extra] = data.draw(st.sampled_from(WRONG_VALUES))
    with pytest.raises(ArgumentError) as caught:
        tool.validate(arguments)
    assert caught.value.problems == [(extra, "unexpected argument (not in the schema)")]


@PROPERTY_SETTINGS
@given(params=signatures(), data=st.data())
def test_the_dict_tool_checker_agrees_with_jsonschema_and_pydantic_on_our_schemas(params, data):
    # _jsonschema (for dict / object tools) against the reference implementation, on
    # schemas and arguments we know the pydantic validator's answer for.
    tool = build_tool(params)
    schema = tool.spec["parameters"]
    reference = jsonschema.Draft202012Validator(schema)
    arguments = valid_arguments(data, tool)
    assert validate_json_schema(arguments, schema) == [] and reference.is_valid(arguments)

    target = data.draw(st.sampled_from(params), label="target")
    wrong = [v for v in WRONG_VALUES if json_type(v) not in target.kind.json_types]
    arguments[target.name] = data.draw(st.sampled_from(wrong))
    problems = validate_json_schema(arguments, schema)
    assert problems and not reference.is_valid(arguments)
    assert any(field == target.name or field.startswith(target.name + ".") for field, _ in problems)
