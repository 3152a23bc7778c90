"""``%agent key`` in this process: a key typed into a password field reaches the runs and
nothing else (the kernel test is in test_kernel_secrets.py)."""

from __future__ import annotations

import getpass
import os

import pytest
from IPython.core.error import StdinNotImplementedError, UsageError

from openprogram_jupyter.core import _key_sources

KEY = "sk-typed-9d8c7b6a5f4e3d2c"


@pytest.fixture(autouse=True)
def _forget_origins(monkeypatch):
    monkeypatch.setattr(_key_sources, "_ORIGINS", {})
    yield


def test_a_typed_key_is_set_for_the_kernel_and_never_shown(shell, monkeypatch, capsys):
    prompts = []
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": prompts.append(prompt) or KEY)
    shell.run_line_magic("agent", "key openai")
    assert os.environ["OPENAI_API_KEY"] == KEY
    assert prompts == ["OPENAI_API_KEY for openai: "]
    said = capsys.readouterr().out
    assert "OPENAI_API_KEY is set for this kernel" in said and KEY not in said

    shell.run_line_magic("agent", "key")
    listed = capsys.readouterr().out
    assert "OPENAI_API_KEY: typed in with %agent key" in listed and "ANTHROPIC_API_KEY: not set" in listed
    assert KEY not in listed


def test_the_notebooks_runtime_on_the_default_model_picks_the_new_key_up(shell, monkeypatch):
    runtime = shell.user_ns["runtime"]
    assert runtime.model.name == "offline"
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": KEY)
    shell.run_line_magic("agent", "key openai")
    assert runtime.model.name == "openai:gpt-4.1-mini"


@pytest.mark.parametrize(
    "answer, words",
    [
        ("", "no key was typed; nothing changed"),
        (StdinNotImplementedError("no stdin"), "this frontend cannot ask for input"),
    ],
)
def test_no_key_typed_changes_nothing_and_says_why(shell, monkeypatch, answer, words):
    def ask(prompt=""):
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(getpass, "getpass", ask)
    with pytest.raises(UsageError, match=words):
        shell.run_line_magic("agent", "key anthropic")
    assert "ANTHROPIC_API_KEY" not in os.environ


def test_an_unknown_provider_names_the_ones_that_take_a_key(shell, monkeypatch):
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": pytest.fail("asked for a key"))
    with pytest.raises(UsageError, match=r"expected a provider \(openai, .*anthropic.*gemini"):
        shell.run_line_magic("agent", "key openia")


def test_a_key_variable_may_be_named_directly(shell, monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": "AIza-typed-google-key-0123")
    shell.run_line_magic("agent", "key GOOGLE_API_KEY")
    assert os.environ.pop("GOOGLE_API_KEY") == "AIza-typed-google-key-0123"
