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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._decision_options import Option, example_pick, menu_text, normalize_options, render_menu
from .events import AgentStartEvent, MessageEndEvent
from .messages import AssistantMessage, TextContent, UserMessage
from .tools._schema import ArgumentError
from .tools.base import ToolContext

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


def _check(pick: Pick, options: list[Option]) -> tuple[Option, dict[str, Any]]:
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

    def __init__(self, options: list[Option], user_follow_ups: Callable[[], Sequence[Any]] | None) -> None:
        self.options = options
        self.user_follow_ups = user_follow_ups
        self.run_id: str | None = None
        self.last_reply: AssistantMessage | None = None
        self.errors: list[str] = []
        self.chosen: tuple[Option, dict[str, Any]] | None = None

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
    option_list = normalize_options(choices)
    judge = _Judge(option_list, options.get("get_follow_up_messages"))
    tools, toolset = options.get("tools"), options.get("toolset")
    work_first = not ((tools is not None and len(tools) == 0) or toolset == "none")
    user_on_event = options.get("on_event")

    def on_event(event: Any) -> None:
        judge.watch(event)
        if user_on_event is not None:
            user_on_event(event)

    run = await runtime.arun(
        _with_menu(content, menu_text(option_list, work_first=work_first)),
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


async def _resolve(option: Option, arguments: dict[str, Any], runtime: Runtime, run: Run) -> Any:
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


def _deny_option_tools(runtime: Runtime, options: list[Option], run_options: dict[str, Any]) -> list[str] | None:
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
