"""The tool features every provider declares in its own way: strict schemas, input examples
and allowed tools (docs/providers.md, "Tool features", has the table).

A tool spec may carry ``"strict": True`` and ``"input_examples": [...]`` beside its name,
description and parameters (:attr:`~openprogram_jupyter.tools.base.Tool.spec`); a round
may limit the tools the model may call (``ModelRequest.allowed_tools``). The provider
declarations ask this module how to write each:

- :func:`strict_parameters`: the parameters in a flavour's strict form, or ``None`` when
  the spec is not strict or strict mode cannot express it (then it goes without);
- :func:`described_with_examples`: the description with an "Examples" section, for a
  provider without a field for examples;
- :func:`strict_notices`: in a provider's ``_prepare``, the specs with ``strict`` taken
  off where the provider or model has no strict mode, and a one-line notice for each
  such loss (never a silent drop);
- :func:`allowed_names`: the tools a provider with an allowed-tools field names in it;
- :func:`allowed_specs`: the tools a provider without one is sent, with the notice that
  says the list changed (and with it the cached prompt prefix).
"""

from __future__ import annotations

import json

from ..core._json import JsonObject
from ._strict_schema import Flavour, strict_form
from .base import ModelRequest

__all__ = [
    "all_strict",
    "allowed_names",
    "allowed_specs",
    "described_with_examples",
    "strict_notices",
    "strict_parameters",
]


def all_strict(specs: list[JsonObject]) -> list[JsonObject]:
    """Copies of ``specs``, each asking for strict mode (the run setting ``strict_tools``)."""
    return [{**spec, "strict": True} for spec in specs]


def strict_parameters(spec: JsonObject, parameters: JsonObject, flavour: Flavour) -> JsonObject | None:
    """``parameters`` in ``flavour``'s strict form when ``spec`` asks for strict and strict
    mode can express it; else ``None`` (the declaration then sends its plain schema)."""
    if not spec.get("strict"):
        return None
    form = strict_form(parameters, flavour)
    return form.schema if form.possible else None


def described_with_examples(spec: JsonObject) -> str:
    """The spec's description, followed — when it has ``input_examples`` — by an
    "Examples" section: one line of compact JSON arguments per example."""
    description = str(spec.get("description") or "")
    examples = spec.get("input_examples") or []
    if not examples:
        return description
    lines = [json.dumps(example, ensure_ascii=False, sort_keys=True) for example in examples]
    section = "Examples of arguments:\n" + "\n".join(lines)
    return f"{description}\n\n{section}" if description else section


def strict_notices(
    specs: list[JsonObject], *, supported: bool, flavour: Flavour | None, why_not: str
) -> tuple[list[JsonObject], list[str]]:
    """``specs`` as a provider may send them, and what it says about strict.

    When not ``supported`` (``why_not`` says why, e.g. "Gemini has no strict tool
    schemas"), ``strict`` is taken off every spec, and one notice names the tools it was
    asked for. When supported, a strict spec whose schema the ``flavour`` cannot express is
    sent without strict, and a notice names the tool and what could not be expressed.
    Specs are never changed in place.
    """
    strict = [spec for spec in specs if spec.get("strict")]
    if not strict:
        return specs, []
    names = ", ".join(str(spec["name"]) for spec in strict)
    if not supported or flavour is None:
        kept = [{key: value for key, value in spec.items() if key != "strict"} for spec in specs]
        notice = (
            f"{why_not}: strict was not sent for {names}; the arguments are still checked against "
            "each tool's schema before it runs"
        )
        return kept, [notice]
    notices = []
    for spec in strict:
        form = strict_form(spec.get("parameters") or {"type": "object"}, flavour)
        if not form.possible:
            notices.append(
                f"strict mode cannot express {spec['name']}'s schema ({'; '.join(form.cannot)}): "
                "it was sent without strict"
            )
    return specs, notices


def allowed_names(request: ModelRequest) -> list[str] | None:
    """The tools of this round the model may call, when ``allowed_tools`` leaves out a tool
    the round declares (in the order of ``request.allowed_tools``; a deferred tool not yet
    loaded is not declared, so not named); ``None`` when every declared tool is allowed."""
    if request.allowed_tools is None:
        return None
    declared = {spec["name"] for spec in request.tools}
    allowed = [name for name in request.allowed_tools if name in declared]
    return None if set(allowed) == declared else allowed


def allowed_specs(request: ModelRequest, who: str) -> tuple[list[JsonObject], list[str]]:
    """For a provider with no way to allow some tools while declaring all: the round's
    specs less those ``allowed_tools`` leaves out, and the notice saying so — the tool list
    changed, so the provider's cached prompt prefix does too. Every spec and no notice when
    all are allowed."""
    allowed = allowed_names(request)
    if allowed is None:
        return request.tools, []
    kept = [spec for spec in request.tools if spec["name"] in allowed]
    left_out = [str(spec["name"]) for spec in request.tools if spec["name"] not in allowed]
    notice = (
        f"{who} cannot allow some tools while declaring all: only {', '.join(allowed) or 'none'} "
        f"{'was' if len(allowed) == 1 else 'were'} declared ({', '.join(left_out)} left out), "
        "so the cached prompt prefix changes"
    )
    return kept, [notice]
