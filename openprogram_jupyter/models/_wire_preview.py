"""What a round's request would be sent as to another provider, built offline.

``op.wire_preview(request, "anthropic:claude-sonnet-5-5")`` turns a
:class:`~openprogram_jupyter.models.base.ModelRequest` — one round of a run, as
``ScriptedModel.requests`` records them — into the JSON body that provider would be sent,
by the provider's own request code (the same that builds a real round's body). Nothing is
sent and no key is needed: the model is built with a placeholder key that never leaves
the process. For comparing how providers shape the same conversation: tool results paired
with their calls, Anthropic's content blocks, Gemini's function responses, ``tool_choice``
as each maps it. What comes back is the body (a dict) with the one-line notices the run
would print for that round — a feature the provider lacks and what happens instead — as
its ``notices`` (:class:`WirePreview`). ``run.request_as(round, model)`` does the same for a
round of a captured run (:mod:`._wire`).
"""

from __future__ import annotations

from typing import Any

from ..core._json import JsonObject
from .base import ModelRequest

__all__ = ["WirePreview", "model_string", "wire_preview"]


class WirePreview(dict[str, Any]):
    """A round's JSON body as a provider would be sent it (this dict), and ``notices``: the
    one-line notes the run would print for that round, each ``"<model>: <what>"`` — a
    feature the provider lacks and what happens instead (no strict mode, no tool search of
    its own, allowed tools emulated, …); empty when it can say everything asked. In a
    notebook the notes show as ``note: …`` lines above the body."""

    def __init__(self, body: JsonObject, notices: list[str]) -> None:
        super().__init__(body)
        self.notices = list(notices)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        for notice in self.notices:
            printer.text(f"note: {notice}")
            printer.break_()
        printer.pretty(dict(self))


_PLACEHOLDER_KEY = "wire-preview-not-sent"


def model_string(model: str) -> str:
    """``model`` as ``"provider:model_id"``: a provider's prefix alone (``"anthropic"``)
    names its default model. A prefix without a default model, or an unknown one, raises
    ``ValueError`` saying what to write; anything else is returned as it is."""
    from .providers import PROVIDERS, provider_info

    if not isinstance(model, str) or ":" in model or model == "offline":
        return model
    info = provider_info(model)
    if info is None:
        raise ValueError(
            f"unknown provider {model!r}; known: {', '.join(sorted(PROVIDERS))} "
            "(or a whole model string such as 'openai:gpt-4.1-mini')"
        )
    if info.default_model_name is None:
        raise ValueError(f"the provider {model!r} has no default model: name one, as in '{model}:MODEL_ID'")
    return info.default_model_name


def wire_preview(request: ModelRequest, model: str) -> WirePreview:
    """The JSON body ``model`` (a ``"provider:model_id"`` string, or a provider's prefix
    for its default model) would be sent for ``request``, with the notices the run would
    print for it as its ``notices`` (:class:`WirePreview`). An unknown provider, or one
    whose SDK is not installed, raises ``ValueError`` saying which; a model without a wire
    (``"offline"``) raises ``TypeError``."""
    from . import resolve_model

    if not isinstance(request, ModelRequest):
        raise TypeError(
            f"op.wire_preview needs a ModelRequest (e.g. scripted.requests[1]), not {type(request).__name__}"
        )
    from ._provider_common import ProviderModel

    provider_model = resolve_model(model_string(model), api_key=_PLACEHOLDER_KEY, base_url="http://127.0.0.1:9")
    if not isinstance(provider_model, ProviderModel):
        raise TypeError(f"{model!r} sends nothing over a wire: name a provider model such as 'openai:gpt-4.1-mini'")
    return WirePreview(*provider_model.wire_request(request))
