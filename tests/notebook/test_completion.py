"""Tab after ``%agent`` and on the ``%%agent`` line, and ``-h`` for every ``%agent``
command: in this process through IPython's completer, and in real kernels (both
versions) through a ``complete_request``, as a frontend sends it."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.jupyter import _LOADED
from openprogram_jupyter.jupyter._line_commands import COMMANDS

from .kernels import live_kernel

# IPython's own tests still call the completer this way; a frontend's path is the kernel test's.
pytestmark = pytest.mark.filterwarnings("ignore:`Completer.complete` is pending deprecation")


def offered(shell, line: str) -> list[str]:
    return shell.Completer.complete(line_buffer=line, cursor_pos=len(line))[1]


@pytest.fixture
def with_a_session(shell, clean_registry):
    @op.function
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    shell.user_ns["m"] = op.ScriptedModel(["hi", "again"])
    assert shell.run_cell("%%agent -m m -s tab-trip -o r --tools add\nHi.").success
    assert shell.user_ns["r"].tools == ["add"]  # a Run whose .tools are names
    yield shell
    _LOADED[id(shell)].sessions._by_name.pop("tab-trip", None)  # the shell outlives the test: so would the session


def test_line_magic_offers_its_commands_and_each_commands_words(with_a_session):
    shell = with_a_session
    assert offered(shell, "%agent ") == sorted([*COMMANDS, "-h", "--help"])
    assert offered(shell, "%agent sh") == ["show"]
    assert offered(shell, "%agent wire ") == ["r"]  # the variables holding a Run
    assert offered(shell, "%agent schema ") == ["add"]
    assert "openai" in offered(shell, "%agent key ") and "replay" not in offered(shell, "%agent key ")


def test_cell_line_offers_flags_sessions_models_and_tools(with_a_session):
    shell = with_a_session
    assert "tab-trip" in offered(shell, "%%agent -s ")  # (earlier tests' sessions are in this shell too)
    assert offered(shell, "%%agent -s tab-t") == ["tab-trip"]
    assert "--tools" in offered(shell, "%%agent --to") and "--max-cost" not in offered(shell, "%%agent --to")
    models = offered(shell, "%%agent -m ")
    assert {"offline", "openai:gpt-4.1-mini", "m"} <= set(models) and "r" not in models
    assert offered(shell, "%%agent -m openai:gp") == ["gpt-4.1-mini"]  # the rest after ':', which IPython keeps
    assert offered(shell, "%%agent --tools ") == ["add"]  # a Run's .tools are names: no toolset
    assert offered(shell, "%%agent --tools add,a") == ["add"]


def test_every_command_prints_its_generated_help(shell, capsys):
    shell.run_line_magic("agent", "-h")
    listing = capsys.readouterr().out
    for command in COMMANDS.values():
        assert f"%agent {command.usage}" in listing and command.help in listing
    shell.run_line_magic("agent", "wire --help")
    assert capsys.readouterr().out == f"%agent {COMMANDS['wire'].usage}\n\n{COMMANDS['wire'].help}\n"


async def test_a_kernel_completes_session_names_for_a_frontend(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\nm = op.ScriptedModel(['hi', 'again'])\n"
        )
        await kernel.run("%%agent -m m -s trip -o r\nHi.")
        await kernel.run("%%agent -m m -s travel_notes -o r\nAgain.")
        line = "%%agent -s tr"
        reply = await kernel.client.kc.complete(line, len(line), reply=True, timeout=30)
        content = reply["content"]
        assert content["status"] == "ok"
        assert sorted(content["matches"]) == ["travel_notes", "trip"]
        assert line[content["cursor_start"] : content["cursor_end"]] == "tr"
