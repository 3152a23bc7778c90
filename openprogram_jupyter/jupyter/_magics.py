"""``%%agent`` and ``%agent``: reading a cell into a plan, and the configuration.

:class:`AgentMagics` turns an ``%%agent`` cell into a :class:`CellPlan` (which runtime,
which prompt, which keyword arguments for ``Runtime.arun``) and hands it to
:mod:`._foreground`, which runs it awaited on the kernel's loop (the cell rewrite) or
blocking (the plain magic), or to :mod:`._background`. Its traits are the
``%config AgentMagics.*`` settings.
"""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from traitlets import Float, Int, Unicode

from ..core.approval_policy import SessionRules
from ._cell_runtime import CellRuntimes
from ._cell_tools import mcp_tools, tools_named
from ._course_settings import CourseSettings
from ._options import FLAGS, USAGE, CellOptions, HelpRequested, fill_prompt, parse_options
from ._sessions import Session, Sessions
from ._warm_up import wait_for_warm_up

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..engine.runtime import Runtime
    from ..engine.spec import RunSpec
    from ..models import Model

__all__ = ["AgentMagics", "CellPlan"]


@dataclass
class CellPlan:
    """Everything needed for one run of an ``%%agent`` cell; built (and checked) before
    anything is shown. ``spec`` is the run, without the live view's hooks yet. A cell
    ``-m A,B`` has one plan per model (:meth:`AgentMagics.plans`), each ``options.model``
    naming its one model."""

    options: CellOptions
    runtime: Runtime
    spec: RunSpec
    session: Session | None = None
    notes: list[str] = field(default_factory=list)


