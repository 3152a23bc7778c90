"""The provider registry: every provider's :class:`ProviderInfo`, and the tables built from them.

:data:`PROVIDER_INFOS` lists the descriptors in order of preference (the first provider
whose key is set is the default model). Everything else that depends on which providers
exist is derived here, and nowhere else:

- :data:`PROVIDERS` — prefix → ``"module:Class"``, for :func:`~openprogram_jupyter.models.resolve_model`;
- :data:`DEFAULT_MODELS` — ``(key variable, "prefix:model")`` pairs, for
  :func:`~openprogram_jupyter.models.default_model_name`;
- :data:`SECRET_ENV_VARS` — every provider's key variables, whose values are masked in
  every run's record, view and cassette (handed to :mod:`.._secrets` at import);
- :data:`TOOL_SHAPES` and :data:`TOOL_RULES` — how each provider takes a tool and what it
  refuses, for the adapters and ``%agent schema NAME``;
- :func:`key_variables_text` — ``"OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY"``,
  for the messages that tell a user how to leave the offline model;
- :func:`client_environment` — a digest of every variable a model string's resolution
  and its client read, so a resolved model never outlives the key or endpoint it was
  made with.

Importing this module imports each remote provider's module, none of which imports its
SDK (the SDK loads with a model's first request).
"""

from __future__ import annotations

import hashlib
import os

from ..core._secrets import watch_variables
from . import anthropic, bedrock, gemini, openai_chat, openai_responses
from ._provider_info import ProviderInfo, ToolRules, ToolShape

__all__ = [
    "CLIENT_ENV_VARS",
    "DEFAULT_MODELS",
    "PROVIDERS",
    "PROVIDER_INFOS",
    "REPLAY_INFO",
    "SECRET_ENV_VARS",
    "TOOL_RULES",
    "TOOL_SHAPES",
    "ProviderInfo",
    "client_environment",
    "key_variables_text",
    "provider_info",
]

REPLAY_INFO = ProviderInfo(prefix="replay", model_class="openprogram_jupyter.models.replay:ReplayModel")
"""``replay:FILE`` plays a cassette back: no key, no network, no tools. Declared here rather
than in :mod:`.replay` because that module's recorder reads :data:`SECRET_ENV_VARS` from
this one (and imports may not go in a circle)."""

PROVIDER_INFOS: tuple[ProviderInfo, ...] = (
    openai_chat.INFO,
    openai_responses.INFO,
    anthropic.INFO,
    gemini.INFO,
    bedrock.INFO,
    REPLAY_INFO,
)


def _index(infos: tuple[ProviderInfo, ...]) -> dict[str, ProviderInfo]:
    index: dict[str, ProviderInfo] = {}
    for info in infos:
        if info.prefix in index:
            raise ValueError(f"two providers declare the prefix {info.prefix!r}")
        index[info.prefix] = info
    return index


_BY_PREFIX = _index(PROVIDER_INFOS)

PROVIDERS: dict[str, str] = {info.prefix: info.model_class for info in PROVIDER_INFOS}
"""Prefix → ``"module:Class"``. Each class is built as ``Class(model_id, api_key=, base_url=)``."""

DEFAULT_MODELS: tuple[tuple[str, str], ...] = tuple(
    (info.key_variables[0], info.default_model_name) for info in PROVIDER_INFOS if info.default_model_name
)
"""``(variable, "prefix:model")`` in order of preference: the first whose variable is set
names the default model."""

SECRET_ENV_VARS: tuple[str, ...] = tuple(dict.fromkeys(name for info in PROVIDER_INFOS for name in info.key_variables))
"""Every provider's key variables, each once, in registry order."""

watch_variables(SECRET_ENV_VARS)  # their values are secrets to every run from now on

TOOL_SHAPES: dict[str, ToolShape] = {
    info.prefix: info.tool_shape for info in PROVIDER_INFOS if info.tool_shape is not None
}
"""Prefix → how a tool is declared to it, for each provider tools are declared to, in registry order."""

TOOL_RULES: dict[str, ToolRules] = {
    info.prefix: info.tool_rules for info in PROVIDER_INFOS if info.tool_rules is not None
}
"""Prefix → what it refuses in a tool declaration, in registry order."""


def provider_info(prefix: str) -> ProviderInfo | None:
    """The descriptor of the provider named ``prefix``, or ``None`` when none is."""
    return _BY_PREFIX.get(prefix)


CLIENT_ENV_VARS: tuple[str, ...] = tuple(
    dict.fromkeys(
        [
            "OPENPROGRAM_MODEL",
            *(name for info in PROVIDER_INFOS for name in (*info.key_variables, *info.endpoint_variables)),
        ]
    )
)
"""Every variable that decides which model a string resolves to and how its client
connects: the default model's, each provider's keys and endpoints."""


def client_environment() -> str:
    """A digest of the current values of :data:`CLIENT_ENV_VARS` (a hash: no value is
    kept). Two calls give the same digest exactly when none of them changed."""
    digest = hashlib.sha256()
    for name in CLIENT_ENV_VARS:
        value = os.environ.get(name)
        digest.update(b"\0" if value is None else b"\1" + value.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def key_variables_text() -> str:
    """The variables that select a default model, as a sentence fragment:
    ``"OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY"``."""
    names = [variable for variable, _ in DEFAULT_MODELS]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
