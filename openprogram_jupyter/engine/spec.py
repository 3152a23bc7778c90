"""``RunSpec``: everything one run needs, built and checked once.

Every face builds one: the Python API (``Runtime.arun(content, **options)`` calls
:func:`build_spec`) and the ``%%agent`` flags (generated from the same declarations). The
engine runs a spec and nothing else; the loop reads its settings from ``spec.settings``.
A bad option raises :class:`~openprogram_jupyter.core.errors.SetupError` here, before a model
is asked.

A run's keywords (:class:`RunOptions`) are of three kinds: its settings (declared once in
:mod:`openprogram_jupyter.engine.settings`, merged over the Runtime's), what it is about (the
conversation, the tools, ``choices=``), and its hooks (:class:`RunHooks`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from typing_extensions import TypedDict, Unpack

from ..core._ambient import CallFrame, current_call
from ..core._asking import Asker
from ..core.errors import SetupError
from ..core.events import Compaction
from ..core.messages import AssistantMessage, ImageContent, TextContent, ToolResultMessage, UserMessage, parse_message
from ..tools._decision_options import Option, menu_text, normalize_options, prompt_with_menu, tools_to_hide
from ..tools._images import fit_image
from ..tools.menu import Menu, resolve_menu
from ._course_rules import without_denied
from .settings import SETTINGS, RunSettings, inherited, merge

if TYPE_CHECKING:
    from ..core._run_context import RunContext
    from ..tools.registry import Registry
    from ._runtime_shape import EngineRuntime
    from .tool_execution import Approver

__all__ = [
    "AgainOptions",
    "DecisionSetup",
    "MenuFilters",
    "ReplayedRound",
    "RerunOptions",
    "RerunPlan",
    "RunHooks",
    "RunInputs",
    "RunOptions",
    "RunSpec",
    "RuntimeDefaults",
    "RuntimeKeywords",
    "build_spec",
]

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage
MessageSource = Callable[[], Sequence[Any]]
EventWatcher = Callable[[Any], None]


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
class RerunPlan:
    """A rerun's recording (``Run.rerun``): the loop plays back each recorded round's reply
    and runs its calls for real, comparing their results with the recorded ones; from the
    first round that differs it stops (``live=False``) or asks the model (``live=True``).
    ``same(recorded, now)``, when given, decides whether two results count as the same."""

    rounds: tuple[ReplayedRound, ...]
    live: bool = False
    same: Callable[[ToolResultMessage, ToolResultMessage], object] | None = None


class RunHooks(TypedDict, total=False):
    """The callbacks and the stop event of a run (passed through to the spec unchecked):
    ``on_event`` sees every event, ``approve`` answers picks that need approval (every
    pick with ``step``), ``get_steering_messages`` / ``get_follow_up_messages`` deliver
    user messages before the next round / when the run would end, setting ``abort``
    stops the run, and ``ask`` answers a tool's ``ctx.ask`` questions (an
    :data:`~openprogram_jupyter.core._asking.Asker`; without one, ``ctx.ask`` raises
    ``AskError``)."""

    abort: threading.Event | None
    on_event: EventWatcher | None
    approve: Approver | None
    ask: Asker | None
    get_steering_messages: MessageSource | None
    get_follow_up_messages: MessageSource | None


class MenuFilters(TypedDict, total=False):
    """How a run's menu is narrowed (``toolset``, ``tools_source``, ``tools_allow``,
    ``tools_deny``; docs/tools.md) and the options of a decision (``choices``; docs/decisions.md)."""

    toolset: str | None
    tools_source: str | None
    tools_allow: Sequence[str] | None
    tools_deny: Sequence[str] | None
    choices: object


class RunInputs(MenuFilters, total=False):
    """What a run is about: earlier conversation (``messages``), the tools (``tools``) and
    what narrows them (:class:`MenuFilters`)."""

    messages: Sequence[Any] | None
    tools: Sequence[object] | None


class RunOptions(RunSettings, RunInputs, RunHooks, total=False):
    """The keyword arguments of ``Runtime.run`` / ``exec`` / ``arun`` / ``start`` / ``prepare``."""


class AgainOptions(RunSettings, MenuFilters, RunHooks, total=False):
    """The run options a fork or a rerun takes over the recorded run's own (its ``tools``
    and conversation are the recording's unless ``tools=`` is given by name)."""


