from __future__ import annotations

import pytest

import openprogram_jupyter as op
from tests import registry_fixtures

from .servers import STDIO_COMMAND, http_server

# The shared fixtures, used here by name (tests/registry_fixtures.py).
clean_registry = registry_fixtures.clean_registry
runtime = registry_fixtures.runtime


@pytest.fixture
def stdio_demo(runtime):
    return op.mcp(command=STDIO_COMMAND, runtime=runtime)


@pytest.fixture(scope="module")
def http_url():
    with http_server() as url:
        yield url
