"""``RunSpec``: everything one run needs, built and checked once.

Every face builds one: the Python API (``Runtime.arun(content, **options)`` calls
:func:`build_spec`) and the ``%%agent`` flags (the flag table in
:mod:`openprogram_jupyter.jupyter._options` maps flags onto the same options). The
engine runs a spec and nothing else; the loop reads its settings from it. A bad setting
raises :class:`~openprogram_jupyter.errors.SetupError` here, before a model is asked.

To add a run setting: a field on :class:`RunSpec` and :class:`RunOptions`, a parameter of
:func:`build_spec` (with its check), a flag in the table, and the code that reads it in
the loop — see docs/architecture.md.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import Unpack

from ._ambient import CallFrame, current_call
from ._decision_options import Option, menu_text, normalize_options, prompt_with_menu, tools_to_hide
from .errors import SetupError
from .messages import AssistantMessage, ImageContent, TextContent, ToolResultMessage, UserMessage, parse_message
from .models.base import ToolChoice, normalize_tool_choice
from .tools.menu import Menu, resolve_menu

if TYPE_CHECKING:
    from .tool_execution import Approver
    from .tools.registry import Registry

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_MAX_TOOL_CALLS",
    "DecisionSetup",
    "ReplayedRound",
    "RunHooks",
    "RunOptions",
    "RunSpec",
    "RuntimeDefaults",
    "build_spec",
]

DEFAULT_MAX_ITERATIONS = 20
DEFAULT_MAX_TOOL_CALLS = 500

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage
MessageSource = Callable[[], Sequence[Any]]
EventWatcher = Callable[[Any], None]

_UNSET: Any = object()


@dataclass(frozen=True)
class DecisionSetup:
    """``choices=`` as checked: the options, and whether the model may use tools first."""

    options: tuple[Option, ...]
    work_first: bool


@dataclass(frozen=True)
class ReplayedRound:
    """One recorded round a forked run plays back instead of asking the model and running
    tools: the ``reply``, the ``results`` of its calls, and the user messages delivered
    ``then`` (steering, follow-ups) before the next round."""

    reply: AssistantMessage
    results: tuple[ToolResultMessage, ...] = ()
    then: tuple[UserMessage, ...] = ()


@dataclass(frozen=True)
class RunSpec:
    """One run, fully described.

    Settings: ``prompts`` (appended at the start), ``history`` (earlier conversation),
    ``system``, ``menu`` (the tools after every gating layer), ``tool_choice`` (normalised),
    ``parallel_tool_calls``, ``max_iterations`` (``None``: no cap), ``max_tool_calls``
    (the top-level run's budget of tool calls, nested runs' included; ``None``: none),
    ``max_cost`` (dollars) and ``max_tokens`` (the run's spending limits, nested runs'
    replies included; ``None``: none), ``finish_at_limit`` (a reached limit ends with one
    last tool-free round that answers), ``text_tool_calls`` (read calls the model wrote
    as text), ``decision`` (from ``choices=``), ``step`` (every call waits for the
    approver), ``replay`` (recorded rounds played back first, from the run
    ``replayed_from``: see ``Run.fork``). Context: ``depth`` and ``parent`` (the tool
    call a nested run runs inside) and ``inherited_tools`` (the ``tools=`` list nested
    runs inherit). Hooks:
    ``on_event``, ``approve``, ``get_steering_messages``, ``get_follow_up_messages``,
    ``abort``. :meth:`with_hooks` returns a copy with hooks added.
    """

    prompts: tuple[UserMessage, ...]
    menu: Menu
    history: tuple[AnyMessage, ...] = ()
    system: str | None = None
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool | None = None
    max_iterations: int | None = DEFAULT_MAX_ITERATIONS
    max_tool_calls: int | None = DEFAULT_MAX_TOOL_CALLS
    max_cost: float | None = None
    max_tokens: int | None = None
    finish_at_limit: bool = True
    text_tool_calls: bool = False
    decision: DecisionSetup | None = None
    step: bool = False
    replay: tuple[ReplayedRound, ...] = field(default=(), repr=False)
    replayed_from: str | None = None
    depth: int = 0
    parent: CallFrame | None = field(default=None, repr=False)
    inherited_tools: Sequence[object] | None = field(default=None, repr=False)
    on_event: EventWatcher | None = field(default=None, repr=False)
    approve: Approver | None = field(default=None, repr=False)
    get_steering_messages: MessageSource | None = field(default=None, repr=False)
    get_follow_up_messages: MessageSource | None = field(default=None, repr=False)
    abort: threading.Event | None = field(default=None, repr=False)

    def with_hooks(self, **hooks: Any) -> RunSpec:
        """A copy with the given hooks (``on_event``, ``approve``, ``abort``, ...) set."""
        unknown = set(hooks) - _HOOKS
        if unknown:
            raise SetupError(f"not a run hook: {', '.join(sorted(unknown))} (hooks: {', '.join(sorted(_HOOKS))})")
        return dataclasses.replace(self, **hooks)


_HOOKS = frozenset({"on_event", "approve", "get_steering_messages", "get_follow_up_messages", "abort"})


class RunOptions(TypedDict, total=False):
    """The keyword arguments of ``Runtime.run`` / ``exec`` / ``arun`` / ``start`` / ``prepare``."""

    messages: Sequence[Any] | None
    system: str | None
    tools: Sequence[object] | None
    toolset: str | None
    tools_source: str | None
    tools_allow: Sequence[str] | None
    tools_deny: Sequence[str] | None
    tool_choice: Any
    parallel_tool_calls: bool | None
    max_iterations: int | None
    max_tool_calls: int | None
    max_cost: float | None
    max_tokens: int | None
    finish_at_limit: bool
    text_tool_calls: bool | None
    choices: Any
    step: bool
    abort: threading.Event | None
    on_event: EventWatcher | None
    approve: Approver | None
    get_steering_messages: MessageSource | None
    get_follow_up_messages: MessageSource | None


@dataclass(frozen=True)
class RuntimeDefaults:
    """What a Runtime brings to every spec it builds: where the default menu comes from,
    the system prompt, the session deny list, the nesting cap, whether replies are read
    for calls written as text, and itself (for ``can_use``)."""

    registry: Registry
    runtime: Any = None
    system: str | None = None
    session_deny: Sequence[str] = ()
    max_depth: int = 8
    text_tool_calls: bool = False


class RunHooks(TypedDict, total=False):
    """The callbacks and the stop event of a run (passed through to the spec unchecked)."""

    abort: threading.Event | None
    on_event: EventWatcher | None
    approve: Approver | None
    get_steering_messages: MessageSource | None
    get_follow_up_messages: MessageSource | None


def build_spec(
    content: Any,
    defaults: RuntimeDefaults,
    *,
    messages: Sequence[Any] | None = None,
    system: str | None = _UNSET,
    tools: Sequence[object] | None = None,
    toolset: str | None = None,
    tools_source: str | None = None,
    tools_allow: Sequence[str] | None = None,
    tools_deny: Sequence[str] | None = None,
    tool_choice: Any = "auto",
    parallel_tool_calls: bool | None = None,
    max_iterations: int | None = DEFAULT_MAX_ITERATIONS,
    max_tool_calls: int | None = DEFAULT_MAX_TOOL_CALLS,
    max_cost: float | None = None,
    max_tokens: int | None = None,
    finish_at_limit: bool = True,
    text_tool_calls: bool | None = None,
    choices: Any = None,
    step: bool = False,
    **hooks: Unpack[RunHooks],
) -> RunSpec:
    """Check one run's options (:class:`RunOptions`) and build its :class:`RunSpec`.

    A nested run (inside a tool body) inherits the outer call's ``tools=`` list unless it
    passes ``tools`` or ``toolset``. A depth past ``defaults.max_depth`` raises
    ``RecursionError``. Anything else wrong raises :class:`SetupError` naming the problem:
    a prompt that is empty (without history) or of the wrong type, a menu naming unknown
    tools or toolsets, a forced ``tool_choice`` not on the menu, a ``max_iterations``
    that is not an int, a ``max_tool_calls`` or ``max_tokens`` that is not a positive
    int, a ``max_cost`` that is not a positive number, a ``finish_at_limit``,
    ``text_tool_calls`` or ``step`` that is not a bool, bad ``choices``.
    ``text_tool_calls=None`` takes the Runtime's setting. (The engine checks that ``step``
    has an approver.)"""
    parent, depth = _nesting(defaults.max_depth)
    if tools is None and toolset is None and parent is not None:
        tools = parent.tools
    _check_count("max_iterations", max_iterations, "an int")
    _check_count("max_tool_calls", max_tool_calls, "a positive int", minimum=1)
    _check_count("max_tokens", max_tokens, "a positive int", minimum=1)
    _check_amount("max_cost", max_cost)
    text_tool_calls = defaults.text_tool_calls if text_tool_calls is None else text_tool_calls
    for option, switch in (("finish_at_limit", finish_at_limit), ("step", step), ("text_tool_calls", text_tool_calls)):
        _check_switch(option, switch)
    decision = _decision_setup(choices, tools, toolset)
    if decision is not None:
        content = prompt_with_menu(content, menu_text(list(decision.options), work_first=decision.work_first))
        hidden = tools_to_hide(defaults.registry, list(decision.options), tools)
        tools_deny = [*(tools_deny or ()), *hidden] or tools_deny
    history = tuple(_as_history(messages or ()))
    menu = _menu(defaults, tools, toolset, tools_source, tools_allow, tools_deny)
    return RunSpec(
        prompts=tuple(_as_prompts(content, allow_empty=bool(history))), menu=menu, history=history,
        system=defaults.system if system is _UNSET else system, tool_choice=_tool_choice(tool_choice, menu),
        parallel_tool_calls=parallel_tool_calls, max_iterations=max_iterations, max_tool_calls=max_tool_calls,
        max_cost=None if max_cost is None else float(max_cost), max_tokens=max_tokens, step=step,
        finish_at_limit=finish_at_limit, text_tool_calls=text_tool_calls, decision=decision,
        depth=depth, parent=parent, inherited_tools=tools, **hooks,
    )


def _check_count(option: str, value: Any, kind: str, *, minimum: int | None = None) -> None:
    """``value`` is ``None`` or an int (not a bool) of at least ``minimum``, else SetupError."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or (minimum is not None and value < minimum):
        raise SetupError(f"{option} must be {kind} or None, got {value!r}", option=option)


