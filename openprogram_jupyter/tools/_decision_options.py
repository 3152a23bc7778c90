"""The options of a decision: what each may be, its schema, and the menu the model reads.

See :mod:`openprogram_jupyter.lab.decision` for the rules; this module turns ``choices`` into
:class:`Option` records (refusing bad ones before anything runs) and renders the menu.
Schema options get their schema and validator from ``build_signature_schema``, the one
schema system tools use.
"""

from __future__ import annotations

import inspect
import json
import keyword
import re
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, with_config
from typing_extensions import TypedDict

from ..core._json import JsonObject
from ..core.errors import SetupError
from ..core.messages import TextContent, UserMessage
from ._schema import SchemaError, build_signature_schema
from .base import Tool
from .examples import example_arguments
from .function import function
from .menu import as_tool

if TYPE_CHECKING:
    from .registry import Registry

__all__ = [
    "MENU_HEADER",
    "Option",
    "PreparedChoices",
    "example_pick",
    "menu_text",
    "normalize_options",
    "prepare_choices",
    "prompt_with_menu",
    "render_menu",
    "tools_to_hide",
]

MENU_HEADER = "Options:"


@dataclass
class Option:
    name: str
    kind: Literal["function", "value", "schema"]
    description: str
    parameters: JsonObject
    validate: Callable[[JsonObject], dict[str, Any]]
    value: object = None
    tool: Tool | None = None


@dataclass(frozen=True)
class PreparedChoices:
    """Choices normalized once (:func:`prepare_choices`), for a caller that asks the same
    question of many runs (a judge): each run takes the options as they are, instead of
    building a schema option's validator again (milliseconds each)."""

    options: tuple[Option, ...]


def prepare_choices(choices: Any) -> PreparedChoices:
    """``choices`` normalized once, to pass as ``choices=`` to any number of runs."""
    return PreparedChoices(tuple(normalize_options(choices)))


def normalize_options(choices: Any) -> list[Option]:
    """Normalize ``choices``; raise ``TypeError`` / ``ValueError`` naming the bad option."""
    if isinstance(choices, PreparedChoices):
        return list(choices.options)
    if isinstance(choices, dict):
        entries = list(choices.items())
        for name, _ in entries:
            if not isinstance(name, str) or not name.strip() or "\n" in name:
                raise SetupError(f"choices: option names must be non-empty one-line strings, got {name!r}")
        options = [_option(name, option) for name, option in entries]
    elif isinstance(choices, (list, tuple)):
        options = []
        for option in choices:
            if _is_schema_option(option):
                raise SetupError(
                    f"choices: a schema option {option!r} needs a name; use the dict form "
                    "{name: (description, schema)}"
                )
            options.append(_option(_list_name(option), option))
    else:
        raise SetupError(f"choices must be a dict {{name: option}} or a list of options, not {type(choices).__name__}")
    if not options:
        raise SetupError("choices is empty: give the model at least one option")
    names = [o.name for o in options]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SetupError(f"choices: two options are named {', '.join(map(repr, duplicates))}; names must be unique")
    return options


def _is_schema_option(option: Any) -> bool:
    return isinstance(option, tuple) and len(option) == 2 and isinstance(option[0], str) and isinstance(option[1], dict)


def _is_function(option: Any) -> bool:
    if isinstance(option, Tool):
        return True
    if isinstance(option, dict):
        return "spec" in option and "execute" in option
    if isinstance(option, type):
        return False
    return callable(option) or (hasattr(option, "spec") and hasattr(option, "execute"))


def _list_name(option: Any) -> str:
    if _is_function(option):
        try:
            return as_tool(option).name
        except SchemaError as error:
            raise SetupError(
                f"choices: {error}; in the list form a function is named by its own "
                "name, so give this one a name with the dict form {name: function}"
            ) from None
    if isinstance(option, Enum):
        return option.name
    return str(option)


def _option(name: str, option: Any) -> Option:
    if _is_schema_option(option):
        description, schema = option
        signature = _schema_signature(name, description, schema)
        return Option(name, "schema", description, signature.parameters, signature.validate)
    if _is_function(option):
        try:
            if _is_plain_callable(option):
                tool = function(option, name=_tool_name(name), register_globally=False)
            else:
                tool = as_tool(option)
        except SchemaError as error:
            raise SetupError(f"choices[{name!r}]: {error}") from None
        return Option(name, "function", tool.description, tool.parameters, tool.validate, tool=tool)
    return Option(name, "value", "", {"type": "object", "properties": {}}, lambda arguments: {}, value=option)


