"""``%%agent -h`` is output, ``--base-url $var`` is expanded as IPython expands a magic's
line, and a URL that cannot be reached is named in the error (issue 43, item 8)."""

from __future__ import annotations

import asyncio
import socket

import pytest
from IPython.core.error import UsageError

from openprogram_jupyter.jupyter._transformer import CELL_FUNCTION


@pytest.fixture(autouse=True)
def _keyed(monkeypatch, clean_registry):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-43")
    yield


@pytest.fixture
def forget(shell):
    names: list[str] = []
    yield names
    for name in names:
        shell.user_ns.pop(name, None)


def awaited(shell, line: str, body: str) -> None:
    """Run a cell as its rewrite in a kernel does."""
    asyncio.run(shell.user_ns[CELL_FUNCTION](line, body))


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("form", ["blocking", "awaited"])
def test_help_is_printed_output_not_an_error(shell, capsys, form):
    if form == "blocking":
        shell.run_cell_magic("agent", "-h", "anything")
    else:
        awaited(shell, "--help", "anything")
    out = capsys.readouterr().out
    assert out.startswith("usage: %%agent") and "--base-url URL" in out and "--max-cost DOLLARS" in out


@pytest.mark.parametrize("form", ["blocking", "awaited"])
def test_base_url_dollar_variable_is_expanded_and_a_bad_url_is_named(shell, forget, form):
    forget.append("local_server")
    shell.user_ns["local_server"] = "localhost:8080/v1"  # no scheme: it cannot be reached
    with pytest.raises(UsageError) as refused:
        if form == "blocking":
            shell.run_cell_magic("agent", "-m openai:gpt-4.1-mini --base-url $local_server", "Hi.")
        else:
            awaited(shell, "-m openai:gpt-4.1-mini --base-url $local_server", "Hi.")
    assert "'localhost:8080/v1'" in str(refused.value) and "http://" in str(refused.value), refused.value


def test_a_server_that_does_not_answer_is_named_by_the_url_tried(shell, forget):
    forget += ["r", "local_server"]
    shell.user_ns["local_server"] = url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(Exception, match="connection failed"):
        awaited(shell, "-m openai:gpt-4.1-mini --base-url $local_server -o r", "Hi.")
    assert f"{url}/chat/completions" in str(shell.user_ns["r"].error)
