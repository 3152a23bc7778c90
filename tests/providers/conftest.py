"""Fixtures for the provider tests: a fresh loopback server per test and dummy credentials."""

from __future__ import annotations

import pytest
from fakeserver import FakeServer

from openprogram_jupyter.models.providers import SECRET_ENV_VARS


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch, tmp_path):
    """Nothing in the environment may point a client anywhere but the fake server: every
    provider's key variables are cleared, and the endpoint and profile variables."""
    for name in (
        *SECRET_ENV_VARS,
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
        "AWS_PROFILE",
        "OPENPROGRAM_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic"))
