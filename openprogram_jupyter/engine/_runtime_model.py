"""The model a Runtime runs on: :class:`RuntimeModel`, resolved from the Runtime's
configuration on first use and again whenever what a model string reads has changed.

A model string reads the environment (a provider's key, base URL, region;
``OPENPROGRAM_MODEL``: :data:`~openprogram_jupyter.models.providers.CLIENT_ENV_VARS`), and the
SDK client it builds keeps what it read. So the resolved model is kept with a digest of those
variables, and a changed digest resolves the string again: a key corrected in the notebook
(``%env``, ``os.environ``, ``%agent key``) is used by the next run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Model
    from ._runtime_config import RuntimeConfig

__all__ = ["RuntimeModel"]


class RuntimeModel:
    """The resolved model of one Runtime (``None`` until first asked)."""

    def __init__(self) -> None:
        self.resolved: Model | None = None
        self._environment: str | None = None  # client_environment() when `resolved` was made

    def of(self, config: RuntimeConfig) -> Model:
        """The model ``config`` names: the one resolved before while the environment a model
        string reads is unchanged, else resolved now. A model object is used as given."""
        environment = None
        if isinstance(config.model, (str, type(None))):
            from ..models.providers import client_environment

            environment = client_environment()
        if self.resolved is None or environment != self._environment:
            from .execute import resolve_model

            self.resolved = resolve_model(
                config.model, api_key=config.api_key, base_url=config.base_url, record=config.record
            )
            self._environment = environment
        return self.resolved

    def forget(self) -> None:
        """Resolve again on next use (the configured model changed)."""
        self.resolved = None
