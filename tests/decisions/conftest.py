from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test starts and ends with an empty global registry."""
    default_registry.clear()
    yield
    default_registry.clear()


def pick(name: str, **arguments) -> str:
    """A reply holding one bare pick."""
    import json

    return json.dumps({"call": name, "args": arguments})


def scripted_runtime(*replies) -> tuple[op.Runtime, op.ScriptedModel]:
    model = op.ScriptedModel(list(replies))
    return op.Runtime(model=model), model
