"""How tools, ``tool_choice`` and ``parallel_tool_calls`` become a Converse ``toolConfig``.

Converse can say less than the other APIs, and what it can say depends on the model
family. This table is exactly what :func:`tool_config` sends (docs/providers.md shows the
same table beside the other providers'):

============  ===================================================================
``auto``      ``toolChoice {auto: {}}``
``required``  ``{any: {}}`` on Claude 3+, Nova and Mistral Large; elsewhere ``auto``
              plus an instruction to call a tool, and a notice
``none``      no tool config at all when the history has no tool blocks (exact);
              otherwise the tools stay declared (Converse requires them), no
              ``toolChoice``, an instruction not to call any, and a notice
forced X      ``{tool: {name: X}}`` on Claude 3+ and Nova; on Mistral Large
              ``{any: {}}`` with only X declared; elsewhere ``auto`` with only X
              declared and an instruction; a notice for both
parallel off  Claude only: the choice moves to
              ``additionalModelRequestFields.tool_choice`` with
              ``disable_parallel_tool_use: true`` and ``toolChoice`` is left out;
              elsewhere a notice
============  ===================================================================

When the round has no tools but the history has tool blocks, the history's tools are
declared as stubs (Converse rejects tool blocks without a ``toolConfig``) with an
instruction not to call them. Model ids are matched after dropping a cross-region
prefix (``us.``, ``eu.``, ...); an id we do not recognise (an ARN, a new family) gets
the conservative column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..core._json import JsonObject
from ._history import forced_tool_name, history_has_tool_blocks, stub_specs_for_history
from ._provider_info import Spec, declared_parameters
from ._tool_features import described_with_examples, strict_parameters
from .anthropic import takes_strict_tools
from .base import ModelRequest

__all__ = ["BedrockControls", "bedrock_tool", "model_family", "takes_strict", "tool_config"]

_REGION_PREFIX = re.compile(r"^(us|eu|apac|jp|au|ca|us-gov|global)\.")


def bedrock_tool(spec: Spec) -> JsonObject:
    """An element of Converse's ``toolConfig.tools``. Bedrock refuses an empty description,
    so a tool without one is described by its name; examples go in the description. A
    strict spec goes with ``strict: true`` and its schema closed (:mod:`._strict_schema`),
    unless strict mode cannot express it."""
    tool_spec: JsonObject = {
        "name": spec["name"],
        "description": described_with_examples({**spec, "description": spec.get("description") or spec["name"]}),
        "inputSchema": {"json": declared_parameters(spec)},
    }
    strict = strict_parameters(spec, tool_spec["inputSchema"]["json"], "closed")
    if strict is not None:
        tool_spec["inputSchema"], tool_spec["strict"] = {"json": strict}, True
    return {"toolSpec": tool_spec}


@dataclass
class BedrockControls:
    tool_config: JsonObject | None = None
    additional_fields: dict[str, Any] | None = None
    instructions: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def takes_strict(model_id: str) -> bool:
    """Whether a Bedrock model takes ``toolSpec.strict``: the Claude models that take strict
    tool use on Anthropic's API (:func:`.anthropic.takes_strict_tools`); no other family."""
    base = _REGION_PREFIX.sub("", model_id)
    return base.startswith("anthropic.") and model_family(model_id)[0] and takes_strict_tools(base[len("anthropic.") :])


def model_family(model_id: str) -> tuple[bool, bool, bool]:
    """``(is_claude_3_plus, supports_any, supports_tool)`` for a Bedrock model id."""
    base = _REGION_PREFIX.sub("", model_id)
    claude = base.startswith("anthropic.claude-") and not base.startswith(
        ("anthropic.claude-v", "anthropic.claude-instant")
    )
    nova = base.startswith("amazon.nova")
    mistral_large = base.startswith("mistral.mistral-large")
    return claude, claude or nova or mistral_large, claude or nova


def _specs(tools: list[JsonObject]) -> list[JsonObject]:
    return [bedrock_tool(t) for t in tools]


def tool_config(model_id: str, request: ModelRequest) -> BedrockControls:
    """The ``toolConfig`` (and friends) for one round; see the module's table."""
    controls = BedrockControls()
    claude, supports_any, supports_tool = model_family(model_id)
    tools, choice = list(request.tools), request.tool_choice
    history_tools = history_has_tool_blocks(request.messages)
    if choice == "none" or not tools:
        if history_tools:
            controls.tool_config = {"tools": _specs(stub_specs_for_history(request.messages, tools))}
            controls.instructions.append("Do not call any tool in this reply; answer in text.")
            if choice == "none":
                controls.notices.append(
                    "Bedrock has no tool_choice 'none'; the tools stay declared (the history "
                    "uses them) and the model was told in the system prompt not to call any"
                )
        return controls

    mapped: JsonObject
    forced = forced_tool_name(choice)
    if choice == "auto":
        mapped = {"auto": {}}
    elif choice == "required":
        if supports_any:
            mapped = {"any": {}}
        else:
            mapped = {"auto": {}}
            controls.instructions.append("You must call at least one of the tools in this reply.")
            controls.notices.append(
                f"{model_id} cannot be forced to call a tool on Bedrock; tool_choice "
                "'required' was sent as auto with an instruction in the system prompt"
            )
    else:
        if supports_tool:
            mapped = {"tool": {"name": forced}}
        else:
            tools = [t for t in tools if t["name"] == forced] or tools
            if supports_any:
                mapped = {"any": {}}
                how = "as 'any' with only that tool declared"
            else:
                mapped = {"auto": {}}
                controls.instructions.append(f"You must call the tool {forced} in this reply.")
                how = "as auto with only that tool declared and an instruction in the system prompt"
            controls.notices.append(
                f"{model_id} cannot be forced to a named tool on Bedrock; tool_choice {forced!r} was sent {how}"
            )
    controls.tool_config = {"tools": _specs(tools), "toolChoice": mapped}
    if request.parallel_tool_calls is False:
        _one_call_at_a_time(controls, model_id, claude, mapped, forced)
    return controls


def _one_call_at_a_time(
    controls: BedrockControls, model_id: str, claude: bool, mapped: JsonObject, forced: str | None
) -> None:
    """``parallel_tool_calls=False``: a Claude model takes Anthropic's own tool choice with
    ``disable_parallel_tool_use`` (in place of Converse's); another model cannot be told."""
    if not claude:
        controls.notices.append(
            f"{model_id} cannot be told to make one call at a time on Bedrock "
            "(parallel_tool_calls=False was not sent); every call it returns is run in order"
        )
        return
    kind = next(iter(mapped))
    anthropic_choice: JsonObject = {"type": kind, "disable_parallel_tool_use": True}
    if kind == "tool":
        anthropic_choice["name"] = forced
    controls.additional_fields = {"tool_choice": anthropic_choice}
    assert controls.tool_config is not None
    del controls.tool_config["toolChoice"]
