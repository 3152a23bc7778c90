"""What a document runs in: a fresh IPython shell, an empty registry, a scratch folder,
no provider key — and, for the documents that name a hosted provider, the loopback server
in its place."""

from __future__ import annotations

import os

import pytest
from fakeserver import FakeServer
from IPython.core.interactiveshell import InteractiveShell

from .loopback import LOOPBACK_TURNS

_KEY_VARIABLES = (
    "OPENPROGRAM_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GITHUB_TOKEN",
)


@pytest.fixture
def doc_shell(monkeypatch, tmp_path):
    """A new ``InteractiveShell`` for one document (the process's shell is put back after),
    run from an empty folder with no provider key and ``OPENPROGRAM_WARM_UP=0``.

    What a document may change for the whole process is put back afterwards: the
    environment (``%env`` in a block), the tool registry and the price table
    (``pricing.register_price`` in providers.md)."""
    from openprogram_jupyter.models.pricing import PRICES
    from openprogram_jupyter.tools.registry import default_registry

    environment, prices = dict(os.environ), dict(PRICES)
    for name in _KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENPROGRAM_WARM_UP", "0")
    monkeypatch.chdir(tmp_path)
    previous = InteractiveShell._instance if InteractiveShell.initialized() else None
    InteractiveShell.clear_instance()
    default_registry.clear()
    shell = InteractiveShell.instance()
    yield shell
    default_registry.clear()
    InteractiveShell.clear_instance()
    for klass in InteractiveShell._walk_mro():
        klass._instance = previous
    PRICES.clear()
    PRICES.update(prices)
    for name in set(os.environ) - set(environment):  # monkeypatch restores only what it set
        del os.environ[name]
    os.environ.update(environment)


@pytest.fixture
def loopback(monkeypatch):
    """Start the loopback server for ``document`` (a name in LOOPBACK_TURNS) and point the
    OpenAI and Anthropic clients at it with a made-up key."""
    servers = []

    def start(document: str) -> FakeServer:
        server = FakeServer().start()
        servers.append(server)
        server.script(*LOOPBACK_TURNS[document])
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-loopback-0000")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-docs-loopback-0000")
        return server

    yield start
    for server in servers:
        server.stop()
