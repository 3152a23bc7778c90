"""Model resolution: ``"provider:model"`` strings to :class:`Model` objects.

Which providers exist, and what each needs, is the registry's
(:mod:`openprogram_jupyter.models.providers`). No provider module imports its SDK, so
resolving a model never loads one (it loads with the model's first request), and
importing the top-level package (and ``%load_ext``) does not import this one.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from ..core._install import missing_dependency_message
from ..core._key_sources import fill_missing_keys
from ..core._secrets import remember
from ._provider_errors import RetryPolicy
from .base import MessageBuilder, Model, ModelRequest, ToolChoice, normalize_tool_choice
from .providers import DEFAULT_MODELS, PROVIDERS, SECRET_ENV_VARS, provider_info
from .scripted import ScriptedModel

__all__ = [
    "PROVIDERS",
    "MessageBuilder",
    "Model",
    "ModelRequest",
    "RetryPolicy",
    "ScriptedModel",
    "ToolChoice",
    "default_model_name",
    "normalize_tool_choice",
    "resolve_model",
]


def default_model_name() -> str:
    """``OPENPROGRAM_MODEL``, else the default model of the first provider (in registry
    order) whose first key variable is set, else ``"offline"``. Key variables that are
    not set are looked for first in a ``.env`` file and Colab's secrets
    (:func:`~.._key_sources.fill_missing_keys`)."""
    fill_missing_keys(SECRET_ENV_VARS)
    named = os.environ.get("OPENPROGRAM_MODEL", "").strip()
    if named:
        return named
    for variable, model in DEFAULT_MODELS:
        if os.environ.get(variable):
            return model
    return "offline"


def resolve_model(model: str | Model | None, *, api_key: str | None = None, base_url: str | None = None) -> Model:
    """Turn ``model`` into a :class:`Model`.

    A :class:`Model` is returned as is. ``None`` takes :func:`default_model_name`.
    ``"offline"`` is the built-in offline model. ``"provider:model_id"`` builds the model
    class the provider's descriptor names (:data:`PROVIDERS`). An unknown provider, a
    missing model id or a provider whose optional dependency is not installed raises
    ``ValueError`` saying which and how to fix it. Key variables that are not set are
    looked for first in a ``.env`` file and Colab's secrets (:mod:`.._key_sources`).
    ``api_key`` is known as a secret from here on
    (:func:`~openprogram_jupyter.core._secrets.remember`), whichever model it is for.
    """
    remember(api_key)
    if isinstance(model, Model):
        return model
    fill_missing_keys(SECRET_ENV_VARS)
    if model is None:
        model = default_model_name()
    if not isinstance(model, str):
        raise TypeError(f"model must be a 'provider:model' string or a Model, not {type(model).__name__}")
    if model == "offline":
        from .offline import OfflineModel

        return OfflineModel()
    provider, sep, model_id = model.partition(":")
    if not sep or not model_id:
        raise ValueError(f"model {model!r} is not 'provider:model' (e.g. 'openai:gpt-4.1-mini') or 'offline'")
    info = provider_info(provider)
    if info is None:
        raise ValueError(f"unknown provider {provider!r} in model {model!r}; known: {', '.join(sorted(PROVIDERS))}")
    module_name, class_name = info.model_class.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or "a dependency"
        raise ValueError(missing_dependency_message(provider, missing, info.extra)) from error
    cls: Any = getattr(module, class_name)
    return cls(model_id, api_key=api_key, base_url=base_url)
