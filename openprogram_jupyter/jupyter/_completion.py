"""Tab completion for ``%agent`` and ``%%agent``: what the word being typed can be.

IPython asks its ``complete_command`` hook for the line magic and the cell magic's first
line (:func:`complete`). What is offered, read from the same tables the magics use:

- ``%agent ␣``: the commands (``COMMANDS``) and ``-h``; after a command, what its words
  are (``LineCommand.completes``): variables holding a Run, tool names, provider prefixes,
  ``remove`` / ``clear`` after ``policy``;
- ``%%agent -␣``: the flags (``FLAGS``); after ``-s``: the session names; after ``-m``:
  each provider's default model string, ``offline``, and notebook variables holding a
  model or a Runtime; after ``--tools`` (a comma list: after its last comma): the
  registered tools and notebook variables holding a tool or a toolset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._magics import AgentMagics

__all__ = ["complete"]


def complete(magics: AgentMagics, event: Any) -> list[str]:
    """The completions of the word before the cursor in ``event`` (IPython's completion
    event: ``text_until_cursor``, ``symbol``, ``command``), each as the rest of
    ``event.symbol`` — IPython replaces the symbol, which stops at ``:`` and ``,``."""
    before = event.text_until_cursor
    words = before.split()
    typing = "" if before.endswith((" ", "\t")) else words.pop()
    word = typing.rsplit(",", 1)[-1]
    candidates = (_cell_words if event.command == "%%agent" else _line_words)(magics, words[1:], word)
    cut = len(word) - len(event.symbol)
    return sorted({c[cut:] for c in candidates if c.startswith(word)})


def _line_words(magics: AgentMagics, words: list[str], word: str) -> list[str]:
    from ._line_commands import COMMANDS, HELP_WORDS

    if not words:
        return [*COMMANDS, *HELP_WORDS[:2]]
    command = COMMANDS.get(words[0])
    if command is None or len(words) > 1:  # a command's first argument is the one completed
        return []
    return {"run": _runs, "tool": _tools, "provider": _providers, "policy": _policy_words}.get(
        command.completes or "", _none
    )(magics)


def _cell_words(magics: AgentMagics, words: list[str], word: str) -> list[str]:
    from ._options import FLAGS

    if word.startswith("-"):
        return [name for flag in FLAGS for name in flag.names]
    previous = words[-1] if words else ""
    if previous in ("-s", "--session"):
        return [session.name for session in magics.sessions]
    if previous in ("-m", "--model"):
        return _model_strings(magics)
    if previous in ("--tools", "--mcp"):
        return _tools(magics)
    return []


def _none(magics: AgentMagics) -> list[str]:
    return []


def _runs(magics: AgentMagics) -> list[str]:
    from ..engine.run import Run
    from ..engine.runtime import RunHandle

    return [
        name
        for name, value in magics.namespace.items()
        if isinstance(value, (Run, RunHandle)) and not name.startswith("_")
    ]


def _tools(magics: AgentMagics) -> list[str]:
    from ..tools.base import Tool
    from ..tools.menu import toolset_of
    from ..tools.registry import default_registry

    variables = [
        name
        for name, value in magics.namespace.items()
        if not name.startswith("_")
        and (isinstance(value, Tool) or toolset_of(value) is not None)
        and not isinstance(value, type)
    ]
    return [tool.name for tool in default_registry] + variables


def _policy_words(magics: AgentMagics) -> list[str]:
    from ._policy_command import SUBCOMMANDS

    return list(SUBCOMMANDS)


def _providers(magics: AgentMagics) -> list[str]:
    from ..models.providers import PROVIDER_INFOS

    return [info.prefix for info in PROVIDER_INFOS if info.key_variables]


def _model_strings(magics: AgentMagics) -> list[str]:
    from ..engine.runtime import Runtime
    from ..models import Model
    from ..models.providers import PROVIDER_INFOS

    strings = [info.default_model_name for info in PROVIDER_INFOS if info.default_model_name]
    variables = [
        name
        for name, value in magics.namespace.items()
        if isinstance(value, (Model, Runtime)) and not name.startswith("_")
    ]
    return ["offline", *strings, *variables]
