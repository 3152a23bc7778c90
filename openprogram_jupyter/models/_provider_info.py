"""What a provider says about itself: :class:`ProviderInfo`, one per ``"prefix:model"`` prefix.

Each provider module declares one ``INFO = ProviderInfo(...)``; the registry
(:mod:`openprogram_jupyter.models.providers`) collects them and builds every table the
package needs from them: model resolution, the default model, the secrets masked in
cassettes and messages, and the tool declarations and rules ``%agent schema NAME`` shows.

This module imports nothing but the standard library, and a descriptor names its model
class by import path, so reading a descriptor never loads a model class or an SDK.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core._json import JsonObject

__all__ = [
    "PLAIN_TOOL_NAME",
    "ProviderInfo",
    "Spec",
    "ToolRules",
    "ToolShape",
    "declared_parameters",
    "tools_and_choice",
]

Spec = JsonObject
"""A tool spec: ``{"name", "description", "parameters"}``."""

PLAIN_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""The tool-name rule most APIs share: ``[A-Za-z0-9_-]``, 1 to 64 characters."""


def tools_and_choice(body: JsonObject) -> tuple[int, Any]:
    """How many tools a request body declares, and its tool choice, where most APIs put
    them: ``"tools"`` and ``"tool_choice"``."""
    return len(body.get("tools") or []), body.get("tool_choice")


def declared_parameters(spec: Spec) -> JsonObject:
    """The parameters schema a declaration carries: the spec's, else an empty object schema."""
    return spec.get("parameters") or {"type": "object"}


@dataclass(frozen=True)
class ToolShape:
    """How a provider declares one tool.

    ``declare`` turns a tool spec into the provider's declaration (what its adapter sends
    and ``%agent schema NAME`` shows). ``api`` titles that declaration on the page
    (``"OpenAI Chat Completions"``), and ``place`` says where in the request it goes
    (``'an element of "tools"'``).
    """

    api: str
    place: str
    declare: Callable[[Spec], JsonObject]


@dataclass(frozen=True)
class ToolRules:
    """What a provider refuses in a tool declaration, as ``%agent schema NAME`` flags it.

    ``name_pattern`` must match the whole tool name; ``name_rule`` says the rule in words
    (``"names must be <name_rule>"``). ``plain_top_level``: the parameters' top level may
    not hold ``anyOf`` / ``oneOf`` / ``allOf`` / ``enum`` / ``not``. ``parameter_problems``,
    when set, lists further problems in the parameters schema, one line each, without the
    provider's prefix.
    """

    name_pattern: re.Pattern[str]
    name_rule: str
    plain_top_level: bool = True
    parameter_problems: Callable[[JsonObject], list[str]] | None = None


def declared(prefix: str) -> ProviderInfo | None:
    """The descriptor declared for ``prefix`` — by its provider's module, once imported (a
    model of that provider exists, or the registry in :mod:`.providers` was loaded) —
    or ``None``. For modules below the registry, which cannot import it."""
    return _DECLARED.get(prefix)


_DECLARED: dict[str, ProviderInfo] = {}


@dataclass(frozen=True)
class ProviderInfo:
    """One provider, as the rest of the package knows it.

    - ``prefix``: the part of a model string before the first ``:`` (``"openai"``).
    - ``model_class``: ``"module:Class"``; built as ``Class(model_id, api_key=, base_url=)``
      when a model string names ``prefix``.
    - ``key_variables``: the environment variables holding this provider's credentials,
      in the order it reads them. Their values are masked in cassettes and in its error
      messages.
    - ``endpoint_variables``: the other environment variables its client reads (its base
      URL, region, profile). A model string resolved once is resolved again when one of
      these or of ``key_variables`` changes (:func:`.providers.client_environment`), so a
      corrected key or endpoint is used by the next request.
    - ``default_model``: the model id used when no model is named and the first of
      ``key_variables`` is set (providers earlier in the registry win); ``None``: never
      the default.
    - ``tool_shape`` / ``tool_rules``: how a tool is declared to it and what it refuses;
      ``None`` for a provider that sends no tools anywhere (``replay`` plays recordings).
    - ``extra``: the optional-dependency extra its transport needs (``"gemini"``), or
      ``None`` when the core dependencies suffice.
    - ``key_hint``: how to supply credentials, as its missing-credentials error says it
      (``"set GEMINI_API_KEY (or GOOGLE_API_KEY) or pass api_key="``); ``None`` when the
      SDK's own error says it.
    - ``one_key``: ``%agent key PREFIX`` sets its first key variable; ``False`` when its
      credentials come in pairs (Bedrock), so the user names the variable.
    - ``wire_messages``: the key of its request body that holds the conversation
      (``"messages"``, ``"input"``, ``"contents"``), which wire capture stores once per
      message; ``None`` for a provider that sends nothing over a wire.
    - ``fold_frames``: folds its streamed reply frames into the reply object its
      non-streaming API would return (``%agent wire`` shows it); ``None``: not folded.
    - ``tools_in_body``: how many tools a request body declares and its tool choice, in
      its own terms (the wire view's round line).
    - ``trace_name``: its ``gen_ai.provider.name`` in OpenTelemetry's GenAI conventions
      (``"aws.bedrock"``); ``None``: the prefix.
    - ``prices_id``: its provider id in genai-prices, where its models' prices and context
      windows are looked up (``"google"``); ``None``: not priced there.
    - ``native_compaction``: whether it compacts a conversation itself when asked
      (``compact="provider"``; :mod:`._provider_compaction`): its models, and a replay of
      a recording of one, declare it as :attr:`.base.Model.native_compaction`.

    Raises ``ValueError`` when the fields contradict each other (a malformed
    ``model_class``, a default model without a key variable, rules without a shape).
    """

    prefix: str
    model_class: str
    key_variables: tuple[str, ...] = ()
    endpoint_variables: tuple[str, ...] = ()
    default_model: str | None = None
    tool_shape: ToolShape | None = None
    tool_rules: ToolRules | None = None
    extra: str | None = None
    key_hint: str | None = None
    one_key: bool = True
    wire_messages: str | None = None
    fold_frames: Callable[[list[Any]], JsonObject | None] | None = None
    tools_in_body: Callable[[JsonObject], tuple[int, Any]] = tools_and_choice
    trace_name: str | None = None
    prices_id: str | None = None
    native_compaction: bool = False

    def __post_init__(self) -> None:
        module, sep, name = self.model_class.partition(":")
        if not self.prefix or ":" in self.prefix:
            raise ValueError(f"a provider prefix must be non-empty and without ':', got {self.prefix!r}")
        if not (sep and module and name):
            raise ValueError(f"{self.prefix}: model_class must be 'module:Class', got {self.model_class!r}")
        if self.default_model is not None and not self.key_variables:
            raise ValueError(f"{self.prefix}: a default model needs a key variable that selects it")
        if self.tool_rules is not None and self.tool_shape is None:
            raise ValueError(f"{self.prefix}: tool rules without a tool shape")
        _DECLARED[self.prefix] = self

    @property
    def default_model_name(self) -> str | None:
        """``"prefix:default_model"``, or ``None`` when this provider is never the default."""
        return f"{self.prefix}:{self.default_model}" if self.default_model is not None else None

    @property
    def sends_tools(self) -> bool:
        """Whether tools are declared to this provider (it is a remote API)."""
        return self.tool_shape is not None
