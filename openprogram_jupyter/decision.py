"""Decisions: ``exec(choices=...)`` and :func:`make` (DESIGN 2.8).

``runtime.exec(content, choices=options)`` lets the model work first — its tools stay on
the menu as usual — and then end with a pick among ``options``. The options are rendered
into the prompt as a menu; the model's last message must hold one JSON object
``{"call": "<option>", "args": {...}}`` (bare or in a fenced block). The pick is checked
against the option's schema; a bad pick gets one re-ask, in the same run, carrying the
problem; a second bad pick raises :class:`DecisionError`.

Options are a dict ``{name: option}`` or a list ``[option, ...]``. Each option is one of:

- a **function** (a ``@function``, any callable, or a ``{"spec", "execute"}`` tool): picked,
  it runs with the validated arguments and its return value is the result;
- a **value** (anything else, classes included): returned as is; arguments the model adds
  to a value pick are ignored;
- a **schema option** ``(description, schema)`` (dict form only): returns
  ``{"decision": name, **fields}``. ``schema`` maps field names to types: ``str``, ``int``,
  ``float``, ``bool``, ``[T]`` (a list of ``T``), a nested dict (an object), any type
  pydantic understands (``Literal[...]``, ``list[int]``, a model class), or
  ``(type, "description")``. Every field is required.

In the list form a function is named by its tool name, a value by ``str(value)`` (an
``Enum`` member by its ``name``). Function options that are registered tools are left
off the work menu (unless ``tools=`` names them): picking is how they run.
"""

from __future__ import annotations

import inspect
import json
import keyword
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, with_config
from typing_extensions import TypedDict

from .events import AgentStartEvent, MessageEndEvent
from .messages import AssistantMessage, TextContent, UserMessage
from .tools._schema import ArgumentError, SchemaError, build_signature_schema
from .tools.base import Tool, ToolContext, as_tool
from .tools.function import function

if TYPE_CHECKING:
    from .run import Run
    from .runtime import Runtime

__all__ = [
    "Decision",
    "DecisionError",
    "amake",
    "arun_with_choices",
    "example_pick",
    "make",
    "parse_pick",
    "render_menu",
]

PICK_KEYS = ("call", "action", "function", "tool")
"""Keys naming the picked option, in order of preference (the rest are aliases)."""

MAX_ATTEMPTS = 2
"""The first pick and one re-ask."""

_MENU_HEADER = "Options:"


class DecisionError(ValueError):
    """The model did not end with a valid pick, also after one re-ask.

    ``attempts`` is how many picks were read, ``errors`` what was wrong with each,
    ``reply`` the text of the last reply (``""`` if it had none) and ``run`` the whole
    record (also at ``runtime.last_run``).
    """

    def __init__(self, message: str, *, attempts: int, errors: list[str], reply: str,
                 run: Run | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.errors = errors
        self.reply = reply
        self.run = run


class _PickError(ValueError):
    """One pick could not be used; the message is what the model is told."""


@dataclass(frozen=True)
class Decision:
    """What was decided: the option's ``name``, the validated ``arguments``, the
    ``value`` it resolved to (also ``run.result``) and how many ``attempts`` it took."""

    option: str
    arguments: dict[str, Any]
    value: Any
    attempts: int


# -- options ---------------------------------------------------------------------------


@dataclass
class _Option:
    name: str
    kind: Literal["function", "value", "schema"]
    description: str
    parameters: dict[str, Any]
    validate: Callable[[dict[str, Any]], dict[str, Any]]
    value: Any = None
    tool: Tool | None = None


def _options(choices: Any) -> list[_Option]:
    """Normalize ``choices``; raise ``TypeError`` / ``ValueError`` naming the bad option."""
    if isinstance(choices, dict):
        entries = list(choices.items())
        for name, _ in entries:
            if not isinstance(name, str) or not name.strip() or "\n" in name:
                raise TypeError(f"choices: option names must be non-empty one-line strings, got {name!r}")
        options = [_option(name, option) for name, option in entries]
    elif isinstance(choices, (list, tuple)):
        options = []
        for option in choices:
            if _is_schema_option(option):
                raise TypeError(
                    f"choices: a schema option {option!r} needs a name; use the dict form "
                    "{name: (description, schema)}"
                )
            options.append(_option(_list_name(option), option))
    else:
        raise TypeError(f"choices must be a dict {{name: option}} or a list of options, not {type(choices).__name__}")
    if not options:
        raise ValueError("choices is empty: give the model at least one option")
    names = [o.name for o in options]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"choices: two options are named {', '.join(map(repr, duplicates))}; names must be unique")
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
            raise TypeError(f"choices: {error}; in the list form a function is named by its own "
                            "name, so give this one a name with the dict form {name: function}") from None
    if isinstance(option, Enum):
        return option.name
    return str(option)