def _is_plain_callable(option: object) -> bool:
    return callable(option) and not isinstance(option, (Tool, dict)) and not hasattr(option, "spec")


def _tool_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]
    return cleaned if re.match(r"[A-Za-z_]", cleaned) else f"option_{cleaned}"[:64]


# -- schema options: one schema system, the one tools use -------------------------------


def _schema_signature(name: str, description: str, schema: JsonObject) -> Any:
    """A :class:`SignatureSchema` for a schema option, built like a function's.

    The fields become keyword-only parameters of a stand-in function, so the schema, the
    strict validation and the error wording are exactly those of ``@function`` tools.
    Nested dicts become closed ``TypedDict``s, so results are plain dicts.
    """
    if not schema:
        raise SetupError(f"choices[{name!r}]: the schema has no fields")
    parameters, docs = [], []
    for field_name, spec in schema.items():
        if not isinstance(field_name, str) or not field_name.isidentifier() or keyword.iskeyword(field_name):
            raise SetupError(
                f"choices[{name!r}]: top-level field {field_name!r} must be a Python identifier "
                "(nested objects may use any string)"
            )
        annotation, field_doc = _field(spec, f"{name}.{field_name}")
        parameters.append(inspect.Parameter(field_name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation))
        if field_doc:
            docs.append(f"    {field_name}: {' '.join(field_doc.split())}")

    def stand_in(**fields: Any) -> dict[str, Any]:
        return fields

    stand_in.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    stand_in.__annotations__ = {p.name: p.annotation for p in parameters}
    stand_in.__doc__ = "The option's fields.\n\nArgs:\n" + "\n".join(docs) if docs else None
    try:
        return build_signature_schema(
            stand_in, name=_tool_name(name), description=description, injectable=lambda parameter, annotation: None
        )
    except SchemaError as error:
        raise SetupError(f"choices[{name!r}]: {error}") from None


