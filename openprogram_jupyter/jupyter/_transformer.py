"""The cell rewrite: an ``%%agent`` cell becomes an awaited call.

IPython has no async cell magics, and a blocking cell cannot receive widget clicks. So an
input transformer (in ``input_transformers_cleanup``) turns::

    %%agent -m offline -o run
    Add {x} and 2.

into::

    await _openprogram_agent_cell('-m offline -o run', 'Add {x} and 2.\\n')

which IPython runs as an async cell on the kernel's event loop. The cell is left alone —
and the plain ``%%agent`` magic runs it blocking — when the shell has no kernel (terminal
IPython), when ``%autoawait`` is off, or when the loop runner is not asyncio's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

__all__ = ["CELL_FUNCTION", "make_transformer", "rewrites"]

CELL_FUNCTION = "_openprogram_agent_cell"
_FIRST_LINE = re.compile(r"^%%agent(?:[ \t]+(?P<options>.*?))?[ \t]*\r?\n?$")


def rewrites(shell: InteractiveShell) -> bool:
    """Whether ``shell`` can run the rewritten (awaited) form of a cell right now."""
    if getattr(shell, "kernel", None) is None or not getattr(shell, "autoawait", False):
        return False
    try:
        from IPython.core.async_helpers import _asyncio_runner
    except ImportError:  # pragma: no cover - every supported IPython has it
        return False
    return getattr(shell, "loop_runner", None) is _asyncio_runner


def make_transformer(shell: InteractiveShell) -> Callable[[list[str]], list[str]]:
    """A cleanup transformer bound to ``shell`` (IPython passes it the cell's lines)."""
    return _AgentCellRewrite(shell)


class _AgentCellRewrite:
    """Rewrites an ``%%agent`` cell into the awaited call when ``shell`` can run it
    (:func:`rewrites`); returns every other cell's lines unchanged."""

    openprogram = True  # how unload_ipython_extension finds it again

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell

    def __call__(self, lines: list[str]) -> list[str]:
        if not lines:
            return lines
        match = _FIRST_LINE.match(lines[0])
        if match is None or not rewrites(self.shell):
            return lines
        options = match.group("options") or ""
        body = "".join(lines[1:])
        return [f"await {CELL_FUNCTION}({options!r}, {body!r})\n"]
