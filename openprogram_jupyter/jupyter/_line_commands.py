"""``%agent COMMAND ...``: the line magic's commands, one table.

Each :class:`LineCommand` names its usage and the function that runs it; the function
gets the :class:`~._magics.AgentMagics` (for the notebook's variables and sessions) and
the text after the command's name, and raises ``UsageError`` for bad input. To add a
command: write its function (in its own module when it is more than a few lines) and add
a row to :data:`COMMANDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..render._details import details_html
from ..render._safe import display_bundle
from ..render._table import html_table

if TYPE_CHECKING:
    from ._magics import AgentMagics

__all__ = ["COMMANDS", "LineCommand", "run_line_command", "variable"]


@dataclass(frozen=True)
class LineCommand:
    """One ``%agent`` command: ``usage`` as shown in errors and help (``"show VAR"``),
    ``help`` (what it does, one sentence), ``run``, and what each of its words completes
    to (``completes``: ``"run"`` a variable holding a Run, ``"tool"``, ``"provider"``,
    ``"policy"`` the words after ``%agent policy``)."""

    usage: str
    help: str
    run: Callable[[AgentMagics, str], None]
    completes: str | None = None

    @property
    def name(self) -> str:
        return self.usage.split(" ", 1)[0]


HELP_WORDS = ("-h", "--help", "help")


def help_text(command: LineCommand | None = None) -> str:
    """The help of one command, or (``None``) of the line magic: every command's usage
    and what it does — both from :data:`COMMANDS`."""
    if command is not None:
        return f"%agent {command.usage}\n\n{command.help}"
    width = max(len(c.usage) for c in COMMANDS.values())
    rows = "\n".join(f"  %agent {c.usage:<{width}}  {c.help}" for c in COMMANDS.values())
    return (
        f"%agent COMMAND ...: the line magic's commands (%agent COMMAND -h for one).\n\n{rows}\n\n"
        "The cell magic is %%agent (two percent signs); %%agent -h lists its options."
    )


def run_line_command(magics: AgentMagics, line: str) -> None:
    """Run ``%agent LINE``; ``-h`` (alone or after a command) prints help; an unknown or
    missing command raises ``UsageError`` listing them."""
    name, _, rest = line.strip().partition(" ")
    if name in HELP_WORDS:
        print(help_text())
        return
    command = COMMANDS.get(name)
    if command is not None and rest.strip() in HELP_WORDS[:2]:
        print(help_text(command))
        return
    if command is None:
        raise UsageError(
            "%agent: expected one of: "
            + ", ".join(c.usage for c in COMMANDS.values())
            + (f" (got {name!r})" if name else "")
            + "\nThe cell magic is %%agent (two percent signs)."
        )
    command.run(magics, rest.strip())


def variable(magics: AgentMagics, name: str, usage: str, what: str = "a Run (e.g. the one given to -o)") -> Any:
    """The notebook variable ``name`` for ``%agent USAGE``; ``UsageError`` when it is
    missing or not given."""
    if not name:
        raise UsageError(f"%agent {usage}: name the variable holding {what}")
    if name not in magics.namespace:
        raise UsageError(f"%agent {usage.split(' ', 1)[0]}: no variable {name!r} in the notebook")
    return magics.namespace[name]


def _display(bundle: dict[str, str]) -> None:
    display_bundle(bundle)


def _code(magics: AgentMagics, rest: str) -> None:
    """``%agent code VAR``: the run's picks as Python, put in a new cell below."""
    run = variable(magics, rest, "code VAR")
    run = getattr(run, "run", run) if hasattr(run, "wait") else run  # a RunHandle: its Run so far
    if not hasattr(run, "to_code"):
        raise UsageError(f"%agent code: {rest!r} holds a {type(run).__name__}, not a Run (e.g. the one given to -o)")
    source = run.to_code()
    assert magics.shell is not None
    magics.shell.set_next_input(source, replace=False)
    _display(
        {
            "text/plain": f"The picks of {rest} are in a new cell below: "
            "run it to call the tools again without a model.",
            "text/html": f"<p>The picks of <code>{escape(rest)}</code> are in a new cell below: run it to "
            "call the tools again without a model.</p>",
        }
    )


def _restore(magics: AgentMagics, rest: str) -> None:
    """``%agent restore [NOTEBOOK]``: rebuild the sessions saved in a notebook."""
    from pathlib import Path

    from ._saved_runs import notebook_path, read_saved_runs, restore_sessions

    path = Path(rest).expanduser() if rest else notebook_path(magics.shell)
    if path is None:
        raise UsageError(
            "%agent restore: this kernel was not told its notebook's path (JupyterLab and "
            "Notebook 7 set JPY_SESSION_NAME, VS Code __vsc_ipynb_file__): name it, "
            "e.g. %agent restore lesson.ipynb"
        )
    try:
        lines = restore_sessions(magics.sessions, read_saved_runs(path))
    except ValueError as error:
        raise UsageError(f"%agent restore: {error}") from None
    if not lines:
        lines = [f"{path} holds no saved %%agent -s session (save the notebook after running its cells)."]
    else:
        lines.insert(0, f"Restored from {path} as last saved:")
    text = "\n".join(lines)
    _display({"text/plain": text, "text/html": "<br>".join(escape(line) for line in lines)})