class RerunOptions(AgainOptions, total=False):
    """What ``op.rerun_all`` passes to each run's :meth:`~.run.Run.rerun`: the run options
    over the recorded run's, and ``same(recorded, now)`` deciding which results count as
    the same."""

    same: Any


class RuntimeKeywords(RunSettings, total=False):
    """The keywords of ``Runtime(...)``, and so of ``Runtime.replace``: what the Runtime is
    configured with, and the run settings its runs start from."""

    model: Any
    api_key: str | None
    base_url: str | None
    approve: Approver | None
    tools_deny: Sequence[str]
    max_depth: int
    cancel_grace: float
    registry: Any
    record: Any


_HOOKS = frozenset(RunHooks.__optional_keys__)


@dataclass(frozen=True)
class RunSpec:
    """One run, fully described.

    ``prompts`` (appended at the start), ``history`` (earlier conversation), ``menu`` (the
    tools after every gating layer), ``settings`` (every setting of
    :mod:`~openprogram_jupyter.engine.settings`, checked, the run's own over the Runtime's;
    ``tool_choice`` also checked against the menu), ``decision`` (from ``choices=``),
    ``replay`` (recorded rounds played back first, from the run ``replayed_from``: see
    ``Run.fork``), ``rerun`` (recorded replies played back while the tools run again, from
    the run ``replayed_from``: see ``Run.rerun``; the notes name that run by the notebook
    variable holding it, else by its id), ``compactions`` (that run's compactions, applied
    again before the rounds they preceded while the recording lasts). Context: ``depth``
    and ``parent`` (the tool call a nested run runs inside), ``inherited_tools`` (the
    ``tools=`` list nested runs inherit), ``tools_deny``
    (every tool name this run's menu left out by a deny list: the Runtime's, the run's own,
    the calling run's; the runs it starts leave them out too) and ``inherits`` (the context
    of the recorded run a fork or rerun derives its own from, :mod:`._run_context`). ``hooks``:
    see :class:`RunHooks`; :meth:`with_hooks` returns a copy with hooks added.
    """

    prompts: tuple[UserMessage, ...]
    menu: Menu
    settings: RunSettings
    history: tuple[AnyMessage, ...] = ()
    decision: DecisionSetup | None = None
    replay: tuple[ReplayedRound, ...] = field(default=(), repr=False)
    replayed_from: str | None = None
    rerun: RerunPlan | None = field(default=None, repr=False)
    compactions: tuple[Compaction, ...] = field(default=(), repr=False)
    depth: int = 0
    parent: CallFrame | None = field(default=None, repr=False)
    inherited_tools: Sequence[object] | None = field(default=None, repr=False)
    tools_deny: tuple[str, ...] = field(default=(), repr=False)
    inherits: RunContext | None = field(default=None, repr=False)
    hooks: RunHooks = field(default_factory=lambda: RunHooks(), repr=False)

    def with_hooks(self, **hooks: Unpack[RunHooks]) -> RunSpec:
        """A copy with the given hooks (``on_event``, ``approve``, ``abort``, ...) set."""
        unknown = set(hooks) - _HOOKS
        if unknown:
            raise SetupError(f"not a run hook: {', '.join(sorted(unknown))} (hooks: {', '.join(sorted(_HOOKS))})")
        return dataclasses.replace(self, hooks={**self.hooks, **hooks})


