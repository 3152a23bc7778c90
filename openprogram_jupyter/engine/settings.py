"""The run settings, each declared once.

:class:`RunSettings` is the declaration: one annotated key per setting, its type for the
type checker and a :class:`Setting` for everything else — default, check, ``%%agent``
flag, whether a nested run inherits it, and a one-line doc. Everything that lists
settings is derived from it: the keywords ``Runtime(...)`` and every run accept
(:class:`~openprogram_jupyter.engine.spec.RunOptions` extends it), the checks
(:func:`check_settings`), the ``%%agent`` flags and their usage
(:mod:`openprogram_jupyter.jupyter._options`), and the table in docs/settings.md
(:func:`markdown_table`, checked by a test).

A Runtime holds a complete set (:data:`DEFAULTS` merged with its own keywords); a run
merges its keywords over the Runtime's (:func:`merge`), the way an HTTP client merges a
request's options over its defaults. To add a setting: declare it here and read it where
it acts (``spec.settings["name"]``) — docs/architecture.md shows an example.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from typing_extensions import TypedDict, get_type_hints

from ..core._doc_links import link_page_mentions
from ..core._json import JsonObject
from ..core.errors import SetupError
from ._compact_checks import compact_check, fraction_or_tokens
from ._setting_flags import REASONING_EFFORTS, OneOf
from ._setting_flags import Capped as _Capped
from ._setting_flags import amount as _amount
from ._setting_flags import comma_names as _comma_names
from ._setting_flags import effort_or_budget as _effort_or_budget
from ._setting_flags import stop_sequences as _stop_sequences
from ._setting_flags import temperature as _temperature

# What tool_choice= accepts: "auto", "required", "none", a tool's name, or a dict naming one.
# (Stored normalised: models.base.ToolChoice. This module imports nothing heavy: the
# %%agent flags are built from it when %load_ext runs.)
ToolChoiceOption = str | JsonObject

__all__ = [
    "DEFAULTS",
    "SETTINGS",
    "Flag",
    "RunSettings",
    "Setting",
    "check_settings",
    "declared_settings",
    "inherited",
    "markdown_table",
    "merge",
]


@dataclass(frozen=True)
class Flag:
    """How a setting is written on an ``%%agent`` line.

    ``metavar`` names the value in the usage; ``None`` makes a switch, which stores
    ``switch_value`` when given. ``parse`` turns the text into a Python value, which then
    meets the same check as the keyword (one meaning in both); it raises ``ValueError``
    with a message naming what it expected.
    """

    name: str
    metavar: str | None = None
    parse: Callable[[str], Any] = str
    switch_value: object = True


@dataclass(frozen=True)
class Setting:
    """A setting's declaration: ``default``; ``check(name, value)``, which returns the
    value as stored or raises :class:`SetupError` naming the setting; a one-line ``doc``
    (also the flag's help); its ``flag`` (``None``: Python only); and ``inherited``: a
    run started inside a tool body takes the value of the run it is inside, unless it sets
    its own."""

    default: object
    check: Callable[[str, Any], Any]
    doc: str
    flag: Flag | None = None
    inherited: bool = False


# -- checks: each returns the value as stored, or raises SetupError naming the setting ------


def _text(name: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise SetupError(f"{name} must be a str or None, got {type(value).__name__}", option=name)
    return value


def _switch(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise SetupError(f"{name} must be True or False, got {value!r}", option=name)
    return value


def _optional_switch(name: str, value: object) -> bool | None:
    return None if value is None else _switch(name, value)


@dataclass(frozen=True)
class _Whole:
    """The check of a whole-number setting: ``None``, or an int (not a bool) of at least
    ``minimum`` (``None``: any); anything else is refused as not ``kind``.

    A callable object rather than a closure, so that what it does is decided when it is
    called, not when the declarations are read at import."""

    minimum: int | None
    kind: str

    def __call__(self, name: str, value: object) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or (self.minimum is not None and value < self.minimum):
            raise SetupError(f"{name} must be {self.kind} or None, got {value!r}", option=name)
        return value


def _dollars(name: str, value: object) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise SetupError(f"{name} must be a positive number (dollars) or None, got {value!r}", option=name)
    return float(value)


MIN_REASONING_BUDGET = 1024  # Anthropic's smallest thinking budget, and so the smallest for all
# Anthropic's largest output (128,000 tokens) less the 1,024 its request keeps for the answer: the budget
# must stay below max_tokens. Gemini's largest are smaller; its model class sends its own, saying so.
MAX_REASONING_BUDGET = 126_976


def _reasoning(name: str, value: object) -> str | int | None:
    """An effort, a budget from ``MIN_REASONING_BUDGET`` to ``MAX_REASONING_BUDGET`` tokens,
    or ``None``; anything else is refused, naming the value (a huge number by its size)."""
    if value is None or (isinstance(value, str) and value in REASONING_EFFORTS):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and MIN_REASONING_BUDGET <= value <= MAX_REASONING_BUDGET:
        return value
    raise SetupError(
        f"{name} must be 'low', 'medium', 'high', a token budget from {MIN_REASONING_BUDGET:,} "
        f"to {MAX_REASONING_BUDGET:,}, or None, got {_named(value)}",
        option=name,
    )


def _named(value: object) -> str:
    """``repr(value)``, but an int of more than 30 digits as ``a N-digit number`` (its
    repr would fill the message, or fail past 4,300 digits)."""
    if not isinstance(value, int) or isinstance(value, bool) or abs(value) < 10**30:
        return repr(value)
    digits = int(abs(value).bit_length() * 0.30102999566398120) + 1
    if 10 ** (digits - 1) > abs(value):
        digits -= 1
    return f"a {digits}-digit number"


def _tracing(name: str, value: object) -> object:
    """``False``, ``True`` (the global tracer provider) or a tracer provider; tracing
    needs the ``otel`` extra, said here, before anything runs."""
    if value is False:
        return value
    if value is not True and not callable(getattr(value, "get_tracer", None)):
        raise SetupError(f"{name} must be True, False or an OpenTelemetry tracer provider, got {value!r}", option=name)
    import importlib.util

    if importlib.util.find_spec("opentelemetry") is None or importlib.util.find_spec("opentelemetry.trace") is None:
        from ..core._install import install_hint

        raise SetupError(f"{name}: tracing needs OpenTelemetry's API: {install_hint('otel')}", option=name)
    return value


def _tool_choice(name: str, value: object) -> ToolChoiceOption:
    from ..models.base import normalize_tool_choice

    try:
        return normalize_tool_choice(value)
    except (TypeError, ValueError) as error:
        raise SetupError(str(error), option=name) from error


def _tool_names(name: str, value: object) -> list[str] | None:
    """``None`` (every tool on the menu), or a list of tool names (a tuple is taken too),
    stored as a list without repeats; names not on the run's menu are refused when the run
    starts (:mod:`.spec`)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) and item for item in value):
        raise SetupError(f"{name} must be a list of tool names or None, got {_named(value)}", option=name)
    if not value:
        raise SetupError(f"{name}=[] allows no tool: to forbid calls, use tool_choice='none'", option=name)
    return list(dict.fromkeys(value))