def _tools(magics: AgentMagics, rest: str) -> None:
    words = rest.split()
    source = " ".join(word for word in words if word != "--lint") or None
    _display(_lint_bundle(source) if "--lint" in words else _tools_bundle(source))


def _schema(magics: AgentMagics, rest: str) -> None:
    _display(_schema_bundle(rest))


def _sessions(magics: AgentMagics, rest: str) -> None:
    text, html = magics.sessions.table()
    _display({"text/plain": text, "text/html": html})


def _show(magics: AgentMagics, rest: str) -> None:
    """``%agent show [VAR]``: a view of the Run (or handle) in VAR, by default of the
    latest run of the notebook's runtime — running or finished (``_show``)."""
    from ._show import show_run

    if rest.strip():
        show_run(variable(magics, rest.strip(), "show [VAR]"))
        return
    last = getattr(magics.runtimes.namespace_runtime, "last_run", None)
    if last is None:
        raise UsageError("%agent show: no run yet in this kernel; name one with %agent show VAR")
    show_run(last)


def _wire(magics: AgentMagics, rest: str) -> None:
    """``%agent wire VAR [ROUND]``: the run's captured requests and replies (``_wire_view``)."""
    from ._wire_view import wire_bundle

    name, _, number = rest.partition(" ")
    run = variable(magics, name, "wire VAR [ROUND]")
    run = getattr(run, "run", run) if hasattr(run, "wait") else run  # a RunHandle: its Run so far
    if not hasattr(run, "wire"):
        raise UsageError(f"%agent wire: {name!r} holds a {type(run).__name__}, not a Run (e.g. the one given to -o)")
    if number.strip() and not number.strip().isdigit():
        raise UsageError(f"%agent wire VAR [ROUND]: ROUND is a round number, got {number.strip()!r}")
    try:
        bundle = wire_bundle(run, int(number) if number.strip() else None, name=name)
    except ValueError as error:
        raise UsageError(f"%agent wire: {error}") from None
    _display(bundle)


def _key(magics: AgentMagics, rest: str) -> None:
    from ._key_command import key_command

    key_command(magics, rest)


def _fork(magics: AgentMagics, rest: str) -> None:
    from ._fork_command import fork_command

    fork_command(magics, rest)


def _rerun(magics: AgentMagics, rest: str) -> None:
    from ._fork_command import rerun_command

    rerun_command(magics, rest)


def _test(magics: AgentMagics, rest: str) -> None:
    """``%agent test VAR PATH [--tools-from MODULE] [--force]``: the run as a pytest file
    (``Run.to_test``; ``--force`` writes over an existing one)."""
    import shlex

    from ..core.errors import SetupError

    usage = "test VAR PATH [--tools-from MODULE] [--force]"
    words = shlex.split(rest)
    overwrite = "--force" in words
    words = [word for word in words if word != "--force"]
    tools_from = None
    if "--tools-from" in words:
        at = words.index("--tools-from")
        if at + 1 >= len(words):
            raise UsageError(f"%agent {usage}: --tools-from needs a module name")
        tools_from = words.pop(at + 1)
        words.pop(at)
    if len(words) != 2:
        raise UsageError(f"%agent {usage}: name the variable holding the Run and the test file to write")
    run = variable(magics, words[0], usage)
    if not hasattr(run, "to_test"):
        raise UsageError(f"%agent test: {words[0]!r} holds a {type(run).__name__}, not a Run")
    try:
        path = run.to_test(words[1], tools_from=tools_from, overwrite=overwrite)
    except SetupError as error:
        raise UsageError(f"%agent {error}") from None
    cassette = path.with_name(path.stem + ".cassette.json")
    text = f"Wrote {path} and {cassette.name} beside it: pytest {path} replays the run offline."
    _display({"text/plain": text, "text/html": f"<p>{escape(text)}</p>"})


def _policy(magics: AgentMagics, rest: str) -> None:
    from ._policy_command import policy_command

    policy_command(magics, rest)


def _course(magics: AgentMagics, rest: str) -> None:
    from ._course_command import course_command

    course_command(rest)


def _serve(magics: AgentMagics, rest: str) -> None:
    from ._serve_command import serve_command

    widgets = getattr(magics.shell, "kernel", None) is not None  # a kernel: clicks can come back
    serve_command(rest, widgets=widgets, session_rules=magics.approval_rules)


def _pin(magics: AgentMagics, rest: str) -> None:
    from ._pin_command import pin_command

    pin_command(magics, rest)


def _schema_bundle(name: str) -> dict[str, str]:
    """``%agent schema NAME``: what each provider is sent for a tool, and what it would refuse."""
    from ..models.provider_schemas import format_provider_schemas

    if not name:
        raise UsageError("%agent schema NAME: name a registered tool")
    try:
        text = format_provider_schemas(name)
    except (ValueError, TypeError) as error:
        raise UsageError(f"%agent schema: {error}") from None
    return {"text/plain": text, "text/html": f"<pre>{escape(text)}</pre>"}


