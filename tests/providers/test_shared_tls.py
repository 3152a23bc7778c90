"""The CA certificates are loaded once per process, not once per SDK client.

A provider model makes one SDK client per event loop; each new ``httpx2`` client used to
build its own SSL context and load the certificates into it (about 20 ms on the loop
that made it, more on a busy machine), so every evaluation, every run started on a
thread of its own and every job of an executor paid for it again.
"""

from __future__ import annotations

import asyncio
import ssl

import httpcore2
import pytest

from openprogram_jupyter.models import _tls
from openprogram_jupyter.models.anthropic import AnthropicModel
from openprogram_jupyter.models.openai_chat import OpenAIChatModel


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[ssl.SSLContext]:
    """Each context httpx2 builds from the system's certificates, from an empty cache."""
    built: list[ssl.SSLContext] = []

    def default_ssl_context(*, _trust_env: bool = True) -> ssl.SSLContext:
        built.append(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
        return built[-1]

    monkeypatch.setattr(httpcore2, "default_ssl_context", default_ssl_context)
    monkeypatch.setattr(_tls, "_contexts", {})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return built


def _client_on_a_new_loop(model: object) -> object:
    async def made() -> object:
        return model._client()  # type: ignore[attr-defined]

    return asyncio.run(made())


@pytest.mark.parametrize(
    "make",
    [
        lambda: OpenAIChatModel("gpt-4o-mini", api_key="sk-test", base_url="http://127.0.0.1:9/v1"),
        lambda: AnthropicModel("claude-sonnet-4-5", api_key="sk-ant-test", base_url="http://127.0.0.1:9"),
    ],
    ids=["openai", "anthropic"],
)
def test_clients_on_different_loops_share_one_loaded_context(make, loads):
    first, second = make(), make()
    clients = [_client_on_a_new_loop(first), _client_on_a_new_loop(first), _client_on_a_new_loop(second)]

    assert len({id(client) for client in clients}) == 3  # a client per loop, as before
    assert len(loads) == 1


def test_a_changed_certificate_variable_builds_another_context(loads, monkeypatch):
    before = _tls.shared_ssl_context()
    assert _tls.shared_ssl_context() is before
    monkeypatch.setenv("SSL_CERT_DIR", "/nonexistent-cert-dir-for-this-test")

    after = _tls.shared_ssl_context()

    assert after is not before
    monkeypatch.delenv("SSL_CERT_DIR")
    assert _tls.shared_ssl_context() is before