def _check_amount(option: str, value: Any) -> None:
    """``value`` is ``None`` or a finite number above zero (not a bool), else SetupError."""
    if value is None:
        return
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise SetupError(f"{option} must be a positive number (dollars) or None, got {value!r}", option=option)


def _check_switch(option: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise SetupError(f"{option} must be True or False, got {value!r}", option=option)


def _nesting(max_depth: int) -> tuple[CallFrame | None, int]:
    """The tool call a new run would run inside (if any) and its depth."""
    parent = current_call.get()
    depth = parent.context.depth + 1 if parent is not None else 0
    if depth > max_depth:
        # A RecursionError, as ever: the model reads its name in the calling tool's error result.
        raise RecursionError(
            f"nested runs are capped at depth {max_depth} (Runtime(max_depth=...)); this call would open depth {depth}"
        )
    return parent, depth


def _decision_setup(choices: Any, tools: Sequence[object] | None, toolset: str | None) -> DecisionSetup | None:
    if choices is None:
        return None
    try:
        options = normalize_options(choices)
    except (TypeError, ValueError) as error:
        raise SetupError(str(error), option="choices") from error
    work_first = not ((tools is not None and len(tools) == 0) or toolset == "none")
    return DecisionSetup(tuple(options), work_first)


def _menu(defaults: RuntimeDefaults, tools: Sequence[object] | None, toolset: str | None,
          tools_source: str | None, tools_allow: Sequence[str] | None, tools_deny: Sequence[str] | None) -> Menu:
    try:
        return resolve_menu(
            defaults.registry, tools=tools, toolset=toolset, tools_source=tools_source, tools_allow=tools_allow,
            tools_deny=tools_deny, session_deny=defaults.session_deny, runtime=defaults.runtime,
        )
    except (TypeError, ValueError) as error:
        raise SetupError(str(error)) from error


def _tool_choice(tool_choice: Any, menu: Menu) -> ToolChoice:
    try:
        choice = normalize_tool_choice(tool_choice)
    except (TypeError, ValueError) as error:
        raise SetupError(str(error), option="tool_choice") from error
    if isinstance(choice, dict) and menu.get(choice["name"]) is None:
        raise SetupError(
            f"tool_choice forces {choice['name']!r}, which is not on this run's menu "
            f"({', '.join(menu.names) or 'no tools'})",
            option="tool_choice",
        )
    return choice


def _as_prompts(content: Any, *, allow_empty: bool) -> list[UserMessage]:
    if isinstance(content, UserMessage):
        return [content]
    if isinstance(content, str):
        if not content.strip():
            if allow_empty:
                return []
            raise SetupError("the prompt is empty: pass the task for the model as content")
        return [UserMessage(content=content)]
    if isinstance(content, (list, tuple)) and all(isinstance(b, (TextContent, ImageContent)) for b in content):
        return [UserMessage(content=list(content))]
    raise SetupError(
        f"content must be a str, an op.UserMessage or a list of TextContent/ImageContent, not {type(content).__name__}"
    )


def _as_history(messages: Sequence[Any]) -> list[AnyMessage]:
    try:
        return [m if hasattr(m, "role") else parse_message(m) for m in messages]
    except (TypeError, ValueError) as error:
        raise SetupError(f"messages: {error}") from error