def _tools_bundle(tools_source: str | None) -> dict[str, str]:
    """``%agent tools``: every registered tool, its schema, and what hides it."""
    import json

    from ..tools.registry import default_registry

    reports = default_registry.explain(tools_source=tools_source)
    if not reports:
        text = "No tools registered yet. Define one with @op.function in a cell."
        return {"text/plain": text, "text/html": f"<p>{escape(text)}</p>"}
    lines, rows = [], []
    for report in reports:
        where = "on the menu" if report.hidden_by is None else f"hidden by {report.hidden_by}"
        description = str(report.spec.get("description", "")).strip().split("\n")[0]
        schema = json.dumps(report.spec.get("parameters", {}), indent=2)
        lines.append(f"{report.name}: {where}\n    {description}\n" + "\n".join("    " + s for s in schema.split("\n")))
        rows.append(
            [
                f"<code>{escape(report.name)}</code>",
                escape(where),
                escape(description) + details_html("schema", f"<pre>{escape(schema)}</pre>"),
            ]
        )
    source = f" (tools_source={tools_source!r})" if tools_source else ""
    header = f"{len(reports)} tool(s){source}"
    return {
        "text/plain": header + "\n" + "\n".join(lines),
        "text/html": (f"<div><b>{escape(header)}</b>{html_table(['tool', 'menu', 'description'], rows)}</div>"),
    }


def _lint_bundle(tools_source: str | None) -> dict[str, str]:
    """``%agent tools --lint``: each tool on the menu in every strict mode's form, what had
    to change, what strict mode cannot express, and what a provider would refuse."""
    from ..models._schema_lint import lint_text
    from ..tools.registry import default_registry

    reports = default_registry.explain(tools_source=tools_source)
    names = [r.name for r in reports if r.hidden_by is None or r.layer == "6"]  # a deferred tool is sent too
    tools = [tool for tool in (default_registry.get(name) for name in names) if tool is not None]
    if not tools:
        text = "No tool is on the menu. Define one with @op.function in a cell."
        return {"text/plain": text, "text/html": f"<p>{escape(text)}</p>"}
    text = "\n\n".join(lint_text(tool) for tool in tools)
    return {"text/plain": text, "text/html": f"<pre>{escape(text)}</pre>"}


COMMANDS: dict[str, LineCommand] = {
    command.name: command
    for command in (
        LineCommand(
            "tools [--lint] [SOURCE]",
            "every registered tool, its schema, and what keeps it off the menu (for tools_source=SOURCE); "
            "--lint: each tool's strict form, what had to change and what strict mode cannot express",
            _tools,
        ),
        LineCommand(
            "schema NAME",
            "what each provider is sent for the tool NAME, and what it would refuse",
            _schema,
            completes="tool",
        ),
        LineCommand("sessions", "the conversations continued with -s NAME, and how long each is", _sessions),
        LineCommand(
            "show [VAR]",
            "a run of this kernel drawn again, live if it is still going (no VAR: the latest)",
            _show,
            completes="run",
        ),
        LineCommand("code VAR", "the run's picks as Python, in a new cell below", _code, completes="run"),
        LineCommand(
            "wire VAR [ROUND]",
            "the request bodies and replies of a run made with --wire, one round or all",
            _wire,
            completes="run",
        ),
        LineCommand(
            "pin [-s NAME [N] | CALL]",
            "keep a message whole through compaction: message N of session NAME, or a call's result in the "
            "latest run (its id or ROUND/N); no N: the messages, numbered",
            _pin,
        ),
        LineCommand(
            "restore [NOTEBOOK]", "the runs and sessions saved in this notebook, back after a restart", _restore
        ),
        LineCommand(
            "key [PROVIDER]",
            "set a provider's key for this kernel, typed where it is never shown "
            "(no PROVIDER: where each key was found)",
            _key,
            completes="provider",
        ),
        LineCommand(
            "fork VAR ROUND [-m MODEL] [-o OUT]",
            "the run again from ROUND: the rounds before it replayed, live from there on",
            _fork,
            completes="run",
        ),
        LineCommand(
            "rerun VAR [--live] [-m MODEL] [-o OUT]",
            "the run's replies played back while the tools "
            "run again, to where their results differ (--live: the model goes on from there)",
            _rerun,
            completes="run",
        ),
        LineCommand(
            "test VAR PATH [--tools-from MODULE] [--force]",
            "the run as a pytest file and its cassette: "
            "pytest PATH replays it offline and fails naming a call a tool change altered",
            _test,
            completes="run",
        ),
        LineCommand(
            "policy [remove N | clear]",
            'the approval rules "Always allow" / "Always deny" added in this kernel session, and removing them',
            _policy,
            completes="policy",
        ),
        LineCommand("course", "the course's rules in force, where each was set, and what is left to spend", _course),
        LineCommand(
            "serve [--tools NAMES] [--port N] [--name NAME] | serve stop [NAME]",
            "serve notebook tools to other agents over MCP (no options: the running servers)",
            _serve,
        ),
    )
}
