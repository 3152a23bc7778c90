"""Model resolution: ``"provider:model"`` strings to :class:`Model` objects.

Provider modules are imported only when a model string names them, so importing the
package (and ``%load_ext``) never loads an SDK.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from .._install import missing_dependency_message
from .base import MessageBuilder, Model, ModelRequest, ToolChoice, normalize_tool_choice
from .scripted import ScriptedModel

__all__ = [
    "PROVIDERS",
    "MessageBuilder",
    "Model",
    "ModelRequest",
    "ScriptedModel",
    "ToolChoice",
    "default_model_name",
    "normalize_tool_choice",
    "resolve_model",
]

PROVIDERS: dict[str, str] = {
    "openai": "openprogram_jupyter.models.openai_chat:OpenAIChatModel",
    "openai-responses": "openprogram_jupyter.models.openai_responses:OpenAIResponsesModel",
    "anthropic": "openprogram_jupyter.models.anthropic:AnthropicModel",
    "gemini": "openprogram_jupyter.models.gemini:GeminiModel",
    "bedrock": "openprogram_jupyter.models.bedrock:BedrockModel",
    "replay": "openprogram_jupyter.models.replay:ReplayModel",
}
"""Prefix → ``"module:Class"``. Each class is built as ``Class(model_id, api_key=, base_url=)``."""

# Which environment variable makes a provider the default, in order of preference.
_DEFAULT_BY_KEY = (
    ("OPENAI_API_KEY", "openai:gpt-4.1-mini"),
    ("ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5"),
    ("GEMINI_API_KEY", "gemini:gemini-2.5-flash"),
)


def default_model_name() -> str:
    """``OPENPROGRAM_MODEL``, else the first provider whose key is set, else ``"offline"``."""
    named = os.environ.get("OPENPROGRAM_MODEL", "").strip()
    if named:
        return named
    for variable, model in _DEFAULT_BY_KEY:
        if os.environ.get(variable):
            return model
    return "offline"


def resolve_model(
    model: str | Model | None, *, api_key: str | None = None, base_url: str | None = None
) -> Model:
    """Turn ``model`` into a :class:`Model`.

    A :class:`Model` is returned as is. ``None`` takes :func:`default_model_name`.
    ``"offline"`` is the built-in offline model. ``"provider:model_id"`` loads the provider
    module named in :data:`PROVIDERS`. An unknown provider, a missing model id or a
    provider whose optional dependency is not installed raises ``ValueError`` saying which
    and how to fix it.
    """
    if isinstance(model, Model):
        return model
    if model is None:
        model = default_model_name()
    if not isinstance(model, str):
        raise TypeError(f"model must be a 'provider:model' string or a Model, not {type(model).__name__}")
    if model == "offline":
        from .offline import OfflineModel

        return OfflineModel()
    provider, sep, model_id = model.partition(":")
    if not sep or not model_id:
        raise ValueError(
            f"model {model!r} is not 'provider:model' (e.g. 'openai:gpt-4.1-mini') or 'offline'"
        )
    if provider not in PROVIDERS:
        raise ValueError(
            f"unknown provider {provider!r} in model {model!r}; known: {', '.join(sorted(PROVIDERS))}"
        )
    module_name, class_name = PROVIDERS[provider].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or "a dependency"
        raise ValueError(missing_dependency_message(provider, missing)) from error
    cls: Any = getattr(module, class_name)
    return cls(model_id, api_key=api_key, base_url=base_url)