class RunSettings(TypedDict, total=False):
    """Every run setting: a keyword of ``Runtime(...)`` (the default for its runs) and of
    every run (``exec``, ``run``, ``start``, ``arun``, ``aexec``, ``prepare``)."""

    system: Annotated[str | None, Setting(None, _text, "system prompt for the run", Flag("--system", "TEXT"))]
    tool_choice: Annotated[
        ToolChoiceOption,
        Setting(
            "auto",
            _tool_choice,
            "auto, required, none, or a tool name the model must call",
            Flag("--tool-choice", "auto|required|none|NAME"),
        ),
    ]
    parallel_tool_calls: Annotated[
        bool | None,
        Setting(
            None,
            _optional_switch,
            "whether the model may pick several tools in one round (None: the provider's default)",
            Flag("--no-parallel", switch_value=False),
        ),
    ]
    strict_tools: Annotated[
        bool,
        Setting(
            False,
            _switch,
            "send every tool in the provider's strict mode, its schema made strict-compatible "
            "(docs/providers.md, Tool features)",
            Flag("--strict-tools"),
        ),
    ]
    allowed_tools: Annotated[
        list[str] | None,
        Setting(
            None,
            _tool_names,
            "the only tools the model may call; every tool stays declared where the provider can say so "
            "(None: all; docs/providers.md, Tool features)",
            Flag("--allowed-tools", "NAME,NAME", _comma_names),
        ),
    ]
    tool_search: Annotated[
        str,
        Setting(
            "local",
            OneOf(("local", "provider")),
            "how deferred tools (defer=True) are found: local, the package's tool_search tool; provider, the "
            "provider's own tool search where it has one (docs/tools.md, Deferred tools)",
            Flag("--tool-search", "local|provider"),
        ),
    ]
    max_iterations: Annotated[
        int | None,
        Setting(
            20,
            _Whole(None, "an int"),
            "cap on rounds: at most max(1, N) model requests, the last one without tools when N ≥ 2",
            Flag("--max-iterations", "N|none", _Capped("rounds")),
        ),
    ]
    max_tool_calls: Annotated[
        int | None,
        Setting(
            500,
            _Whole(1, "a positive int"),
            "cap on tool calls, nested runs' included",
            Flag("--max-tool-calls", "N|none", _Capped("calls")),
        ),
    ]
    max_cost: Annotated[
        float | None,
        Setting(
            None, _dollars, "spending limit in dollars, nested runs' included", Flag("--max-cost", "DOLLARS", _amount)
        ),
    ]
    max_tokens: Annotated[
        int | None,
        Setting(
            None,
            _Whole(1, "a positive int"),
            "token limit, nested runs' included",
            Flag("--max-tokens", "N|none", _Capped("tokens")),
        ),
    ]
    context_window: Annotated[
        int | None,
        Setting(
            None,
            _Whole(1, "a positive int"),
            "tokens a request may carry (None: the model's, from the model data); a larger one ends the run unsent",
            Flag("--context-window", "N|none", _Capped("tokens")),
        ),
    ]
    max_result_chars: Annotated[
        int | None,
        Setting(
            50_000,
            _Whole(100, "an int of at least 100"),
            "characters of a tool result the model reads (a tool's own wins); the rest is cut, kept in run.results",
            Flag("--max-result-chars", "N|none", _Capped("characters")),
            inherited=True,
        ),
    ]
    compact: Annotated[
        float | int | str | None,
        Setting(
            None,
            compact_check,
            "compact older rounds into a summary before a request crosses this: a fraction of the window, or tokens; "
            "provider: the provider's own compaction at 0.8 of the window",
            Flag("--compact", "FRACTION|TOKENS|provider|off", fraction_or_tokens),
        ),
    ]
    keep_last: Annotated[
        int | None, Setting(4, _Whole(0, "a whole number"), "rounds compaction keeps", Flag("--keep-last", "N", int))
    ]
    compact_model: Annotated[
        str | None,
        Setting(None, _text, "compaction's summary writer (None: the run's model)", Flag("--compact-model", "M")),
    ]
    finish_at_limit: Annotated[
        bool,
        Setting(
            True,
            _switch,
            "at a limit (rounds, cost, tokens), one last round without tools answers",
            Flag("--no-finish-at-limit", switch_value=False),
        ),
    ]
    reasoning: Annotated[
        str | int | None,
        Setting(
            None,
            _reasoning,
            "how much the model reasons before it answers: low, medium, high, or a token budget (None: the model's "
            "default); each provider's own field (docs/providers.md)",
            Flag("--reasoning", "low|medium|high|N", _effort_or_budget),
            inherited=True,
        ),
    ]
    max_output_tokens: Annotated[
        int | None,
        Setting(None, _Whole(1, "a positive int"), "the most output tokens each reply may spend (a lower budget wins)"),
    ]
    temperature: Annotated[
        float | None,
        Setting(None, _temperature, "sampling temperature, 0 to 2 (None: the model's default)"),
    ]
    stop_sequences: Annotated[
        tuple[str, ...] | None,
        Setting(None, _stop_sequences, "texts that end a reply; a provider that takes none says so in a notice"),
    ]
    step: Annotated[
        bool, Setting(False, _switch, "every pick waits for the approver: run, edit, skip or stop", Flag("--step"))
    ]
    text_tool_calls: Annotated[
        bool,
        Setting(
            False,
            _switch,
            "read tool calls the model writes as text (local models; docs/providers.md)",
            Flag("--text-tools"),
            inherited=True,
        ),
    ]
    figures_to_model: Annotated[
        bool,
        Setting(
            False,
            _switch,
            "every tool's pictures from its output (figures left open, images displayed) go to the model too",
            Flag("--figures-to-model"),
            inherited=True,
        ),
    ]
    images_to_model: Annotated[
        bool,
        Setting(
            True,
            _switch,
            "False: images in the conversation reach the model as a text note (a model that takes none)",
            Flag("--no-images", switch_value=False),
            inherited=True,
        ),
    ]
    prompt_cache: Annotated[
        bool,
        Setting(
            True,
            _switch,
            "mark the tools, the system prompt and the newest message for the provider's prompt cache where it must be "
            "asked (Anthropic; Bedrock's Claude and Nova models); OpenAI and Gemini cache on their own",
            Flag("--no-prompt-cache", switch_value=False),
            inherited=True,
        ),
    ]
    trace: Annotated[
        object,
        Setting(
            False,
            _tracing,
            "OpenTelemetry spans of the run (GenAI conventions): True for the global tracer provider, or a provider "
            "(the otel extra; docs/tracing.md)",
            Flag("--trace"),
            inherited=True,
        ),
    ]
    trace_content: Annotated[
        bool,
        Setting(
            False,
            _switch,
            "traced spans carry the messages too (replies, tool arguments and results), masked",
            Flag("--trace-content"),
            inherited=True,
        ),
    ]
    capture_wire: Annotated[
        bool,
        Setting(
            False,
            _switch,
            "keep each round's request and reply as sent, masked (see them with %agent wire VAR; docs/wire.md)",
            Flag("--wire"),
            inherited=True,
        ),
    ]


