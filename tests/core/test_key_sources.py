"""Where a provider's key comes from: the environment, a .env file next to the notebook,
Colab's secrets (a fake ``google.colab.userdata`` here: the real one exists only in Colab)."""

from __future__ import annotations

import os
import sys
import types

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core import _key_sources
from openprogram_jupyter.core._key_sources import fill_missing_keys, origin_of, origins
from openprogram_jupyter.core._secrets import mask
from openprogram_jupyter.models import default_model_name

NAMES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENPROGRAM_MODEL",
    "OPENAI_BASE_URL",
)
KEY = "sk-dotenv-7f3a9c2e1b5d4f60"


@pytest.fixture(autouse=True)
def no_keys(monkeypatch, tmp_path):
    for name in NAMES:
        monkeypatch.setenv(name, "placeholder")  # recorded, so whatever a test sets is undone
        monkeypatch.delenv(name)
    monkeypatch.setattr(_key_sources, "_ORIGINS", {})
    monkeypatch.setattr(_key_sources, "_dotenv_missing", None)
    monkeypatch.chdir(tmp_path)
    yield


def fake_colab(monkeypatch, secrets: dict[str, str], refused: set[str] = frozenset()):
    """Install a stand-in for ``google.colab.userdata`` whose ``get`` behaves like Colab's."""

    class SecretNotFoundError(Exception):
        pass

    class NotebookAccessError(Exception):
        pass

    def get(name):
        if name in refused:
            raise NotebookAccessError(f"the notebook has no access to {name}")
        if name not in secrets:
            raise SecretNotFoundError(name)
        return secrets[name]

    userdata = types.ModuleType("google.colab.userdata")
    userdata.get = get
    for name, module in (
        ("google", types.ModuleType("google")),
        ("google.colab", types.ModuleType("google.colab")),
        ("google.colab.userdata", userdata),
    ):
        monkeypatch.setitem(sys.modules, name, module)


def test_a_key_in_a_dotenv_file_is_used_masked_and_named_as_its_origin(tmp_path):
    (tmp_path / ".env").write_text(f'OPENAI_API_KEY="{KEY}"\nUNRELATED=1\n')
    assert default_model_name() == "openai:gpt-4.1-mini"
    assert os.environ["OPENAI_API_KEY"] == KEY and "UNRELATED" not in os.environ
    assert origin_of("OPENAI_API_KEY") == f"the .env file {tmp_path / '.env'}"
    assert mask(f"token {KEY}!") == "token ***!"


def test_the_environment_wins_over_the_dotenv_file(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-123")
    assert fill_missing_keys(["OPENAI_API_KEY"]) == []
    assert os.environ["OPENAI_API_KEY"] == "sk-from-the-environment-123"
    assert origin_of("OPENAI_API_KEY") == "the environment"


def test_colab_secrets_fill_what_the_dotenv_file_lacks_and_a_refusal_is_skipped(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    fake_colab(
        monkeypatch,
        {"OPENAI_API_KEY": "sk-colab-not-used-1234", "ANTHROPIC_API_KEY": "sk-ant-colab-5678"},
        refused={"GEMINI_API_KEY"},
    )
    found = fill_missing_keys(["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"])
    assert found == ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]
    assert os.environ["OPENAI_API_KEY"] == KEY and os.environ["ANTHROPIC_API_KEY"] == "sk-ant-colab-5678"
    assert origin_of("ANTHROPIC_API_KEY") == "Colab's secrets" and origin_of("GEMINI_API_KEY") is None


def test_without_python_dotenv_the_file_is_not_read_and_the_origins_say_so(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={KEY}\n")
    monkeypatch.setitem(sys.modules, "dotenv", None)  # import dotenv now raises ImportError
    assert fill_missing_keys(["OPENAI_API_KEY"]) == []
    rows = dict(origins(["OPENAI_API_KEY"]))
    assert rows["OPENAI_API_KEY"] == "not set" and "pip install python-dotenv" in rows[".env"]


async def test_the_no_key_error_names_every_place_a_key_may_come_from_in_one_line(tmp_path):
    run = await op.Runtime(model="openai:gpt-4.1-mini").arun("Hi.")  # no key: fails making the client
    assert run.stop_reason == "error"
    line = str(run.error).splitlines()[0]
    for place in ("OPENAI_API_KEY", "the environment", ".env file", "Colab's secrets", "%agent key openai", "api_key="):
        assert place in line, place