def _field(spec: Any, path: str) -> tuple[Any, str]:
    """``(annotation, description)`` for one field of a schema option."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str):
        annotation, _ = _field(spec[0], path)
        return annotation, spec[1]
    if isinstance(spec, dict):
        if not spec:
            raise SetupError(f"choices: field {path!r} is an empty object; give it fields or use dict")
        fields = {}
        for key, value in spec.items():
            annotation, description = _field(value, f"{path}.{key}")
            fields[key] = Annotated[annotation, Field(description=description)] if description else annotation
        nested = TypedDict(re.sub(r"\W", "_", path), fields)  # type: ignore[misc]
        return with_config(ConfigDict(extra="forbid"))(nested), ""
    if isinstance(spec, list):
        if len(spec) != 1:
            raise SetupError(f"choices: field {path!r}: a list type is written [T], with one item type, not {spec!r}")
        item, _ = _field(spec[0], f"{path}[]")
        return types.GenericAlias(list, (item,)), ""  # list[item], with item known at run time
    if isinstance(spec, str):
        raise SetupError(f"choices: field {path!r} is the string {spec!r}; give a type (str, not 'str')")
    try:
        TypeAdapter(spec).json_schema()
    except Exception as error:
        raise SetupError(f"choices: field {path!r}: {spec!r} is not a type that can be described ({error})") from None
    return spec, ""


# -- the menu ----------------------------------------------------------------------------


def render_menu(choices: object, *, work_first: bool = True) -> str:
    """The text appended to the prompt: how to answer, then one entry per option.

    Each entry is the option's signature, its description, and one ``Call:`` line with
    example arguments that satisfy its schema. ``work_first`` says the model may use its
    tools before it picks.
    """
    return menu_text(normalize_options(choices), work_first=work_first)


def menu_text(options: list[Option], *, work_first: bool) -> str:
    names = ", ".join(o.name for o in options)
    lead = (
        "When you have done what is needed (use your tools if they help), end your final message "
        "with your choice among the options below."
        if work_first
        else "Choose exactly one of the options below."
    )
    lines = [
        lead,
        'Write it as one JSON object {"call": "<option>", "args": {...}} — bare or in a ```json '
        "block — with the arguments the option's signature asks for, and write no other JSON "
        f'object with a "call" key. The options are: {names}.',
        "",
        MENU_HEADER,
    ]
    for number, option in enumerate(options, 1):
        lines.append(f"{number}. {_signature(option)}")
        if option.description:
            lines += [f"   {line}" for line in option.description.strip().splitlines()]
        elif option.kind == "value" and _shows_value(option):
            lines.append(f"   Means: {json.dumps(option.value, ensure_ascii=False)}")
        for param, schema in option.parameters.get("properties", {}).items():
            if isinstance(schema, dict) and schema.get("description"):
                lines.append(f"   - {param}: {schema['description']}")
        lines.append(f"   Call: {_example_call(option)}")
    return "\n".join(lines)


def _shows_value(option: Option) -> bool:
    """A short text or number value tells the model what the option means; other values
    (objects, ``None``, the name itself) would only be noise."""
    value = option.value
    return (
        isinstance(value, (str, int, float))
        and not isinstance(value, bool)
        and str(value) != option.name
        and len(str(value)) <= 120
    )


def _signature(option: Option) -> str:
    properties = option.parameters.get("properties", {})
    if option.kind == "value" or not properties:
        return option.name if option.kind == "value" else f"{option.name}()"
    required = set(option.parameters.get("required", []))
    parts = []
    for param, schema in properties.items():
        text = f"{param}: {_type_text(schema)}"
        if param not in required:
            text += f" = {json.dumps(schema.get('default'))}" if "default" in schema else " (optional)"
        parts.append(text)
    return f"{option.name}({', '.join(parts)})"


def _type_text(schema: object) -> str:
    """A compact reading of a JSON Schema: ``string``, ``[integer]``, ``{a: string}``."""
    if not isinstance(schema, dict):
        return "any"
    if "const" in schema:
        return json.dumps(schema["const"])
    if schema.get("enum"):
        return " | ".join(json.dumps(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(_type_text(s) for s in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_type_text({**schema, "type": k}) for k in kind)
    if kind == "array" or "items" in schema:
        return f"[{_type_text(schema.get('items', {}))}]"
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties")
        if not properties:
            return "object"
        return "{" + ", ".join(f"{k}: {_type_text(v)}" for k, v in properties.items()) + "}"
    return str(kind or "any")


def _example_call(option: Option) -> str:
    arguments = {} if option.kind == "value" else example_arguments(option.parameters)
    return json.dumps({"call": option.name, "args": arguments}, ensure_ascii=False)


def example_pick(text: str) -> str | None:
    """The first ``Call:`` example of a menu inside ``text``, or ``None`` if it has none.

    For models that cannot weigh options (the offline model): a valid pick to answer with.
    """
    if MENU_HEADER not in text:
        return None
    for line in text.split(MENU_HEADER, 1)[1].splitlines():
        if line.strip().startswith("Call: {"):
            return line.strip()[len("Call: ") :]
    return None


def prompt_with_menu(content: object, menu: str) -> Any:
    """``content`` (a str, a ``UserMessage`` or a list of content blocks) with the decision
    menu appended as its last text; anything else is returned as is for the caller to refuse."""
    if isinstance(content, str):
        return f"{content.rstrip()}\n\n{menu}" if content.strip() else menu
    if isinstance(content, UserMessage):
        if isinstance(content.content, str):
            return content.model_copy(update={"content": f"{content.content.rstrip()}\n\n{menu}"})
        return content.model_copy(update={"content": [*content.content, TextContent(text=menu)]})
    if isinstance(content, (list, tuple)):
        return [*content, TextContent(text=menu)]
    return content


def tools_to_hide(registry: Registry, options: list[Option], tools: Sequence[object] | None) -> list[str]:
    """The names of function options to keep off the work menu: picking them is how they run.

    Only registered tools can be on the default menu; an explicit ``tools=`` list is the
    caller's choice and is left alone (nothing is hidden).
    """
    if tools is not None:
        return []
    return sorted({o.tool.name for o in options if o.tool is not None and registry.get(o.tool.name) is o.tool})