def declared_settings(declaration: type) -> dict[str, Setting]:
    """Each key of the TypedDict ``declaration`` and the one :class:`Setting` its
    ``Annotated`` type carries (other metadata beside it is ignored), in declaration order.
    A key with no Setting, or with more than one, raises ``TypeError`` naming it."""
    found = {}
    for name, hint in get_type_hints(declaration, include_extras=True).items():
        settings = [meta for meta in getattr(hint, "__metadata__", ()) if isinstance(meta, Setting)]
        if len(settings) != 1:
            raise TypeError(f"{declaration.__name__}.{name} must be Annotated with one Setting, has {len(settings)}")
        found[name] = settings[0]
    return found


SETTINGS: dict[str, Setting] = declared_settings(RunSettings)
"""Every setting's declaration, by name, in declaration order."""

DEFAULTS: RunSettings = {name: setting.default for name, setting in SETTINGS.items()}  # type: ignore[assignment]
"""Every setting at its declared default."""


def check_settings(given: Mapping[str, Any]) -> RunSettings:
    """``given`` checked, each value as stored. A name that is no setting or a value its
    check refuses raises :class:`SetupError` naming it."""
    unknown = sorted(set(given) - set(SETTINGS))
    if unknown:
        raise SetupError(f"not a run setting: {', '.join(unknown)} (settings: {', '.join(SETTINGS)})")
    return {name: SETTINGS[name].check(name, value) for name, value in given.items()}  # type: ignore[return-value]


def merge(base: RunSettings, overrides: Mapping[str, Any]) -> RunSettings:
    """``base`` with ``overrides`` checked and laid over it (a new dict; neither changes)."""
    return {**base, **check_settings(overrides)}


def inherited(outer: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of ``outer`` that a run started inside one of its tool calls takes."""
    return {name: value for name, value in outer.items() if name in SETTINGS and SETTINGS[name].inherited}


def markdown_table() -> str:
    """The settings as the Markdown table in docs/settings.md (a test checks they agree); a
    page a setting's doc names is a link."""
    rows = ["| setting | default | `%%agent` flag | meaning |", "|---|---|---|---|"]
    for name, setting in SETTINGS.items():
        flag = setting.flag
        written = "—" if flag is None else f"`{flag.name}{' ' + flag.metavar if flag.metavar else ''}`"
        nested = " Nested runs inherit it." if setting.inherited else ""
        cells = (f"`{name}`", f"`{setting.default!r}`", written, f"{setting.doc}.{nested}")
        rows.append("| " + " | ".join(link_page_mentions(cell.replace("|", "\\|")) for cell in cells) + " |")
    return "\n".join(rows)
