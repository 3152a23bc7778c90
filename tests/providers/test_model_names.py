"""No default and no example names a model past its end of life, by genai-prices' data:
the defaults are read from the one place that holds them (each provider's
``ProviderInfo.default_model``), the examples from README.md, docs/ and notebooks/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from openprogram_jupyter.models import pricing
from openprogram_jupyter.models.providers import PROVIDER_INFOS

REPO = Path(__file__).resolve().parents[2]
MODEL_STRING = re.compile(r"\b(openai-responses|openai|anthropic|gemini|bedrock):([A-Za-z0-9](?:[\w.\-]*\w)?(?::\d+)?)")
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "notebooks").glob("*.ipynb"))]


@pytest.mark.parametrize("info", [i for i in PROVIDER_INFOS if i.default_model], ids=lambda i: i.prefix)
def test_each_providers_default_model_is_current_in_the_library(info):
    model = pricing.library_model(info.default_model_name)
    assert model is not None, f"{info.default_model_name}: genai-prices does not know it"
    assert not model.deprecated, f"{info.default_model_name} is deprecated: choose a current model"


def test_no_example_names_a_deprecated_model():
    named = {f"{prefix}:{model}" for document in DOCUMENTS for prefix, model in MODEL_STRING.findall(
        document.read_text())}
    known = {name: pricing.library_model(name) for name in named}
    assert len([name for name, model in known.items() if model is not None]) >= 5, sorted(named)
    assert sorted(name for name, model in known.items() if model is not None and model.deprecated) == []