@magics_class
class AgentMagics(Magics, CourseSettings):
    """The ``%%agent`` cell magic and the ``%agent`` line magic.

    Settings (``%config AgentMagics.<name> = value``): ``model`` (default model string),
    ``system`` (default system prompt), ``max_iterations`` (round cap; ``-1`` for none;
    ``None``, the default, leaves it to the cell's Runtime, whose own default is 20),
    ``shown_result_chars`` (how much of a result the view shows before cutting it),
    ``updates_per_second`` (the live view's redraw rate per widget); and the course's rules,
    which a notebook can only tighten (:class:`._course_settings.CourseSettings`).
    """

    model = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Model for %%agent cells without -m, e.g. 'openai:gpt-4.1-mini' or 'offline'.",
    )
    system = Unicode(None, allow_none=True, config=True, help="Default system prompt for %%agent cells.")
    max_iterations = Int(
        None,
        allow_none=True,
        config=True,
        help="Round cap for %%agent cells (-1 for no cap; None: the Runtime's, 20 by default).",
    )
    shown_result_chars = Int(4000, config=True, help="Characters of a tool result shown before it is cut.")
    updates_per_second = Float(10.0, config=True, help="Most redraws per second of each live-view widget.")

    def __init__(self, shell: InteractiveShell, namespace_runtime: Runtime | None = None) -> None:
        super().__init__(shell)
        self.sessions = Sessions()
        self.approval_rules = SessionRules()  # "Always allow" / "Always deny" clicks; %agent policy
        self.runtimes = CellRuntimes(shell, namespace_runtime, lambda: self.model)
        # Where each cell first started each ScriptedModel (rewound to when the cell runs again).
        self._script_starts: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
        self.observe(self._follow_model, names=["model"])

    def _follow_model(self, change: dict[str, Any]) -> None:
        # The notebook's `runtime` follows %config AgentMagics.model, as long as it is ours.
        runtime = self.runtimes.namespace_runtime
        if runtime is not None and self.shell is not None and self.shell.user_ns.get("runtime") is runtime:
            runtime.model = change["new"]

    # -- %%agent ------------------------------------------------------------------------

    @cell_magic("agent")  # type: ignore[arg-type]  # IPython types the named form as taking Never
    def agent_cell(self, line: str, cell: str) -> Any:
        """Run the cell's text as a task for the agent. See ``%%agent -h``.

        This is the blocking form (terminal IPython, ``%autoawait off``): it stops only on
        Kernel ▸ Interrupt. In Jupyter with autoawait on, the cell is rewritten into an
        awaited call instead, so its Stop button works while it runs.
        """
        wait_for_warm_up()
        from ._background import start_background
        from ._foreground import run_blocking

        try:
            plans = self.plans(line, cell)
        except HelpRequested as help:  # -h: the help is the cell's output, not an error
            print(help.text)
            return None
        if plans[0].options.background:
            start_background(self, plans[0])
        else:
            run_blocking(self, plans)
        return None

    def plans(self, line: str, cell: str) -> list[CellPlan]:
        """Read an ``%%agent`` cell into a :class:`CellPlan` per model (one, unless ``-m A,B``),
        or raise ``UsageError``."""
        _refuse_when_the_course_is_off()
        options = parse_options(line)
        template = cell.strip()
        if not template:
            raise UsageError(
                "%%agent: the cell is empty; write the task for the agent below the %%agent line\n\n" + USAGE
            )
        prompt = fill_prompt(template, self.namespace)
        models = [name.strip() for name in (options.model or "").split(",")]
        plans = self._side_by_side(options, models, prompt) if len(models) > 1 else [self._plan_one(options, prompt)]
        for plan in plans:
            self._replay_script_on_rerun(plan.runtime, f"{line}\n{cell}")
        return plans

    def _replay_script_on_rerun(self, runtime: Runtime, cell: str) -> None:
        """A cell run again with the same ``ScriptedModel`` replays the rounds it played the
        first time: the model is rewound to where this cell first started it (cells run in
        order go on through the script, as a session's cells do)."""
        from ..models.scripted import ScriptedModel

        model = runtime.model_spec
        if not isinstance(model, ScriptedModel):
            return
        starts = self._script_starts.setdefault(model, {})
        if cell in starts:
            model.rewind(starts[cell])
        else:
            starts[cell] = model.position

    def _side_by_side(self, options: CellOptions, models: list[str], prompt: str) -> list[CellPlan]:
        """One plan per model of ``-m A,B``; flags that cannot apply to several runs are refused."""
        if not all(models) or len(set(models)) != len(models):
            raise UsageError(f"%%agent: -m {options.model}: name each model once, separated by commas")
        for flag, given in (
            ("-s", options.session),
            ("--background", options.background or None),
            ("--choices", options.choices),
            ("--record", options.record),
        ):
            if given is not None:
                raise UsageError(
                    f"%%agent: {flag} runs one model; with -m {options.model} give one model, or leave it out"
                )
        return [self._plan_one(dataclasses.replace(options, model=name), prompt) for name in models]

    def _plan_one(self, options: CellOptions, prompt: str) -> CellPlan:
        from ..core.errors import SetupError

        runtime, notes = self.runtimes.for_model(options.model, options.base_url)
        if options.record is not None:
            # Saved from the model this runtime resolved; the cell's runtime is left as it was.
            runtime = runtime.replace(model=_recording(runtime, options.record))
            notes.append(f"Recording each model reply to {options.record} (replay it with -m replay:{options.record}).")
        if options.session is not None and options.session not in self.sessions and not options.new:
            _refuse_a_session_only_the_notebook_holds(self.shell, options.session)
        session = self.sessions.get(options.session, new=options.new) if options.session is not None else None
        try:
            spec = runtime.prepare(prompt, **self._run_options(options, session))
        except SetupError as error:
            raise UsageError(f"%%agent: {_in_flag_terms(error)}") from None
        if spec.settings["trace"] and spec.depth == 0:
            from ..observe._tracing import unexported_note

            notes += [note for note in [unexported_note(spec.settings["trace"])] if note is not None]
        return CellPlan(options, runtime, spec, session, notes)

    def plan_of(self, runtime: Runtime, spec: RunSpec, options: CellOptions, *, notes: list[str]) -> CellPlan:
        """A plan for a run built elsewhere (``%agent fork``), shown and stored like a cell's."""
        return CellPlan(options, runtime, spec, notes=list(notes))

    @property
    def namespace(self) -> dict[str, Any]:
        """The notebook's variables (the shell's ``user_ns``): what ``-m``, ``--tools``,
        ``--choices`` and ``{name}`` in the prompt read, and where ``-o`` stores."""
        assert self.shell is not None, "AgentMagics needs a shell"
        namespace: dict[str, Any] = self.shell.user_ns
        return namespace

    def _run_options(self, options: CellOptions, session: Session | None) -> dict[str, Any]:
        """The ``Runtime.prepare`` keywords of a cell: the flags that set one directly, then
        those the cell reads (the notebook's tools, the configured defaults, the session)."""
        run_options: dict[str, Any] = dict(options.run_options)
        if self.max_iterations is not None:
            run_options.setdefault("max_iterations", None if self.max_iterations < 0 else self.max_iterations)
        if self.system is not None:
            run_options.setdefault("system", self.system)
        if options.tools is not None or options.mcp is not None:
            run_options["tools"] = tools_named(self.namespace, options.tools or []) + mcp_tools(
                self.namespace, options.mcp or []
            )
        if session is not None:
            run_options["messages"] = list(session.messages)
        if options.choices is not None:
            if options.choices not in self.namespace:
                raise UsageError(
                    f"%%agent: --choices {options.choices}: no variable {options.choices!r} "
                    "in the notebook (a dict or list of options)"
                )
            run_options["choices"] = self.namespace[options.choices]
        return run_options

    # -- %agent -------------------------------------------------------------------------

    @line_magic("agent")  # type: ignore[arg-type]  # as for cell_magic above
    def agent_line(self, line: str) -> None:
        """``%agent COMMAND ...``: the commands of :data:`._line_commands.COMMANDS`."""
        wait_for_warm_up()
        from ._line_commands import run_line_command

        run_line_command(self, line)


