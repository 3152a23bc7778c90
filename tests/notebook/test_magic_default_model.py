"""Which model a ``%%agent`` cell without ``-m`` runs: the first provider whose key
variable is set (in registry order), else the offline model with a note saying how to
choose one. The key's provider is reached for real — here its loopback fake server."""

from __future__ import annotations

import pytest
from fakeserver import FakeServer, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models.providers import DEFAULT_MODELS, SECRET_ENV_VARS

KEY = "sk-test-not-a-real-key-0000"


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield fake


@pytest.fixture
def no_keys(monkeypatch, shell):
    """No key variable, no endpoint override; the notebook's ``runtime`` back on the default
    chain (and restored afterwards)."""
    for name in (*SECRET_ENV_VARS, "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENPROGRAM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    runtime = shell.user_ns["runtime"]
    spec, last_run = runtime.model_spec, runtime.last_run
    runtime.model = None
    yield monkeypatch
    runtime.model, runtime.last_run = spec, last_run


def test_a_cell_without_a_model_runs_on_the_provider_whose_key_is_set(shell, no_keys, server, capsys):
    no_keys.setenv("ANTHROPIC_API_KEY", KEY)
    no_keys.setenv("ANTHROPIC_BASE_URL", server.url)
    server.script(Turn(text="Hello from the key's provider."))
    result = shell.run_cell("%%agent -o r --toolset none\nHi.")
    assert result.error_in_exec is None, result.error_in_exec
    run = shell.user_ns["r"]
    from openprogram_jupyter.models.anthropic import INFO

    assert run.model == dict(DEFAULT_MODELS)["ANTHROPIC_API_KEY"] == INFO.default_model_name
    assert run.text == "Hello from the key's provider."
    assert [r.path for r in server.requests] == ["/v1/messages"]
    assert "offline model" not in capsys.readouterr().out.lower()


def test_the_first_provider_in_registry_order_wins_when_several_keys_are_set(shell, no_keys, server):
    no_keys.setenv("OPENAI_API_KEY", KEY)
    no_keys.setenv("OPENAI_BASE_URL", server.openai_base_url)
    no_keys.setenv("ANTHROPIC_API_KEY", KEY)
    server.script(Turn(text="Hi from OpenAI."))
    result = shell.run_cell("%%agent -o r --toolset none\nHi.")
    assert result.error_in_exec is None, result.error_in_exec
    assert shell.user_ns["r"].model == "openai:gpt-4.1-mini" == DEFAULT_MODELS[0][1]
    assert server.requests[0].body["model"] == "gpt-4.1-mini"


def test_without_a_key_the_cell_runs_offline_and_says_how_to_choose_a_model(shell, no_keys, capsys):
    no_keys.setattr(shell.magics_manager.registry["AgentMagics"].runtimes, "offline_noted", False)  # a new notebook
    for _ in range(2):
        result = shell.run_cell("%%agent -o r --toolset none\nHi.")
        assert result.error_in_exec is None, result.error_in_exec
        assert shell.user_ns["r"].model == "offline"
    first, second = capsys.readouterr().out.split("— finished")[:2]
    assert "Set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY" in first, "the first offline cell says it in full"
    assert "Offline model (no provider key set)." in second and "Set OPENAI_API_KEY" not in second


def test_a_key_set_after_an_offline_cell_is_used_by_the_next_cell(shell, no_keys, server):
    shell.run_cell("%%agent -o r --toolset none\nHi.")
    assert shell.user_ns["r"].model == "offline"
    no_keys.setenv("OPENAI_API_KEY", KEY)
    no_keys.setenv("OPENAI_BASE_URL", server.openai_base_url)
    server.script(Turn(text="Now on OpenAI."))
    result = shell.run_cell("%%agent -o r --toolset none\nHi again.")
    assert result.error_in_exec is None, result.error_in_exec
    assert (shell.user_ns["r"].model, shell.user_ns["r"].text) == ("openai:gpt-4.1-mini", "Now on OpenAI.")


def test_a_local_server_named_by_openai_base_url_needs_no_key(shell, no_keys, server):
    """%env OPENAI_BASE_URL=… then -m openai:NAME failed with 'no API key' (the placeholder
    key was only sent with base_url=)."""
    no_keys.setenv("OPENAI_BASE_URL", server.openai_base_url)
    server.expected_key = "local"
    server.script(Turn(text="Hello from a local model."))
    result = shell.run_cell("%%agent -m openai:llama3.1 -o r --toolset none\nHi.")
    assert result.error_in_exec is None, result.error_in_exec
    assert shell.user_ns["r"].text == "Hello from a local model.", shell.user_ns["r"].error
    assert server.requests[0].body["model"] == "llama3.1"
    assert server.requests[0].headers.get("authorization") == "Bearer local"


def test_base_url_in_a_cell_points_the_model_string_at_a_local_server(shell, no_keys, server):
    server.expected_key = "local"
    server.script(Turn(text="Hello from the flag."))
    result = shell.run_cell(f"%%agent -m openai:llama3.1 --base-url {server.openai_base_url} -o r --toolset none\nHi.")
    assert result.error_in_exec is None, result.error_in_exec
    assert shell.user_ns["r"].text == "Hello from the flag."
    assert server.requests[0].body["model"] == "llama3.1"
    assert server.requests[0].headers.get("authorization") == "Bearer local"


def test_base_url_with_a_model_object_is_one_usage_line(shell, no_keys):
    shell.user_ns["m"] = op.ScriptedModel(["hi"])
    result = shell.run_cell("%%agent -m m --base-url http://127.0.0.1:9/v1\nHi.")
    assert str(result.error_in_exec) == (
        "%%agent: --base-url applies to a model string; -m names a ScriptedModel object, built with its own endpoint"
    )
