"""What each provider receives for a tool, and what a provider would reject.

Each provider's descriptor carries the function that turns a tool spec (``{"name",
"description", "parameters"}``) into its tool declaration
(:data:`~openprogram_jupyter.models.providers.TOOL_SHAPES`); the provider adapters and
``%agent schema NAME`` both use it, so what is shown is what is sent.
:func:`schema_problems` lists what a provider would refuse (or, for Gemini, leave
unenforced) before a run finds out, from the same descriptors' tool rules
(:data:`~openprogram_jupyter.models.providers.TOOL_RULES`).
"""

from __future__ import annotations

import json
from typing import Any

from ..tools.menu import as_tool
from ._bedrock_controls import bedrock_tool
from ._gemini_schema import gemini_function_declaration
from ._strict_schema import Flavour, strict_form
from .anthropic import anthropic_tool
from .openai_chat import openai_chat_tool
from .openai_responses import openai_responses_tool
from .providers import TOOL_RULES, TOOL_SHAPES

Spec = dict[str, Any]

__all__ = [
    "anthropic_tool",
    "bedrock_tool",
    "format_provider_schemas",
    "gemini_function_declaration",
    "openai_chat_tool",
    "openai_responses_tool",
    "provider_schemas",
    "schema_problems",
    "strict_lines",
]

_TOP_LEVEL_COMBINATORS = ("anyOf", "oneOf", "allOf", "enum", "not")


def tool_spec(tool: object) -> Spec:
    """The spec of anything usable as a tool: a :class:`Tool`, ``@function``, a
    ``{"spec", "execute"}`` dict, a bare spec dict, a callable, or the name of a
    registered tool. Raises ``TypeError`` / ``ValueError`` saying what it got."""
    if isinstance(tool, str):
        from ..tools.registry import default_registry

        found = default_registry.get(tool)
        if found is None:
            known = ", ".join(sorted(t.name for t in default_registry)) or "none"
            raise ValueError(f"no registered tool is named {tool!r}; registered: {known}")
        return found.spec
    if isinstance(tool, dict) and "name" in tool and "execute" not in tool:
        return tool
    return as_tool(tool).spec


def provider_schemas(tool: object) -> dict[str, dict[str, Any]]:
    """``{provider: declaration}`` for every provider tools are declared to (``openai``,
    ``openai-responses``, ``anthropic``, ``gemini``, ``bedrock``, in registry order) —
    exactly what each provider is sent for ``tool``."""
    spec = tool_spec(tool)
    return {provider: shape.declare(spec) for provider, shape in TOOL_SHAPES.items()}


# -- what providers reject ----------------------------------------------------------------


def schema_problems(tool: object) -> list[str]:
    """What providers would reject in ``tool``'s declaration, one line each:
    ``"<provider>: <what> (<rule>)"``. An empty list means every provider accepts it.

    Checked, from each provider's tool rules: the tool-name rule (Bedrock and OpenAI:
    ``[a-zA-Z0-9_-]``, at most 64; Gemini allows ``.`` and ``:`` but must start with a
    letter or ``_``); the parameters must be an object schema (all); no ``anyOf`` /
    ``oneOf`` / ``allOf`` / ``enum`` / ``not`` at the top level (OpenAI, Anthropic,
    Bedrock); and each provider's own parameter checks (Gemini: keywords outside the JSON
    Schema subset it documents, enums of non-strings). Lines come in that order, and
    within each check in registry order.
    """
    spec = tool_spec(tool)
    name = spec.get("name")
    parameters = spec.get("parameters") or {"type": "object"}
    problems = []
    for provider, rule in TOOL_RULES.items():
        if not isinstance(name, str) or not rule.name_pattern.match(name):
            problems.append(f"{provider}: the tool name {name!r} is refused (names must be {rule.name_rule})")
    if parameters.get("type") != "object":
        problems.append(
            f'all providers: the parameters must be a JSON Schema with "type": "object", '
            f"got type {parameters.get('type')!r}"
        )
    top_level = [key for key in _TOP_LEVEL_COMBINATORS if key in parameters]
    if top_level:
        for provider, rule in TOOL_RULES.items():
            if rule.plain_top_level:
                problems.append(
                    f"{provider}: {', '.join(top_level)} at the top level of the parameters is refused "
                    "(the top level must be a plain object schema)"
                )
    for provider, rule in TOOL_RULES.items():
        if rule.parameter_problems is not None:
            problems += [f"{provider}: {problem}" for problem in rule.parameter_problems(parameters)]
    return problems


def strict_lines(tool: object) -> list[str]:
    """For a strict tool, what each strict flavour changed to fit its schema and what it
    cannot express (lines of the schema page; none for a tool that is not strict)."""
    spec = tool_spec(tool)
    if not spec.get("strict"):
        return []
    lines = []
    flavours: tuple[tuple[Flavour, str], ...] = (
        ("openai", "OpenAI (Chat, Responses)"),
        ("closed", "Anthropic, Bedrock"),
    )
    for flavour, who in flavours:
        form = strict_form(spec.get("parameters") or {"type": "object"}, flavour)
        if not form.possible:
            lines.append(f"Strict mode, {who}: cannot be used, sent without strict — {'; '.join(form.cannot)}")
            continue
        lines.append(f"Strict mode, {who}: " + ("; ".join(form.changes) or "the schema is sent as it is"))
        lines += [f"  cannot express: {what}" for what in form.cannot]
    lines.append("Strict mode, Gemini: none (strict is not sent; a notice says so)")
    return [*lines, ""]


def format_provider_schemas(tool: object) -> str:
    """A readable page: each provider's declaration as pretty JSON, then the problems."""
    spec = tool_spec(tool)
    lines = [f"Tool {spec['name']!r} as each provider receives it", ""]
    for provider, shape in TOOL_SHAPES.items():
        lines += [
            f"{shape.api} ({provider}:) — {shape.place}:",
            json.dumps(shape.declare(spec), indent=2, ensure_ascii=False),
            "",
        ]
    lines += strict_lines(spec)
    problems = schema_problems(spec)
    if problems:
        lines.append("What a provider would reject (or, for Gemini, may not enforce):")
        lines += [f"- {problem}" for problem in problems]
    else:
        lines.append("No provider would reject this tool.")
    return "\n".join(lines)
