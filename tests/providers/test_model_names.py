"""No default and no example names a model past its end of life, by genai-prices' data
and by the provider SDK's own list of current models where it has one (Anthropic's
``Model``, OpenAI's ``ChatModel``): the defaults are read from the one place that holds
them (each provider's ``ProviderInfo.default_model``), the examples from README.md,
docs/ and notebooks/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from openprogram_jupyter.models import pricing
from openprogram_jupyter.models.providers import PROVIDER_INFOS

REPO = Path(__file__).resolve().parents[2]
MODEL_STRING = re.compile(r"\b(openai-responses|openai|anthropic|gemini|bedrock):([A-Za-z0-9](?:[\w.\-]*\w)?(?::\d+)?)")
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "notebooks").glob("*.ipynb"))]


def sdk_models(prefix: str) -> set[str] | None:
    """The model ids the provider's SDK lists as current, or ``None`` where it lists none."""
    import typing

    if prefix == "anthropic":
        from anthropic.types.model import Model
    elif prefix in ("openai", "openai-responses"):
        from openai.types.shared.chat_model import ChatModel as Model
    else:
        return None
    listed = typing.get_args(Model)
    return {name for part in listed for name in typing.get_args(part)} or set(listed)


@pytest.mark.parametrize("info", [i for i in PROVIDER_INFOS if i.default_model], ids=lambda i: i.prefix)
def test_each_providers_default_model_is_current(info):
    model = pricing.library_model(info.default_model_name)
    assert model is not None, f"{info.default_model_name}: genai-prices does not know it"
    assert not model.deprecated, f"{info.default_model_name} is deprecated: choose a current model"
    listed = sdk_models(info.prefix)
    assert listed is None or info.default_model in listed, f"{info.default_model_name} is not in its SDK's list"


def test_no_example_names_a_deprecated_model():
    named = {
        f"{prefix}:{model}" for document in DOCUMENTS for prefix, model in MODEL_STRING.findall(document.read_text())
    }
    known = {name: pricing.library_model(name) for name in named}
    assert len([name for name, model in known.items() if model is not None]) >= 4, sorted(named)  # the scan finds them
    assert sorted(name for name, model in known.items() if model is not None and model.deprecated) == []
    for prefix in ("anthropic",):  # an Anthropic model the SDK no longer lists is past its end of life
        listed = sdk_models(prefix)
        assert sorted(n for n in named if n.startswith(f"{prefix}:") and n.partition(":")[2] not in listed) == []
