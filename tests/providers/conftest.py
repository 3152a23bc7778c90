"""Fixtures for the provider tests: a fresh loopback server per test, dummy credentials,
and a helper that streams one round straight through ``Model.stream``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ → `import fakeserver`

from fakeserver import FakeServer  # noqa: E402

from openprogram_jupyter.events import AssistantUpdate  # noqa: E402
from openprogram_jupyter.messages import AssistantMessage  # noqa: E402
from openprogram_jupyter.models._provider_common import RetryPolicy  # noqa: E402
from openprogram_jupyter.models.base import MessageBuilder, Model, ModelRequest  # noqa: E402

SECRET = "sk-test-SECRET-0123456789"
FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05, jitter=0.0)


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch, tmp_path):
    """Nothing in the environment may point a client anywhere but the fake server."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
                 "ANTHROPIC_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
                 "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFAKEFAKE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic"))


@dataclass
class Round:
    updates: list[AssistantUpdate]
    message: AssistantMessage

    def kinds(self) -> list[str]:
        return [u.kind for u in self.updates]


async def stream_round(model: Model, request: ModelRequest) -> Round:
    out = MessageBuilder(model.name)
    updates = [u async for u in model.stream(request, out)]
    return Round(updates, out.message)
