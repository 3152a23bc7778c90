from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry

from .servers import STDIO_COMMAND, http_server


@pytest.fixture(autouse=True)
def clean_registry():
    default_registry.clear()
    yield
    default_registry.clear()


@pytest.fixture
def runtime():
    """A Runtime that owns the servers a test connects (closed at the end)."""
    rt = op.Runtime(model="offline")
    yield rt
    rt.close()


@pytest.fixture
def stdio_demo(runtime):
    return op.mcp(command=STDIO_COMMAND, runtime=runtime)


@pytest.fixture(scope="module")
def http_url():
    with http_server() as url:
        yield url