def _option(name: str, option: Any) -> _Option:
    if _is_schema_option(option):
        description, schema = option
        signature = _schema_signature(name, description, schema)
        return _Option(name, "schema", description, signature.parameters, signature.validate)
    if _is_function(option):
        try:
            if _is_plain_callable(option):
                tool = function(option, name=_tool_name(name), register_globally=False)
            else:
                tool = as_tool(option)
        except SchemaError as error:
            raise TypeError(f"choices[{name!r}]: {error}") from None
        return _Option(name, "function", tool.description, tool.parameters, tool.validate, tool=tool)
    return _Option(name, "value", "", {"type": "object", "properties": {}}, lambda arguments: {}, value=option)


def _is_plain_callable(option: Any) -> bool:
    return callable(option) and not isinstance(option, (Tool, dict)) and not hasattr(option, "spec")


def _tool_name(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]
    return cleaned if re.match(r"[A-Za-z_]", cleaned) else f"option_{cleaned}"[:64]


# -- schema options: one schema system, the one tools use -------------------------------


def _schema_signature(name: str, description: str, schema: dict[str, Any]) -> Any:
    """A :class:`SignatureSchema` for a schema option, built like a function's.

    The fields become keyword-only parameters of a stand-in function, so the schema, the
    strict validation and the error wording are exactly those of ``@function`` tools.
    Nested dicts become closed ``TypedDict``s, so results are plain dicts.
    """
    if not schema:
        raise TypeError(f"choices[{name!r}]: the schema has no fields")
    parameters, docs = [], []
    for field_name, spec in schema.items():
        if not isinstance(field_name, str) or not field_name.isidentifier() or keyword.iskeyword(field_name):
            raise TypeError(
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
        return build_signature_schema(stand_in, name=_tool_name(name), description=description,
                                      injectable=lambda parameter, annotation: None)
    except SchemaError as error:
        raise TypeError(f"choices[{name!r}]: {error}") from None


def _field(spec: Any, path: str) -> tuple[Any, str]:
    """``(annotation, description)`` for one field of a schema option."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str):
        annotation, _ = _field(spec[0], path)
        return annotation, spec[1]
    if isinstance(spec, dict):
        if not spec:
            raise TypeError(f"choices: field {path!r} is an empty object; give it fields or use dict")
        fields = {}
        for key, value in spec.items():
            annotation, description = _field(value, f"{path}.{key}")
            fields[key] = Annotated[annotation, Field(description=description)] if description else annotation
        nested = TypedDict(re.sub(r"\W", "_", path), fields)  # type: ignore[misc]
        return with_config(ConfigDict(extra="forbid"))(nested), ""
    if isinstance(spec, list):
        if len(spec) != 1:
            raise TypeError(f"choices: field {path!r}: a list type is written [T], with one item type, not {spec!r}")
        item, _ = _field(spec[0], f"{path}[]")
        return list[item], ""  # type: ignore[valid-type]
    if isinstance(spec, str):
        raise TypeError(f"choices: field {path!r} is the string {spec!r}; give a type (str, not 'str')")
    try:
        TypeAdapter(spec).json_schema()
    except Exception as error:
        raise TypeError(f"choices: field {path!r}: {spec!r} is not a type that can be described ({error})") from None
    return spec, ""


# -- the menu ----------------------------------------------------------------------------


def render_menu(choices: Any, *, work_first: bool = True) -> str:
    """The text appended to the prompt: how to answer, then one entry per option.

    Each entry is the option's signature, its description, and one ``Call:`` line with
    example arguments that satisfy its schema. ``work_first`` says the model may use its
    tools before it picks.
    """
    return _render_menu(_options(choices), work_first=work_first)


def _render_menu(options: list[_Option], *, work_first: bool) -> str:
    names = ", ".join(o.name for o in options)
    lead = (
        "When you have done what is needed (use your tools if they help), end your final message "
        "with your choice among the options below."
        if work_first else "Choose exactly one of the options below."
    )
    lines = [
        lead,
        'Write it as one JSON object {"call": "<option>", "args": {...}} — bare or in a ```json '
        "block — with the arguments the option's signature asks for, and write no other JSON "
        f"object with a \"call\" key. The options are: {names}.",
        "",
        _MENU_HEADER,
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


def _shows_value(option: _Option) -> bool:
    """A short text or number value tells the model what the option means; other values
    (objects, ``None``, the name itself) would only be noise."""
    value = option.value
    return (isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value) != option.name
            and len(str(value)) <= 120)


def _signature(option: _Option) -> str:
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


def _type_text(schema: Any) -> str:
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


def _example_call(option: _Option) -> str:
    from .models.offline import example_arguments

    arguments = {} if option.kind == "value" else example_arguments(option.parameters)
    return json.dumps({"call": option.name, "args": arguments}, ensure_ascii=False)


def example_pick(text: str) -> str | None:
    """The first ``Call:`` example of a menu inside ``text``, or ``None`` if it has none.

    For models that cannot weigh options (the offline model): a valid pick to answer with.
    """
    if _MENU_HEADER not in text:
        return None
    for line in text.split(_MENU_HEADER, 1)[1].splitlines():
        if line.strip().startswith("Call: {"):
            return line.strip()[len("Call: "):]
    return None


# -- reading the pick ----------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """A pick read from a reply: the option's ``name`` and the ``arguments`` given."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def parse_pick(text: str) -> Pick:
    """Read the one pick in ``text``.

    Every JSON object in the text (bare, or inside a fenced block) is read; those with a
    ``call`` key (or ``action``, ``function``, ``tool``) are picks. ``args`` (or
    ``arguments``) holds the arguments; absent means none. Raises ``ValueError`` saying
    what is wrong: no text, malformed JSON, no pick, two picks, a name that is not a
    string, arguments that are not an object.
    """
    if not text.strip():
        raise _PickError('the reply has no text; it must end with {"call": "<option>", "args": {...}}')
    objects, first_error = _json_objects(text)
    picks = [o for o in objects if any(key in o for key in PICK_KEYS)]
    if not picks:
        if first_error is not None:
            raise _PickError(f"malformed JSON: {first_error}")
        raise _PickError('no pick found: the reply holds no JSON object with a "call" key')
    if len(picks) > 1:
        named = ", ".join(repr(_pick_name(p)) for p in picks)
        raise _PickError(f"two picks: the reply holds {len(picks)} JSON picks ({named}); give exactly one")
    pick = picks[0]
    name = _pick_name(pick)
    if not isinstance(name, str) or not name:
        raise _PickError(f'the "call" value must be the option name as a string, got {json.dumps(name)}')
    arguments = pick.get("args", pick.get("arguments", {}))
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise _PickError(f'"args" must be a JSON object, got {type(arguments).__name__} {json.dumps(arguments)[:80]}')
    return Pick(name, arguments)


def _pick_name(pick: dict[str, Any]) -> Any:
    key = next(k for k in PICK_KEYS if k in pick)
    value = pick[key]
    if isinstance(value, dict) and isinstance(value.get("name"), str):  # {"function": {"name": ...}}
        return value["name"]
    return value


def _json_objects(text: str) -> tuple[list[dict[str, Any]], str | None]:
    """Every top-level JSON object in ``text``, and the first decode error met."""
    decoder = json.JSONDecoder()
    objects: list[dict[str, Any]] = []
    first_error: str | None = None
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            if first_error is None:
                where = "it ends early (cut off?)" if error.pos >= len(text.rstrip()) else (
                    f"line {error.lineno} column {error.colno}")
                first_error = f"{error.msg} ({where}) in {_excerpt(text[position:], 60)}"
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            objects.append(value)
        position = text.find("{", end)
    return objects, first_error


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def _check(pick: Pick, options: list[_Option]) -> tuple[_Option, dict[str, Any]]:
    """The option picked and its validated keyword arguments, or ``_PickError``."""
    by_name = {o.name: o for o in options}
    option = by_name.get(pick.name)
    if option is None:
        raise _PickError(f"unknown option {pick.name!r}; the options are: {', '.join(by_name)}")
    try:
        arguments = option.validate(pick.arguments)
    except ArgumentError as error:
        raise _PickError(f"the arguments for {option.name!r} do not fit its schema: {error}") from None
    order = list(option.parameters.get("properties", {}))
    return option, dict(sorted(arguments.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))


# -- running -------------------------------------------------------------------------------


class _Judge:
    """Watches one run's replies and reads the pick when the run would end.

    It is the run's follow-up source: when the model finishes, the last reply is read;
    a bad pick returns one re-ask message (so the same run continues), a good one or a
    second bad one returns nothing (so the run ends).
    """

    def __init__(self, options: list[_Option], user_follow_ups: Callable[[], Sequence[Any]] | None) -> None:
        self.options = options
        self.user_follow_ups = user_follow_ups
        self.run_id: str | None = None
        self.last_reply: AssistantMessage | None = None
        self.errors: list[str] = []
        self.chosen: tuple[_Option, dict[str, Any]] | None = None

    def watch(self, event: Any) -> None:
        if self.run_id is None and type(event) is AgentStartEvent:
            self.run_id = event.run_id
        elif (type(event) is MessageEndEvent and event.run_id == self.run_id
              and isinstance(event.message, AssistantMessage)):
            self.last_reply = event.message

    def follow_ups(self) -> list[Any]:
        queued = list(self.user_follow_ups() or []) if self.user_follow_ups is not None else []
        if queued:
            return queued
        try:
            self.chosen = _check(parse_pick(self.reply_text), self.options)
        except _PickError as error:
            self.errors.append(str(error))
            if len(self.errors) < MAX_ATTEMPTS:
                return [UserMessage(content=self._reask(str(error)))]
        return []

    @property
    def reply_text(self) -> str:
        return self.last_reply.text if self.last_reply is not None else ""

    def _reask(self, error: str) -> str:
        names = ", ".join(o.name for o in self.options)
        return (
            f"Your last message did not hold a valid choice: {error}\n"
            'End your reply with exactly one JSON object {"call": "<option>", "args": {...}}, '
            f"naming one of: {names}."
        )

    def failure(self, run: Run, max_iterations: Any) -> DecisionError:
        errors = list(self.errors)
        if run.stop_reason == "max_iterations":
            errors.append(
                f"the run reached its round cap (max_iterations={max_iterations}) before "
                + ("the re-ask could be sent" if self.errors else "the model finished, so it made no pick")
            )
        attempts = len(self.errors)
        reply = self.reply_text
        message = (
            f"no valid decision after {attempts} attempt{'s' if attempts != 1 else ''}: "
            f"{errors[-1] if errors else 'no pick was read'}. "
            f"The reply began: {_excerpt(reply, 120) if reply else '(no text)'}"
        )
        return DecisionError(message, attempts=attempts, errors=errors, reply=reply, run=run)


async def arun_with_choices(runtime: Runtime, content: Any, choices: Any, options: dict[str, Any]) -> Run:
    """Run ``content`` with ``choices`` (``Runtime.arun`` calls this when ``choices`` is set).

    ``options`` are ``arun``'s other keyword arguments. Returns the :class:`Run` with
    ``run.result`` the resolved decision and ``run.decision`` a :class:`Decision`. A run
    that failed or was stopped is returned without a decision (``exec`` then raises
    ``RunError`` or returns the partial text, as without choices). Raises
    :class:`DecisionError` when the model made no valid pick after one re-ask (or hit the
    round cap first), ``TypeError`` / ``ValueError`` for bad ``choices`` before anything
    runs. A function option that raises propagates its exception.
    """
    option_list = _options(choices)
    judge = _Judge(option_list, options.get("get_follow_up_messages"))
    tools, toolset = options.get("tools"), options.get("toolset")
    work_first = not ((tools is not None and len(tools) == 0) or toolset == "none")
    user_on_event = options.get("on_event")

    def on_event(event: Any) -> None:
        judge.watch(event)
        if user_on_event is not None:
            user_on_event(event)

    run = await runtime.arun(
        _with_menu(content, _render_menu(option_list, work_first=work_first)),
        **{**options, "on_event": on_event, "get_follow_up_messages": judge.follow_ups,
           "tools_deny": _deny_option_tools(runtime, option_list, options)},
    )
    if run.stop_reason in ("error", "aborted"):
        return run
    if judge.chosen is None:
        raise judge.failure(run, options.get("max_iterations"))
    option, arguments = judge.chosen
    value = await _resolve(option, arguments, runtime, run)
    run.result = value
    run.decision = Decision(option.name, arguments, value, len(judge.errors) + 1)  # type: ignore[attr-defined]
    return run


async def _resolve(option: _Option, arguments: dict[str, Any], runtime: Runtime, run: Run) -> Any:
    if option.kind == "value":
        return option.value
    if option.kind == "schema":
        return {"decision": option.name, **arguments}
    assert option.tool is not None
    context = ToolContext(tool_call_id=f"decision_{run.run_id}", tool_name=option.name, run_id=run.run_id,
                          depth=run.depth, runtime=runtime)
    result = option.tool.call(dict(arguments), context)
    return await result if inspect.isawaitable(result) else result


def _with_menu(content: Any, menu: str) -> Any:
    if isinstance(content, str):
        return f"{content.rstrip()}\n\n{menu}" if content.strip() else menu
    if isinstance(content, UserMessage):
        if isinstance(content.content, str):
            return content.model_copy(update={"content": f"{content.content.rstrip()}\n\n{menu}"})
        return content.model_copy(update={"content": [*content.content, TextContent(text=menu)]})
    if isinstance(content, (list, tuple)):
        return [*content, TextContent(text=menu)]
    return content  # arun says what is wrong with it


def _deny_option_tools(runtime: Runtime, options: list[_Option], run_options: dict[str, Any]) -> list[str] | None:
    """Keep function options off the work menu: picking them is how they run.

    Only registered tools can be on the default menu; an explicit ``tools=`` list is the
    caller's choice and is left alone.
    """
    deny = list(run_options.get("tools_deny") or [])
    if run_options.get("tools") is None:
        registered = {o.tool.name for o in options if o.tool is not None and runtime.registry.get(o.tool.name) is o.tool}
        deny += sorted(registered - set(deny))
    return deny or run_options.get("tools_deny")


# -- the public helpers ------------------------------------------------------------------


def _pick_runtime(runtime: Runtime | None) -> Runtime:
    if runtime is not None:
        return runtime
    from .runtime import current_runtime, default_runtime

    return current_runtime() or default_runtime()


def make(prompt: str, options: Any, runtime: Runtime | None = None) -> Any:
    """Ask the model to pick one of ``options`` straight away (no tools) and return the result.

    ``runtime`` defaults to the ambient one: the Runtime of the run whose tool is
    executing (inside an ``@agentic_function`` body), else the notebook's default.
    Raises :class:`DecisionError` (a ``ValueError``) when no valid pick came after one
    re-ask; ``RunError`` when the model call failed.
    """
    return _pick_runtime(runtime).exec(prompt, choices=options, tools=[])


async def amake(prompt: str, options: Any, runtime: Runtime | None = None) -> Any:
    """:func:`make` for async code (an async tool body, a notebook's top-level ``await``)."""
    return await _pick_runtime(runtime).aexec(prompt, choices=options, tools=[])