@dataclass(frozen=True)
class RuntimeDefaults:
    """What a Runtime brings to every spec it builds: where the default menu comes from,
    its settings (what a run does not set), the session deny list, the nesting cap, and
    itself (for ``can_use``); ``inherits``: for a fork or rerun, the recorded run's context."""

    registry: Registry
    settings: RunSettings
    runtime: EngineRuntime | None = None
    session_deny: Sequence[str] = ()
    max_depth: int = 8
    inherits: RunContext | None = None

    @classmethod
    def of(cls, runtime: EngineRuntime, inherits: RunContext | None = None) -> RuntimeDefaults:
        """``runtime``'s defaults (``inherits``: the context a fork or rerun derives from)."""
        return cls(runtime.registry, runtime.settings, runtime, tuple(runtime.tools_deny), runtime.max_depth, inherits)


def build_spec(content: object, defaults: RuntimeDefaults, **options: Unpack[RunOptions]) -> RunSpec:
    """Check one run's options (:class:`RunOptions`) and build its :class:`RunSpec`.

    The run's settings are ``defaults.settings`` with, for a nested run (inside a tool
    body), the inherited settings of the run it is inside laid over them, then the run's
    own. A nested run also inherits the outer call's ``tools=`` list unless it passes
    ``tools`` or ``toolset``, and its menu leaves out what the outer run's deny lists left
    out (as does a fork's or rerun's, the recorded run's). A depth past
    ``defaults.max_depth`` or the outer run's cap raises ``RecursionError``. Anything else
    wrong raises :class:`SetupError` naming the problem: an unknown keyword, a setting its
    check refuses (:mod:`~openprogram_jupyter.engine.settings`), a prompt that is empty (without
    history) or of the wrong type, a menu naming unknown tools or toolsets, a forced
    ``tool_choice`` not on the menu, bad ``choices``. (The engine checks that ``step`` has
    an approver.)"""
    given: dict[str, Any] = dict(options)
    hooks = cast(RunHooks, {name: given.pop(name) for name in _HOOKS & set(given)})
    inputs: dict[str, Any] = {name: given.pop(name) for name in RunInputs.__optional_keys__ & set(given)}
    unknown = sorted(set(given) - set(SETTINGS))
    if unknown:
        raise SetupError(f"not a run option: {', '.join(unknown)} (see help(op.Runtime.run) and docs/settings.md)")
    parent, depth = _nesting(defaults.max_depth)
    outer_context = parent.run_context if parent is not None else defaults.inherits
    own_deny = tuple(inputs.get("tools_deny") or ())
    denied = tuple(dict.fromkeys([*defaults.session_deny, *(outer_context.tools_deny if outer_context else ())]))
    defaults = dataclasses.replace(defaults, session_deny=denied)
    outer = parent.settings if parent is not None and parent.settings is not None else {}
    settings = merge(merge(defaults.settings, inherited(outer)), given)
    tools, toolset = inputs.get("tools"), inputs.get("toolset")
    if tools is None and toolset is None and parent is not None:
        tools = inputs["tools"] = parent.tools
    decision = _decision_setup(inputs.get("choices"), tools, toolset)
    if decision is not None:
        content = prompt_with_menu(content, menu_text(list(decision.options), work_first=decision.work_first))
        hidden = tools_to_hide(defaults.registry, list(decision.options), tools)
        inputs["tools_deny"] = [*(inputs.get("tools_deny") or ()), *hidden] or inputs.get("tools_deny")
    history = tuple(_as_history(inputs.get("messages") or ()))
    menu = without_denied(_menu(defaults, inputs))  # the course's deny globs
    _check_forced_choice(settings, menu)
    return RunSpec(
        prompts=tuple(map(_fitted, _as_prompts(content, allow_empty=bool(history)))),
        menu=menu,
        settings=settings,
        history=history,
        decision=decision,
        depth=depth,
        parent=parent,
        inherited_tools=tools,
        hooks=hooks,
        tools_deny=tuple(dict.fromkeys([*denied, *own_deny])),
        inherits=defaults.inherits,
    )


