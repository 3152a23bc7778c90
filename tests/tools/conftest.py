from __future__ import annotations

import pytest

from openprogram_jupyter.tools.registry import default_registry


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test starts and ends with an empty global registry."""
    default_registry.clear()
    yield
    default_registry.clear()


def props(tool) -> dict:
    """The JSON Schema of each parameter, by name."""
    return tool.spec["parameters"]["properties"]
