"""Fixtures shared by the tests that register tools and connect MCP servers: an empty
global registry around each test, and a Runtime that owns (and closes) what a test connects.
A conftest or test module imports them by name to use them."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import default_registry


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