def _nesting(max_depth: int) -> tuple[CallFrame | None, int]:
    """The tool call a new run would run inside (if any) and its depth."""
    parent = current_call.get()
    depth = parent.context.depth + 1 if parent is not None else 0
    if parent is not None and parent.run_context is not None:
        max_depth = min(max_depth, parent.run_context.max_depth)
    if depth > max_depth:
        # A RecursionError, as ever: the model reads its name in the calling tool's error result.
        raise RecursionError(
            f"nested runs are capped at depth {max_depth} (Runtime(max_depth=...)); this call would open depth {depth}"
        )
    return parent, depth


def _decision_setup(choices: object, tools: Sequence[object] | None, toolset: str | None) -> DecisionSetup | None:
    if choices is None:
        return None
    try:
        options = normalize_options(choices)
    except (TypeError, ValueError) as error:
        raise SetupError(str(error), option="choices") from error
    work_first = not ((tools is not None and len(tools) == 0) or toolset == "none")
    return DecisionSetup(tuple(options), work_first)


def _menu(defaults: RuntimeDefaults, inputs: dict[str, Any]) -> Menu:
    try:
        return resolve_menu(
            defaults.registry,
            tools=inputs.get("tools"),
            toolset=inputs.get("toolset"),
            tools_source=inputs.get("tools_source"),
            tools_allow=inputs.get("tools_allow"),
            tools_deny=inputs.get("tools_deny"),
            session_deny=defaults.session_deny,
            runtime=defaults.runtime,
        )
    except (TypeError, ValueError) as error:
        raise SetupError(str(error)) from error


def _check_forced_choice(settings: RunSettings, menu: Menu) -> None:
    allowed = settings.get("allowed_tools")
    missing = [name for name in allowed or () if menu.get(name) is None]
    if missing:
        raise SetupError(
            f"allowed_tools names {', '.join(map(repr, missing))}, not on this run's menu "
            f"({', '.join(menu.names) or 'no tools'})",
            option="allowed_tools",
        )
    choice = settings["tool_choice"]
    if isinstance(choice, dict) and allowed is not None and choice["name"] not in allowed:
        raise SetupError(
            f"tool_choice forces {choice['name']!r}, which allowed_tools does not allow ({', '.join(allowed)})",
            option="tool_choice",
        )
    if isinstance(choice, dict) and menu.get(choice["name"]) is None:
        raise SetupError(
            f"tool_choice forces {choice['name']!r}, which is not on this run's menu "
            f"({', '.join(menu.names) or 'no tools'})",
            option="tool_choice",
        )


def _as_prompts(content: object, *, allow_empty: bool) -> list[UserMessage]:
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


def _fitted(prompt: UserMessage) -> UserMessage:
    """``prompt`` with each image fitted for providers, as a tool's picture is
    (:func:`.tools._images.fit_image`: scaled down to what they take); an image none would
    take — a type they refuse, bytes that are not what they say, too many pixels — raises
    ``SetupError("content: image dropped: <why>")`` before anything is sent."""
    if isinstance(prompt.content, str) or not any(isinstance(b, ImageContent) for b in prompt.content):
        return prompt
    blocks: list[TextContent | ImageContent] = []
    for block in prompt.content:
        if isinstance(block, ImageContent):
            fitted = fit_image(block)
            if isinstance(fitted, TextContent):
                raise SetupError(f"content: {fitted.text}", option="content")
            block = fitted
        blocks.append(block)
    return prompt.model_copy(update={"content": blocks})


def _as_history(messages: Sequence[Any]) -> list[AnyMessage]:
    try:
        return [m if hasattr(m, "role") else parse_message(m) for m in messages]
    except (TypeError, ValueError) as error:
        raise SetupError(f"messages: {error}") from error
