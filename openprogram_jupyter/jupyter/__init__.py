"""The notebook layer: ``%%agent``, its live view, Stop, sessions, and what is saved.

Modules, in the order a cell meets them:

- :mod:`._transformer` — rewrites an ``%%agent`` cell into an awaited call;
- :mod:`._options` — reads the option line and fills ``{name}`` in the prompt;
- :mod:`._magics` — ``AgentMagics``: the cell becomes a plan;
- :mod:`._line_commands` — the ``%agent`` commands (tools, schema, sessions, show, ...), one table;
- :mod:`._completion` — what Tab offers after ``%agent`` and on the ``%%agent`` line;
- :mod:`._foreground` — runs the plan while the cell waits (awaited or blocking), on one
  model or side by side on several (:mod:`._side_by_side`); :mod:`._background` starts it
  and returns; :mod:`._cell` holds what both need and records the runs;
- :mod:`._live` — the run's controls (Stop, steering, approval) and its finish;
- :mod:`._view` — the widgets, redrawn from events by one writer at a bounded rate;
- :mod:`._sessions` — conversations continued with ``-s NAME``;
- :mod:`._show` — ``run.show()`` / ``%agent show``: a live view of a Run again;
- :mod:`._warm_up` — after ``%load_ext``, loads in the background what the first cell needs.

The static transcript that replaces the view lives in :mod:`openprogram_jupyter.render`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..engine.run import Run

__all__ = ["AgentMagics", "load_ipython_extension", "show_run", "unload_ipython_extension"]

_LOADED: dict[int, Any] = {}


def variable_holding(namespace: dict[str, Any], obj: object) -> str | None:
    """The first public name in ``namespace`` (no leading ``_``, not IPython's ``In`` /
    ``Out``) whose value is ``obj`` itself; ``None`` when none is."""
    return next(
        (
            name
            for name, value in list(namespace.items())
            if value is obj and not name.startswith("_") and name not in ("In", "Out")
        ),
        None,
    )


def _variable_in_running_shell(obj: object) -> str | None:
    """The notebook variable holding ``obj`` in the shell running now (IPython's
    ``get_ipython()``): a namer fixed to the shell that loaded the extension would name
    from a namespace no longer in use once another shell took over the process."""
    from IPython import get_ipython

    shell = get_ipython()
    return variable_holding(shell.user_ns, obj) if shell is not None else None


def load_ipython_extension(shell: InteractiveShell) -> None:
    """Register ``%%agent`` / ``%agent``, the cell rewrite, and a ready ``runtime``.

    Loading twice is harmless: the second load replaces nothing the first one set up.
    ``runtime`` is put in the namespace unless a variable of that name exists already and
    is not a Runtime (a user's own variable is never overwritten).
    """
    from ..core._viewer import provide_namer, provide_viewer
    from ..engine.runtime import Runtime, default_runtime
    from ._course_settings import install_course
    from ._magics import AgentMagics
    from ._transformer import CELL_FUNCTION, make_transformer
    from ._warm_up import start_warm_up, wait_for_warm_up

    if id(shell) in _LOADED:
        return
    provide_viewer(show_run)
    provide_namer(_variable_in_running_shell)
    runtime = default_runtime()
    magics = AgentMagics(shell, namespace_runtime=runtime)
    shell.register_magics(magics)
    configurables: list[Any] = shell.configurables  # traitlets types it loosely
    if magics not in configurables:
        configurables.append(magics)
    install_course(magics)  # the course's rules, from the configuration: every run obeys them
    # A config file's AgentMagics.model applies to the notebook's runtime from the start.
    if magics.model:
        runtime.model = magics.model

    async def agent_cell(line: str, cell: str) -> None:
        wait_for_warm_up(take_over=True)
        from ._foreground import run_awaited  # the view's modules load with the first cell
        from ._options import HelpRequested, expand_variables

        try:
            await run_awaited(magics, expand_variables(shell, line), cell)
        except HelpRequested as help:
            print(help.text)

    existing = shell.user_ns.get("runtime")
    if existing is None or isinstance(existing, Runtime):
        shell.push({"runtime": runtime})
    shell.push({CELL_FUNCTION: agent_cell}, interactive=False)
    shell.input_transformers_cleanup.append(make_transformer(shell))
    for command in ("%agent", "%%agent"):
        shell.set_hook("complete_command", _completer, str_key=command)
    _LOADED[id(shell)] = magics
    start_warm_up(shell, magics, runtime)


def unload_ipython_extension(shell: InteractiveShell) -> None:
    """Remove the cell rewrite (``%unload_ext``); the magics stay registered, as IPython does."""
    shell.input_transformers_cleanup[:] = [
        t for t in shell.input_transformers_cleanup if not getattr(t, "openprogram", False)
    ]
    _LOADED.pop(id(shell), None)


def _completer(shell: InteractiveShell, event: Any) -> list[str]:
    """IPython's completion hook for ``%agent`` / ``%%agent`` (see :mod:`._completion`);
    nothing once the extension is unloaded."""
    from ._completion import complete

    magics = _LOADED.get(id(shell))
    return complete(magics, event) if magics is not None else []


def show_run(run: Run) -> None:
    """Display a live view of ``run`` (a ``Run`` or a ``RunHandle``); see :mod:`._show`."""
    from ._show import show_run as show  # the view's modules load with the first use

    show(run)


def __getattr__(name: str) -> Any:
    if name == "AgentMagics":
        from ._magics import AgentMagics

        return AgentMagics
    raise AttributeError(name)
