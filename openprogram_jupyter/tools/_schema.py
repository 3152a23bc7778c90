"""From a Python signature and docstring to a JSON Schema and an argument validator.

The schema is what the model sees; the validator (a pydantic model built from the same
annotations) is what arguments must pass before the function runs. Both come from one
source, and the schema is post-processed only where pydantic's output would let the two
disagree (integer dict keys, non-JSON defaults) or carry noise (titles, ``$ref``s).
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import docstring_parser
import typing_extensions
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model, with_config
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from ..core._json import JsonObject
from ..core.errors import ArgumentError, SchemaError
from ._annotations import map_type_arguments
from ._literals import refusing_bools

__all__ = ["ArgumentError", "SchemaError", "SignatureSchema", "describe_validation_error", "inline_refs"]


@dataclass
class SignatureSchema:
    """The description of one function as a tool.

    ``parameters`` is the JSON Schema object sent to the model. ``injected`` maps the names
    of parameters the framework fills in (``runtime``, a ``ToolContext``) to their kind;
    they are absent from the schema.
    """

    description: str
    parameters: JsonObject
    validator: type[BaseModel]
    injected: dict[str, str]
    # validator field name -> parameter name (they differ only where pydantic reserves the name)
    names: dict[str, str] = field(default_factory=dict)
    # parameters whose default comes from the Python signature (the function applies it)
    python_defaults: frozenset[str] = frozenset()

    def validate(self, arguments: JsonObject) -> dict[str, Any]:
        """Return keyword arguments for the call, nested values turned into real instances.

        Validation is strict, as on JSON input: ``"3"`` is not an integer, ``3.0`` is not
        an integer, ``3`` is a float, an enum takes its value, a tuple takes an array.
        Unknown fields are refused, missing required ones named. An omitted parameter with a
        Python default is left out, so the function applies its own default. Raises
        :class:`ArgumentError` naming every bad field and why.
        """
        problems = self._internal_names_used(arguments)
        try:
            validated = self.validator.model_validate_json(_to_json(arguments), strict=True)
        except ValidationError as error:
            problems += describe_validation_error(error)
        # pydantic >= 2.14 also reports an internal name as an extra field: say it once.
        problems = list(dict.fromkeys(problems))
        if problems:
            order = {name: index for index, name in enumerate(self.names.values())}
            # parameters in signature order, then unexpected ones (sorted is stable)
            raise ArgumentError(sorted(problems, key=lambda p: order.get(p[0].split(".")[0], len(order))))
        return {
            self.names.get(key, key): getattr(validated, key)
            for key in type(validated).model_fields
            if key in validated.model_fields_set or self.names.get(key, key) not in self.python_defaults
        }

    def _internal_names_used(self, arguments: object) -> list[tuple[str, str]]:
        # pydantic silently drops a key equal to an aliased field's own name; refuse it here.
        if not isinstance(arguments, dict):
            return []
        hidden = {key for key, name in self.names.items() if key != name} - set(self.names.values())
        return [(key, "unexpected argument (not in the schema)") for key in arguments if key in hidden]


def _to_json(arguments: object) -> str:
    # A lone surrogate (legal in a Python str, e.g. from json.loads("\"\\ud800\"")) is not
    # legal JSON text; it becomes U+FFFD instead of failing the whole call as "invalid JSON".
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def describe_validation_error(error: ValidationError) -> list[tuple[str, str]]:
    """One ``(field.path, reason)`` per problem, the reason ending in the value received."""
    problems = []
    for problem in error.errors(include_url=False):
        location = ".".join(str(part) for part in problem["loc"]) or "(arguments)"
        if problem["type"] == "missing":
            what = "argument" if len(problem["loc"]) == 1 else "field"
            problems.append((location, f"missing required {what}"))
        elif problem["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            what = "argument" if len(problem["loc"]) == 1 else "field"
            problems.append((location, f"unexpected {what} (not in the schema)"))
        else:
            got = json.dumps(problem.get("input"), default=repr)
            if len(got) > 80:
                got = got[:77] + "..."
            message = problem["msg"].removeprefix("Value error, ")  # our own checks' messages
            problems.append((location, f"{message} (got {got})"))
    return problems


def build_signature_schema(
    fn: Callable[..., Any],
    *,
    name: str,
    description: str | None,
    injectable: Callable[[inspect.Parameter, Any], str | None],
) -> SignatureSchema:
    """Describe ``fn``. ``injectable(param, annotation)`` names the injection kind or ``None``.

    Raises :class:`SchemaError`, naming the function and the parameter, for ``*args`` /
    ``**kwargs``, a positional-only parameter, a parameter with neither an annotation nor
    a usable default, an annotation that cannot be resolved, and a type that has no JSON
    Schema (an arbitrary class, a callable).
    """
    signature = inspect.signature(fn)
    hints = _resolve_annotations(fn, signature, name)
    doc = _parse_docstring(fn)
    param_docs: dict[str, str] = {}
    for item in doc.params:
        for arg_name in item.arg_name.split(","):  # NumPy allows "a, b : int"
            param_docs[arg_name.strip().lstrip("*")] = (item.description or "").strip()

    fields: dict[str, Any] = {}
    names: dict[str, str] = {}
    injected: dict[str, str] = {}
    python_defaults: set[str] = set()
    all_names = set(signature.parameters)
    for index, param in enumerate(signature.parameters.values()):
        annotation = hints.get(param.name, inspect.Parameter.empty)
        kind = injectable(param, annotation)
        if kind:
            injected[param.name] = kind
            continue
        annotation = _check_parameter(name, index, param, annotation)
        field_kwargs: dict[str, Any] = {}
        if param.default is not inspect.Parameter.empty:
            field_kwargs["default"] = param.default
            python_defaults.add(param.name)
        text = param_docs.get(param.name)
        if text and not _has_description(annotation):
            field_kwargs["description"] = text  # Field(description=...) in Annotated wins
        key = _field_name(param.name, index, all_names)
        if key != param.name:
            field_kwargs["alias"] = param.name
        names[key] = param.name
        fields[key] = (refusing_bools(_pydantic_compatible(annotation, {})), Field(**field_kwargs))

    try:
        validator = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        parameters = validator.model_json_schema(schema_generator=_ToolJsonSchema)
    except Exception as error:
        raise _explain_type_error(name, fields, names, error) from error

    text = description if description is not None else _doc_description(doc)
    return SignatureSchema(text, _clean_schema(parameters), validator, injected, names, frozenset(python_defaults))


def _check_parameter(name: str, index: int, param: inspect.Parameter, annotation: Any) -> Any:
    """The annotation to use for ``param``; ``SchemaError`` if it cannot be a tool argument."""
    if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
        star = "*" if param.kind is inspect.Parameter.VAR_POSITIONAL else "**"
        raise SchemaError(
            f"{name}: parameter {star}{param.name} cannot be described to a model; list the parameters explicitly"
        )
    if param.kind is inspect.Parameter.POSITIONAL_ONLY:
        raise SchemaError(f"{name}: positional-only parameter {param.name!r} cannot be passed by name; remove the '/'")
    if annotation is not inspect.Parameter.empty:
        return annotation
    if index == 0 and param.name in ("self", "cls"):
        raise SchemaError(
            f"{name}: parameter {param.name!r} looks like a method's; decorate the bound method "
            f"instead: op.function(instance.{name})"
        )
    if param.default is inspect.Parameter.empty or param.default is None:
        raise SchemaError(
            f"{name}: parameter {param.name!r} has no type annotation, so its schema "
            "cannot be derived; annotate it (e.g. `x: int`)"
        )
    return type(param.default)


def _field_name(param_name: str, index: int, taken: set[str]) -> str:
    """``param_name`` unless pydantic reserves it (``_x``, ``model_*``, ``json``, ...)."""
    if not (param_name.startswith(("_", "model_")) or hasattr(BaseModel, param_name)):
        return param_name
    key = f"p{index}_{param_name.strip('_')}"
    while key in taken or hasattr(BaseModel, key):
        key += "_"
    return key


def _has_description(annotation: Any) -> bool:
    if typing.get_origin(annotation) is not typing.Annotated:
        return False
    return any(isinstance(m, FieldInfo) and m.description for m in annotation.__metadata__)


def _explain_type_error(name: str, fields: dict[str, Any], names: dict[str, str], error: Exception) -> SchemaError:
    """Name the parameter whose type pydantic cannot handle (the combined error does not)."""
    for key, (annotation, _) in fields.items():
        try:
            TypeAdapter(annotation).json_schema()
        except Exception as single:
            reason = str(single).strip().splitlines()[0].split(". ")[0]
            return SchemaError(
                f"{name}: parameter {names[key]!r} has type {_type_name(annotation)}, which has no JSON "
                f"Schema ({reason}); use str, int, float, bool, Literal, an Enum, list, dict, "
                "a pydantic model, a dataclass or a TypedDict"
            )
    reason = str(error).strip().splitlines()[0]
    return SchemaError(f"{name}: cannot derive a schema from the annotations ({reason})")


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__qualname__", None) or repr(annotation)


def _resolve_annotations(fn: Callable[..., Any], signature: inspect.Signature, name: str) -> dict[str, Any]:
    """Parameter annotations with string (``from __future__ import annotations``) ones resolved."""
    target: Any = fn
    if isinstance(fn, functools.partial):
        target = fn.func
    elif not (inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isclass(fn)):
        target = type(fn).__call__  # a callable instance: its class's __call__ holds the annotations
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception:
        pass  # find which parameter is at fault; an unresolvable return annotation is fine
    namespace = getattr(inspect.unwrap(getattr(target, "__func__", target)), "__globals__", {})
    hints = {}
    for param in signature.parameters.values():
        annotation = param.annotation
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, namespace)  # what get_type_hints does
            except Exception as error:
                raise SchemaError(
                    f"{name}: parameter {param.name!r}: cannot resolve its annotation "
                    f"{param.annotation!r} ({error}); define or import the type at module level"
                ) from error
        if annotation is not inspect.Parameter.empty:
            hints[param.name] = annotation
    return hints


def _parse_docstring(fn: Callable[..., Any]) -> docstring_parser.Docstring:
    text = inspect.getdoc(fn) or ""
    try:
        return docstring_parser.parse(text)
    except Exception:  # a docstring the parser chokes on still describes the function
        doc = docstring_parser.Docstring()
        doc.short_description = text.strip() or None
        return doc


def _doc_description(doc: docstring_parser.Docstring) -> str:
    parts = [doc.short_description or "", doc.long_description or ""]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


# -- making annotations pydantic can take ---------------------------------------------------


def _pydantic_compatible(annotation: Any, seen: dict[int, Any]) -> Any:
    """``annotation`` with every ``typing.TypedDict`` rebuilt as a ``typing_extensions`` one.

    Before Python 3.12, pydantic refuses ``typing.TypedDict``; notebooks use it anyway.
    The rebuilt class validates to the same plain dict. Anything else is returned as is.
    """
    if sys.version_info >= (3, 12):
        return annotation
    if typing.is_typeddict(annotation) and type(annotation).__module__ == "typing":
        return _rebuild_typeddict(annotation, seen)
    return map_type_arguments(annotation, lambda argument: _pydantic_compatible(argument, seen))


def _rebuild_typeddict(cls: Any, seen: dict[int, Any]) -> Any:
    if id(cls) in seen:
        return seen[id(cls)] or cls  # recursive: leave it to pydantic's error
    seen[id(cls)] = None
    wrappers = {getattr(m, name, None) for m in (typing, typing_extensions) for name in ("Required", "NotRequired")}
    fields = {}
    for key, annotation in typing.get_type_hints(cls, include_extras=True).items():
        while typing.get_origin(annotation) in wrappers - {None}:
            annotation = typing.get_args(annotation)[0]
        annotation = _pydantic_compatible(annotation, seen)
        wrap = typing_extensions.Required if key in cls.__required_keys__ else typing_extensions.NotRequired
        fields[key] = wrap[annotation]
    # mypy checks only TypedDicts whose name is a literal; this one copies a class at run time.
    rebuilt = typing_extensions.TypedDict(cls.__name__, fields)  # type: ignore[misc]
    rebuilt.__doc__, rebuilt.__module__, rebuilt.__qualname__ = cls.__doc__, cls.__module__, cls.__qualname__
    if hasattr(cls, "__pydantic_config__"):
        with_config(cls.__pydantic_config__)(rebuilt)  # sets rebuilt.__pydantic_config__
    seen[id(cls)] = rebuilt
    return rebuilt


class _ToolJsonSchema(GenerateJsonSchema):
    """pydantic's JSON Schema, corrected where it says less than the validator enforces.

    - Integer dict keys: JSON keys are strings; the validator turns ``"3"`` into ``3`` and
      refuses ``"x"``, so the schema says ``propertyNames`` must be digits.
    - A stdlib dataclass validates with the config of the model it sits in (our arguments
      model forbids extra fields), but pydantic describes it with the class's own config,
      so ``additionalProperties: false`` is added where the validator forbids extras.
      (pydantic keeps one definition per class: a dataclass used both directly and inside
      a user model that ignores extras gets the description of the first use.)
    """

    def dataclass_schema(self, schema: Any) -> JsonObject:
        result = super().dataclass_schema(schema)
        if schema.get("config", {}).get("extra_fields_behavior") == "forbid":
            result.setdefault("additionalProperties", False)
        return result

    def dict_schema(self, schema: Any) -> JsonObject:
        result = super().dict_schema(schema)
        keys = schema.get("keys_schema", {})
        if keys.get("type") == "int" and "propertyNames" not in result and len(keys) == 1:
            result["propertyNames"] = {"pattern": "^-?[0-9]+$"}
        return result


# -- cleaning the generated schema -----------------------------------------------------------

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = (
    "items",
    "additionalProperties",
    "propertyNames",
    "not",
    "contains",
    "if",
    "then",
    "else",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
)


def _map_subschemas(node: JsonObject, fn: Callable[[Any], Any]) -> JsonObject:
    """``node`` with ``fn`` applied to each of its direct subschemas (never to values such
    as ``default``, ``enum``, ``const`` or ``examples``)."""
    out = dict(node)
    for key in _SUBSCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {name: fn(sub) for name, sub in out[key].items()}
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [fn(sub) for sub in out[key]]
    for key in _SUBSCHEMA_ONE:
        if isinstance(out.get(key), (dict, list)):
            value = out[key]
            out[key] = [fn(sub) for sub in value] if isinstance(value, list) else fn(value)
    return out


def _clean_schema(schema: JsonObject) -> JsonObject:
    """Inline ``$ref``s (unless recursive), drop titles and non-JSON defaults."""
    schema = _tidy(inline_refs(schema))
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return schema


def _tidy(node: object) -> Any:
    if not isinstance(node, dict):
        return node
    node = _map_subschemas(node, _tidy)
    node.pop("title", None)
    if "default" in node and not _is_json(node["default"]):
        del node["default"]  # e.g. math.inf: json.dumps would write the non-JSON `Infinity`
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        # older pydantic wraps a $ref that has siblings (a description) in allOf
        inner = all_of[0]
        if not set(inner) & (set(node) - {"allOf"}):
            node = {**{k: v for k, v in node.items() if k != "allOf"}, **inner}
    return node


def _is_json(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def inline_refs(schema: JsonObject) -> JsonObject:
    """Replace ``{"$ref": "#/$defs/X"}`` with the definition; keep ``$defs`` only if recursive."""
    defs = schema.get("$defs", {})
    if not defs:
        return schema
    recursive = False

    def resolve(node: object, seen: tuple[str, ...]) -> Any:
        nonlocal recursive
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref.split("/")[-1]
            if key in seen:
                recursive = True
                return node
            merged = {**defs[key], **{k: v for k, v in node.items() if k != "$ref"}}
            return resolve(merged, (*seen, key))
        return _map_subschemas({k: v for k, v in node.items() if k != "$defs"}, lambda sub: resolve(sub, seen))

    result = resolve(schema, ())
    if recursive:
        result["$defs"] = defs
    return result
