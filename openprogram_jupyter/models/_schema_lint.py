"""``%agent tools --lint``: each tool's schema in every strict mode's form, what had to
change to fit it, what strict mode cannot express, and what a provider would refuse.

One tool's page (:func:`lint_text`) is built from the same code the providers send with
(:func:`._strict_schema.strict_form`; the rules of
:func:`.provider_schemas.schema_problems`), for every tool, strict or not: a tool designer
sees what ``strict=True`` would send before turning it on.
"""

from __future__ import annotations

import json

from ._strict_schema import Flavour, strict_form
from .provider_schemas import schema_problems, tool_spec

__all__ = ["lint_text"]

_FLAVOURS: tuple[tuple[Flavour, str], ...] = (
    ("openai", "OpenAI's strict form (Chat Completions, Responses)"),
    ("closed", "closed strict form (Anthropic, Bedrock)"),
)


def lint_text(tool: object) -> str:
    """``tool``'s lint, as lines of text: its name and whether it asks for strict mode;
    for each strict flavour the schema it would be sent (indented JSON), then ``changed:``
    and ``cannot express:`` lines, or ``cannot be strict:`` with why (it is then sent
    without strict, with a notice); Gemini's line (no strict mode); then what a provider
    would refuse, or that none would. ``tool`` is anything
    :func:`.provider_schemas.tool_spec` takes."""
    spec = tool_spec(tool)
    asked = "strict=True" if spec.get("strict") else "not strict; strict=True (or strict_tools=True) would send"
    lines = [f"{spec['name']}: {asked}"]
    parameters = spec.get("parameters") or {"type": "object"}
    for flavour, who in _FLAVOURS:
        form = strict_form(parameters, flavour)
        if not form.possible:
            lines.append(f"  {who}: cannot be strict, sent without it — {'; '.join(form.cannot)}")
            continue
        lines.append(f"  {who}:")
        lines += ["    " + line for line in json.dumps(form.schema, indent=2, ensure_ascii=False).split("\n")]
        lines += [f"    changed: {change}" for change in form.changes] or [
            "    changed: nothing but every object closed (additionalProperties: false)"
        ]
        lines += [f"    cannot express: {what}" for what in form.cannot]
    lines.append("  Gemini: no strict mode (strict is not sent; a notice says so)")
    problems = schema_problems(spec)
    lines += [f"  a provider would refuse: {problem}" for problem in problems] or ["  no provider would refuse it"]
    return "\n".join(lines)
