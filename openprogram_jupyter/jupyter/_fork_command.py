"""``%agent fork VAR ROUND [-m MODEL] [-o OUT]``: a Run forked at a round, in a cell.

The rounds before ``ROUND`` are replayed from the Run in ``VAR`` (no model request, no
tool run); from ``ROUND`` on the model — the one that ran it, or ``-m MODEL`` — goes on
live with the tools as they are registered now (so a docstring edited and re-run is the
new one). The fork shows its live view like an ``%%agent`` cell and is stored in ``OUT``
(default ``VAR_fork``) and ``runtime.last_run``. A line magic cannot be awaited, so the
cell blocks: Kernel ▸ Interrupt stops it.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ._options import CellOptions

if TYPE_CHECKING:
    from ._magics import AgentMagics

__all__ = ["USAGE", "fork_command"]

USAGE = "fork VAR ROUND [-m MODEL] [-o OUT]"


def fork_command(magics: AgentMagics, rest: str) -> None:
    from ..errors import SetupError
    from ..forking import fork_spec
    from ..run import Run
    from ..runtime import default_runtime
    from ._foreground import run_blocking

    name, round_number, model, output = _parse(rest)
    if name not in magics.namespace:
        raise UsageError(f"%agent fork: no variable {name!r} in the notebook")
    run = magics.namespace[name]
    if not isinstance(run, Run):
        raise UsageError(f"%agent fork: {name!r} holds a {type(run).__name__}, not a Run (store one with -o)")
    runtime = (magics._runtime_for(model)[0] if model is not None
               else run.runtime or magics.namespace_runtime or default_runtime())
    try:
        spec = fork_spec(run, round_number, runtime)
    except SetupError as error:
        raise UsageError(f"%agent {error}") from None
    replayed = f"rounds 1–{round_number - 1} replayed" if round_number > 2 else (
        "round 1 replayed" if round_number == 2 else "nothing replayed")
    note = f"Fork of {name} ({run.run_id}) at round {round_number}: {replayed} from the record, live from there on."
    plan = magics.plan_of(runtime, spec, CellOptions(output=output or f"{name}_fork"), notes=[note])
    run_blocking(magics, [plan])


def _parse(rest: str) -> tuple[str, int, str | None, str | None]:
    try:
        words = shlex.split(rest)
    except ValueError as error:
        raise UsageError(f"%agent {USAGE}: cannot read the line ({error})") from None
    flags: dict[str, str] = {}
    positional: list[str] = []
    while words:
        word = words.pop(0)
        if word in ("-m", "-o"):
            if not words:
                raise UsageError(f"%agent {USAGE}: {word} needs a value")
            flags[word] = words.pop(0)
        elif word.startswith("-"):
            raise UsageError(f"%agent {USAGE}: unknown option {word!r}")
        else:
            positional.append(word)
    if len(positional) != 2 or not positional[1].isdigit():
        raise UsageError(f"%agent {USAGE}: name the variable holding the Run and the round to fork at (a number)")
    output = flags.get("-o")
    if output is not None and not output.isidentifier():
        raise UsageError(f"%agent fork: -o needs a variable name, got {output!r}")
    return positional[0], int(positional[1]), flags.get("-m"), output
