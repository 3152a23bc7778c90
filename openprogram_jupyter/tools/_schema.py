"""From a Python signature and docstring to a JSON Schema and an argument validator.

The schema is what the model sees; the validator (a pydantic model built from the same
annotations) is what arguments must pass before the function runs. Both come from one
source, so they cannot disagree.
"""

from __future__ import annotations

import inspect
import json
import typing
from dataclasses import dataclass
from typing import Any, Callable

import docstring_parser
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

__all__ = ["ArgumentError", "SchemaError", "SignatureSchema", "describe_validation_error", "inline_refs"]


class SchemaError(TypeError):
    """A function's signature cannot be described as a tool schema (raised at decoration)."""


class ArgumentError(ValueError):
    """Arguments failed validation; the message names each field and why."""


@dataclass
class SignatureSchema:
    """The description of one function as a tool.

    ``parameters`` is the JSON Schema object sent to the model. ``injected`` maps the names
    of parameters the framework fills in (``runtime``, a ``ToolContext``) to their kind;
    they are absent from the schema.
    """

    description: str
    parameters: dict[str, Any]
    validator: type[BaseModel]
    injected: dict[str, str]

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Return keyword arguments for the call, nested values turned into real instances.

        Validation is strict, as on JSON input: ``"3"`` is not an integer, extra fields
        are refused. Raises :class:`ArgumentError` naming every bad field.
        """
        try:
            validated = self.validator.model_validate_json(
                json.dumps(arguments, default=str), strict=True
            )
        except ValidationError as error:
            raise ArgumentError(describe_validation_error(error)) from None
        return {name: getattr(validated, name) for name in validated.model_fields_set}


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem: ``field.path: reason (got value)``."""
    lines = []
    for problem in error.errors(include_url=False):
        location = ".".join(str(part) for part in problem["loc"]) or "(arguments)"
        reason = problem["msg"]
        if problem["type"] == "missing":
            lines.append(f"{location}: missing required argument")
        elif problem["type"] == "extra_forbidden":
            lines.append(f"{location}: unexpected argument (not in the schema)")
        else:
            got = json.dumps(problem.get("input"), default=repr)
            if len(got) > 80:
                got = got[:77] + "..."
            lines.append(f"{location}: {reason} (got {got})")
    return "invalid arguments:\n" + "\n".join(f"- {line}" for line in lines)


def build_signature_schema(
    fn: Callable[..., Any],
    *,
    name: str,
    description: str | None,
    injectable: Callable[[inspect.Parameter, Any], str | None],
) -> SignatureSchema:
    """Describe ``fn``. ``injectable(param, annotation)`` names the injection kind or ``None``.

    Raises :class:`SchemaError` for ``*args`` / ``**kwargs``, a parameter with neither an
    annotation nor a default, and annotations pydantic cannot turn into a schema, naming
    the function and parameter in each case.
    """
    signature = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as error:  # an unresolvable forward reference
        raise SchemaError(f"{name}: cannot resolve the type annotations ({error})") from error
    doc = docstring_parser.parse(inspect.getdoc(fn) or "")
    param_docs = {p.arg_name.lstrip("*"): (p.description or "").strip() for p in doc.params}

    fields: dict[str, Any] = {}
    injected: dict[str, str] = {}
    for param in signature.parameters.values():
        annotation = hints.get(param.name, inspect.Parameter.empty)
        kind = injectable(param, annotation)
        if kind:
            injected[param.name] = kind
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            star = "*" if param.kind is inspect.Parameter.VAR_POSITIONAL else "**"
            raise SchemaError(
                f"{name}: parameter {star}{param.name} cannot be described to a model; "
                "list the parameters explicitly"
            )
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise SchemaError(f"{name}: positional-only parameter {param.name!r} cannot be passed by name")
        has_default = param.default is not inspect.Parameter.empty
        if annotation is inspect.Parameter.empty:
            if not has_default or param.default is None:
                raise SchemaError(
                    f"{name}: parameter {param.name!r} has no type annotation, so its schema "
                    "cannot be derived; annotate it (e.g. `x: int`)"
                )
            annotation = type(param.default)
        field_info = Field(
            default=param.default if has_default else ...,
            description=param_docs.get(param.name) or None,
        )
        fields[param.name] = (annotation, field_info)

    try:
        validator = create_model(  # type: ignore[call-overload]
            f"{name}_arguments",
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **fields,
        )
        parameters = validator.model_json_schema()
    except Exception as error:
        raise SchemaError(f"{name}: cannot derive a schema from the annotations ({error})") from error

    text = description if description is not None else _doc_description(doc)
    return SignatureSchema(text, _clean_schema(parameters), validator, injected)


def _doc_description(doc: docstring_parser.Docstring) -> str:
    parts = [doc.short_description or "", doc.long_description or ""]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$ref``s (unless recursive) and drop pydantic's auto-generated titles."""
    schema = inline_refs(schema)
    schema = _strip_titles(schema)
    schema.setdefault("properties", {})
    schema.setdefault("required", [])
    return schema


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace ``{"$ref": "#/$defs/X"}`` with the definition; keep ``$defs`` only if recursive."""
    defs = schema.get("$defs", {})
    if not defs:
        return schema
    recursive = False

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        nonlocal recursive
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                key = ref.split("/")[-1]
                if key in seen:
                    recursive = True
                    return node
                merged = {**defs[key], **{k: v for k, v in node.items() if k != "$ref"}}
                return resolve(merged, seen + (key,))
            return {k: resolve(v, seen) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        return node

    result = resolve(schema, ())
    if recursive:
        result["$defs"] = defs
    return result


def _strip_titles(node: Any, parent_key: str = "") -> Any:
    if isinstance(node, dict):
        return {
            k: _strip_titles(v, k)
            for k, v in node.items()
            # "title" inside "properties" is a parameter that happens to be called title.
            if not (k == "title" and parent_key != "properties" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    return node
