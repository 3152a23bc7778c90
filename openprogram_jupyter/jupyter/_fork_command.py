"""``%agent fork`` and ``%agent rerun``: a recorded Run played again in a cell.

``%agent fork VAR ROUND [-m MODEL] [-o OUT]``: the rounds before ``ROUND`` are replayed
from the Run in ``VAR`` (no model request, no tool run); from ``ROUND`` on the model — the
one that ran it, or ``-m MODEL`` — goes on live with the tools as they are registered now
(so a docstring edited and re-run is the new one). Stored in ``OUT`` (default ``VAR_fork``).

``%agent rerun VAR [--live] [-m MODEL] [-o OUT]``: the recorded replies played back while
the tools as registered now run again, until a round's results differ from the
recording (``Run.rerun``); there it stops, or with ``--live`` the model — the run's, or
``-m MODEL`` — goes on. Stored in ``OUT`` (default ``VAR_rerun``).

Both show their live view like an ``%%agent`` cell and become ``runtime.last_run``. A
line magic cannot be awaited, so the cell blocks: Kernel ▸ Interrupt stops it.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ._options import CellOptions

if TYPE_CHECKING:
    from ..engine.run import Run
    from ..engine.runtime import Runtime
    from ..engine.spec import RunSpec
    from ._magics import AgentMagics

__all__ = ["FORK_USAGE", "RERUN_USAGE", "fork_command", "rerun_command"]

FORK_USAGE = "fork VAR ROUND [-m MODEL] [-o OUT]"
RERUN_USAGE = "rerun VAR [--live] [-m MODEL] [-o OUT]"


def fork_command(magics: AgentMagics, rest: str) -> None:
    from ..engine.forking import fork_spec

    words = _parse(rest, FORK_USAGE, positional=2)
    if not words.positional[1].isdigit():
        raise UsageError(f"%agent {FORK_USAGE}: name the variable holding the Run and the round to fork at (a number)")
    name, round_number = words.positional[0], int(words.positional[1])
    run, runtime = _run_and_runtime(magics, "fork", name, words.flags.get("-m"))
    spec = _spec_or_usage_error(lambda: fork_spec(run, round_number, runtime))
    replayed = (
        f"rounds 1–{round_number - 1} replayed"
        if round_number > 2
        else ("round 1 replayed" if round_number == 2 else "nothing replayed")
    )
    note = f"Fork of {name} at round {round_number}: {replayed} from the record, live from there on."
    _run_in_cell(magics, runtime, spec, words.flags.get("-o") or f"{name}_fork", note)


def rerun_command(magics: AgentMagics, rest: str) -> None:
    from ..engine.rerun import rerun_spec

    words = _parse(rest, RERUN_USAGE, positional=1, switches=("--live",))
    name, live = words.positional[0], "--live" in words.switches
    run, runtime = _run_and_runtime(magics, "rerun", name, words.flags.get("-m"))
    spec = _spec_or_usage_error(lambda: rerun_spec(run, runtime, live=live))
    then = "then the model goes on" if live else "and stops there"
    note = (
        f"Rerun of {name}: its recorded replies played back while the tools run again, "
        f"until their results differ from the recording, {then}."
    )
    _run_in_cell(magics, runtime, spec, words.flags.get("-o") or f"{name}_rerun", note)


def _run_and_runtime(magics: AgentMagics, command: str, name: str, model: str | None) -> tuple[Run, Runtime]:
    from ..engine.run import Run
    from ..engine.runtime import Runtime, default_runtime

    if name not in magics.namespace:
        raise UsageError(f"%agent {command}: no variable {name!r} in the notebook")
    run = magics.namespace[name]
    if not isinstance(run, Run):
        raise UsageError(f"%agent {command}: {name!r} holds a {type(run).__name__}, not a Run (store one with -o)")
    runtime = (
        magics.runtimes.for_model(model)[0]
        if model is not None
        else (run.runtime if isinstance(run.runtime, Runtime) else None)
        or magics.runtimes.namespace_runtime
        or default_runtime()
    )
    return run, runtime


def _spec_or_usage_error(build: Any) -> RunSpec:
    from ..core.errors import SetupError

    try:
        spec: RunSpec = build()
    except SetupError as error:
        raise UsageError(f"%agent {error}") from None
    return spec


def _run_in_cell(magics: AgentMagics, runtime: Runtime, spec: RunSpec, output: str, note: str) -> None:
    from ._foreground import run_blocking

    run_blocking(magics, [magics.plan_of(runtime, spec, CellOptions(output=output), notes=[note])])


class _Words:
    def __init__(self) -> None:
        self.flags: dict[str, str] = {}
        self.switches: set[str] = set()
        self.positional: list[str] = []


def _parse(rest: str, usage: str, *, positional: int, switches: tuple[str, ...] = ()) -> _Words:
    """The words of ``rest``: ``-m``/``-o`` with their values, the ``switches`` given,
    and exactly ``positional`` other words; a ``UsageError`` quoting ``usage`` otherwise."""
    try:
        words = shlex.split(rest)
    except ValueError as error:
        raise UsageError(f"%agent {usage}: cannot read the line ({error})") from None
    found = _Words()
    while words:
        word = words.pop(0)
        if word in ("-m", "-o"):
            if not words:
                raise UsageError(f"%agent {usage}: {word} needs a value")
            found.flags[word] = words.pop(0)
        elif word in switches:
            found.switches.add(word)
        elif word.startswith("-"):
            raise UsageError(f"%agent {usage}: unknown option {word!r}")
        else:
            found.positional.append(word)
    if len(found.positional) != positional:
        what = "the variable holding the Run" + (" and the round to fork at (a number)" if positional == 2 else "")
        raise UsageError(f"%agent {usage}: name {what}")
    output = found.flags.get("-o")
    if output is not None and not output.isidentifier():
        raise UsageError(f"%agent {usage.split()[0]}: -o needs a variable name, got {output!r}")
    return found