def _refuse_when_the_course_is_off() -> None:
    from ..core._course import installed

    if installed().mode == "off":
        raise UsageError(f"%%agent: {installed().off_text()}")


def _refuse_a_session_only_the_notebook_holds(shell: InteractiveShell | None, name: str) -> None:
    """A session new to this kernel that the saved notebook holds (the kernel restarted):
    ``UsageError`` saying how to restore it, rather than a run that forgot the conversation.

    Not for the cell that started the session: running that cell again is running the
    notebook again from where the session began — Run All after a restart — and it had
    nothing to forget. That cell is the one whose saved run of the session had no history,
    or the first code cell holding a saved run of the session: a notebook run from the top
    more than once before it was saved holds, in that cell, a run that continued the
    session of the pass before."""
    from ._saved_runs import notebook_path, read_saved_runs, running_cell_id

    path = notebook_path(shell)
    if path is None:
        return
    try:
        saved = [run for run in read_saved_runs(path) if run.session == name]
    except ValueError:
        return  # an unreadable notebook must not block a cell; %agent restore reports it
    cell_id = running_cell_id(shell)
    first_cell = min((run.cell for run in saved), default=None)
    started_here = cell_id is not None and any(
        run.cell_id == cell_id and (run.history_length == 0 or run.cell == first_cell) for run in saved
    )
    if saved and not started_here:
        raise UsageError(
            f"%%agent -s {name}: this kernel has no session {name!r}, but the saved notebook ({path.name}) holds "
            f"one from {len(saved)} run(s) — the kernel restarted? Run %agent restore to bring it back, "
            "add --new to start it afresh, or run the notebook from the cell that started it."
        )


def _in_flag_terms(error: Any) -> str:
    """A setup error's message, its run option (``tool_choice``) named as its flag."""
    message = str(error)
    flag = next((f.names[-1] for f in FLAGS if f.run_option is not None and f.run_option == error.option), None)
    if flag is not None and message.startswith(error.option):
        return flag + message[len(error.option) :]
    return message


def _recording(runtime: Runtime, path: str) -> Model:
    """``runtime``'s model (resolved) wrapped to save each reply to the cassette ``path``."""
    from ..models.replay import RecordingModel

    return RecordingModel(runtime.model, path)
