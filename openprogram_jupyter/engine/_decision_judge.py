"""Reading a decision's pick and seeing a decision run through (``choices=``).

The engine runs a decision as an ordinary run with a :class:`Judge` attached: the judge
watches the run's replies and is its follow-up source. When the model would finish, the
judge reads the pick from the last reply; a bad pick returns one re-ask (the same run goes
on), a good or second bad one ends it. :meth:`Judge.conclude` then resolves the pick into
the run's :class:`Decision`, or raises :class:`DecisionError`. The rules are in
docs/decisions.md.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core._json import JsonObject
from ..core.errors import ArgumentError, DecisionError, ToolExit
from ..core.events import AgentStartEvent, MessageEndEvent
from ..core.messages import AssistantMessage, UserMessage
from ..tools._decision_options import Option
from ..tools.base import ToolContext

if TYPE_CHECKING:
    from ..core.events import Event
    from ._runtime_shape import EngineRuntime
    from .run import Run

__all__ = ["MAX_ATTEMPTS", "PICK_KEYS", "Decision", "Judge", "Pick", "check_pick", "parse_pick"]

PICK_KEYS = ("call", "action", "function", "tool")
"""Keys naming the picked option, in order of preference (the rest are aliases)."""

MAX_ATTEMPTS = 2
"""The first pick and one re-ask."""


class _PickError(ValueError):
    """One pick could not be used; the message is what the model is told."""


@dataclass(frozen=True)
class Decision:
    """What was decided: the option's ``name``, the validated ``arguments``, the
    ``value`` it resolved to (also ``run.result``) and how many ``attempts`` it took."""

    option: str
    arguments: JsonObject
    value: object
    attempts: int


# -- reading the pick ----------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """A pick read from a reply: the option's ``name`` and the ``arguments`` given."""

    name: str
    arguments: JsonObject = field(default_factory=dict)


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


def _pick_name(pick: JsonObject) -> Any:
    key = next(k for k in PICK_KEYS if k in pick)
    value = pick[key]
    if isinstance(value, dict) and isinstance(value.get("name"), str):  # {"function": {"name": ...}}
        return value["name"]
    return value


def _json_objects(text: str) -> tuple[list[JsonObject], str | None]:
    """Every top-level JSON object in ``text``, and the first decode error met."""
    decoder = json.JSONDecoder()
    objects: list[JsonObject] = []
    first_error: str | None = None
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            if first_error is None:
                where = (
                    "it ends early (cut off?)"
                    if error.pos >= len(text.rstrip())
                    else (f"line {error.lineno} column {error.colno}")
                )
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


def check_pick(pick: Pick, options: Sequence[Option]) -> tuple[Option, dict[str, Any]]:
    """The option picked and its validated keyword arguments, or ``_PickError``."""
    by_name = {o.name: o for o in options}
    option = by_name.get(pick.name)
    if option is None:
        raise _PickError(f"unknown option {pick.name!r}; the options are: {', '.join(by_name)}")
    try:
        arguments = option.validate(pick.arguments)
    except ArgumentError as error:
        raise _PickError(f"the arguments for {option.name!r} do not fit its schema: {error}") from None
    order = {name: index for index, name in enumerate(option.parameters.get("properties", {}))}
    return option, dict(sorted(arguments.items(), key=lambda item: order.get(item[0], len(order))))


# -- seeing a decision run through ------------------------------------------------------


# How a decision's failure names the limit that ended its run before a valid pick.
_LIMIT_WORDS = {
    "max_iterations": "its round cap (max_iterations={max_iterations})",
    "max_cost": "its cost limit (max_cost)",
    "max_tokens": "its token limit (max_tokens)",
}


class Judge:
    """Watches one run's replies and reads the pick when the run would end.

    :meth:`watch` sees every event; :meth:`follow_ups` is the run's follow-up source (the
    caller's own follow-ups come first): when the model finishes, the last reply is read;
    a bad pick returns one re-ask message (so the same run continues), a good one or a
    second bad one returns nothing (so the run ends). :meth:`conclude` resolves the pick.
    """

    def __init__(self, options: Sequence[Option], user_follow_ups: Callable[[], Sequence[Any]] | None) -> None:
        self.options = list(options)
        self.user_follow_ups = user_follow_ups
        self.run_id: str | None = None
        self.last_reply: AssistantMessage | None = None
        self.errors: list[str] = []
        self.chosen: tuple[Option, JsonObject] | None = None

    def watch(self, event: Event) -> None:
        if self.run_id is None and type(event) is AgentStartEvent:
            self.run_id = event.run_id
        elif (
            type(event) is MessageEndEvent
            and event.run_id == self.run_id
            and isinstance(event.message, AssistantMessage)
        ):
            self.last_reply = event.message

    def follow_ups(self) -> list[Any]:
        queued = list(self.user_follow_ups() or []) if self.user_follow_ups is not None else []
        if queued:
            return queued
        try:
            self.chosen = check_pick(parse_pick(self.reply_text), self.options)
        except _PickError as error:
            self.errors.append(str(error))
            if len(self.errors) < MAX_ATTEMPTS:
                return [UserMessage(content=self._reask(str(error)))]
        return []

    async def conclude(self, run: Run, *, runtime: EngineRuntime, max_iterations: int | None) -> None:
        """Resolve the pick into ``run.decision`` and ``run.result``.

        A run that failed or was stopped is left without a decision. Raises
        :class:`DecisionError` (carrying the run) when no valid pick was read. A function
        option runs now, with the validated arguments; if it raises, its exception
        propagates (the run is complete and already on ``runtime.last_run``).
        """
        if run.stop_reason in ("error", "aborted"):
            return
        if self.chosen is None:
            raise self._failure(run, max_iterations)
        option, arguments = self.chosen
        value = await _resolve(option, arguments, run, runtime)
        run.result = value
        run.decision = Decision(option.name, arguments, value, len(self.errors) + 1)

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

    def _failure(self, run: Run, max_iterations: int | None) -> DecisionError:
        errors = list(self.errors)
        if run.stop_reason in _LIMIT_WORDS:
            limit = _LIMIT_WORDS[run.stop_reason].format(max_iterations=max_iterations)
            errors.append(
                f"the run reached {limit} before "
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


async def _resolve(option: Option, arguments: JsonObject, run: Run, runtime: EngineRuntime) -> Any:
    if option.kind == "value":
        return option.value
    if option.kind == "schema":
        return {"decision": option.name, **arguments}
    assert option.tool is not None
    context = ToolContext(
        tool_call_id=f"decision_{run.run_id}",
        tool_name=option.name,
        run_id=run.run_id,
        depth=run.depth,
        runtime=runtime,
    )
    result = option.tool.call(dict(arguments), context)
    try:
        return await result if inspect.isawaitable(result) else result
    except ToolExit as wrapped:  # a sync option's thread wraps what it raises: the caller gets the original
        if isinstance(wrapped.original, Exception):
            raise wrapped.original from None
        raise
