"""docs/semantics.md §9: what governs a run's safety — its approver or policy, the session's
rules, denied tools, depth, the shared call budget, the cancel grace — is one context every
run derives from: nested runs, reruns, forks, evaluations, ``%%agent`` cells of any model.
A deny policy holds at every entry point that can run a tool."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.engine.runtime import default_runtime

from .conftest import call

DROPPED: list[str] = []
DROP: object = None  # the drop_table tool of the running test
DENY = op.policy(deny=["drop_*"])


@pytest.fixture(autouse=True)
def drop_table():
    """``drop_table``, registered; it records every table it really dropped."""
    global DROP
    DROPPED.clear()

    @op.function
    def drop_table(table: str) -> str:
        """Drop a table."""
        DROPPED.append(table)
        return f"dropped {table}"

    DROP = drop_table
    yield drop_table
    DROPPED.clear()


def script() -> op.ScriptedModel:
    return op.ScriptedModel([call("drop_table", table="users"), "done"])


def drops(run: op.Run) -> list[str]:
    """The status of every ``drop_*`` call of ``run`` and of the runs it started."""
    return [
        event.status
        for event in run.events
        if event.type == "tool_execution_end" and event.tool_name.startswith("drop_")
    ]


@pytest.fixture
def governed_default():
    """The process-wide (the notebook's) Runtime with the deny policy, restored after."""
    runtime = default_runtime()
    saved = runtime.approve
    runtime.approve = DENY
    yield runtime
    runtime.approve = saved


@pytest.fixture
def notebook(monkeypatch):
    """IPython's shell in this process with the extension loaded (no kernel, no key set);
    the notebook's ``runtime`` and its approver are restored after."""
    from IPython.core.interactiveshell import InteractiveShell

    for key in ("OPENPROGRAM_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "openprogram_jupyter")
    runtime = shell.user_ns["runtime"]
    saved = runtime.approve
    yield shell
    runtime.approve = saved
    shell.user_ns["runtime"] = runtime
    for name in ("m", "n", "r", "h"):
        shell.user_ns.pop(name, None)


# -- each entry point: the run it makes, under the deny policy --------------------------------


def _exec(request):
    runtime = op.Runtime(model=script(), approve=DENY)
    runtime.exec("go", tools=[DROP])
    return runtime.last_run


def _run(request):
    return op.Runtime(model=script(), approve=DENY).run("go", tools=[DROP])


def _start(request):
    return op.Runtime(model=script()).start("go", tools=[DROP], approve=DENY).wait()


def _arun(request):
    return asyncio.run(op.Runtime(model=script()).arun("go", tools=[DROP], approve=DENY))


def _aexec(request):
    runtime = op.Runtime(model=script())
    asyncio.run(runtime.aexec("go", tools=[DROP], approve=DENY))
    return runtime.last_run


def _cleanup_tool(inner: op.Runtime | None = None):
    @op.agentic_function
    def cleanup(runtime=None) -> str:
        """Clean the database up."""
        return (inner or runtime).exec("clean up", tools=[DROP])

    return cleanup


def _nested_run_level_approve(request):
    model = op.ScriptedModel([call("cleanup"), call("drop_table", table="users"), "cleaned", "done"])
    return op.Runtime(model=model).run("go", tools=[_cleanup_tool()], approve=DENY)


def _nested_on_another_runtime(request):
    inner = op.Runtime(model=script())
    model = op.ScriptedModel([call("cleanup"), "done"])
    return op.Runtime(model=model, approve=DENY).run("go", tools=[_cleanup_tool(inner)])


def _recorded_under_policy() -> op.Run:
    run = op.Runtime(model=script()).run("go", tools=[DROP], approve=DENY)
    assert drops(run) == ["denied"] and not DROPPED
    return run


def _rerun(request):
    return _recorded_under_policy().rerun()


def _rerun_all(request):
    return op.rerun_all([_recorded_under_policy()]).rows[0].rerun


def _fork(request):
    return _recorded_under_policy().fork(1, model=script())


def _recorded_step_run() -> tuple[op.Run, list[bool]]:
    """A step run whose every pick the user denied; the same approver would allow them now."""
    allow_now = [False]
    run = op.Runtime(model=script()).run("go", tools=[DROP], step=True, approve=lambda request: allow_now[0])
    assert drops(run) == ["denied"] and not DROPPED
    allow_now[0] = True
    return run, allow_now


def _rerun_of_denied_step_run(request):
    run, _ = _recorded_step_run()
    return run.rerun()


def _evaluate(request):
    request.getfixturevalue("governed_default")
    evaluation = op.evaluate(["go"], models=[script()], tools=[DROP], progress=False)
    return evaluation.rows[0].run


def _cell(request, line: str, *, rebind: bool = False):
    shell = request.getfixturevalue("notebook")
    shell.user_ns["m"] = script()
    if rebind:
        shell.user_ns["runtime"] = op.Runtime(model=shell.user_ns["m"], approve=DENY)
    else:
        shell.user_ns["runtime"].approve = DENY
    assert shell.run_cell(f"%%agent {line} --tools drop_table\nDrop the users table.").success
    return shell.user_ns["r"]


def _cell_model_variable(request):
    return _cell(request, "-m m -o r")


def _cell_rebound_runtime(request):
    return _cell(request, "-o r", rebind=True)


def _cell_side_by_side(request):
    shell = request.getfixturevalue("notebook")
    shell.user_ns["n"] = script()
    return _cell(request, "-m m,n -o r")["n"]


def _cell_background(request):
    shell = request.getfixturevalue("notebook")
    shell.user_ns["m"] = script()
    shell.user_ns["runtime"].approve = DENY
    assert shell.run_cell("%%agent -m m --background -o h --tools drop_table\nDrop the users table.").success
    return shell.user_ns["h"].wait(timeout=10)


ENTRY_POINTS = {
    "exec": _exec,
    "run": _run,
    "start": _start,
    "arun": _arun,
    "aexec": _aexec,
    "nested run, run-level approve": _nested_run_level_approve,
    "nested run on another Runtime": _nested_on_another_runtime,
    "rerun": _rerun,
    "rerun_all": _rerun_all,
    "fork": _fork,
    "rerun of a step run whose picks were denied": _rerun_of_denied_step_run,
    "evaluate": _evaluate,
    "%%agent -m VAR": _cell_model_variable,
    "%%agent, runtime rebound": _cell_rebound_runtime,
    "%%agent -m A,B": _cell_side_by_side,
    "%%agent --background": _cell_background,
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_a_deny_policy_holds_at_every_entry_point(entry, request):
    run = ENTRY_POINTS[entry](request)
    assert not DROPPED, f"{entry}: drop_table ran"
    assert drops(run) == ["denied"], f"{entry}: drop_table was not asked about and denied"


# -- the rest of the context ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "-m m",
        "-m offline",
        "-m openai:gpt-4.1-mini",
        "-m m,n",
        "-m openai:gpt-4.1-mini --base-url http://127.0.0.1:9/v1",
        "",
    ],
)
def test_every_cell_runtime_is_the_notebooks_with_its_model_replaced(notebook, monkeypatch, line):
    from openprogram_jupyter.jupyter import _LOADED
    from openprogram_jupyter.tools.registry import Registry

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    notebook.user_ns["m"], notebook.user_ns["n"] = script(), script()
    registry = Registry()
    notebook.user_ns["runtime"] = base = op.Runtime(
        model=script(), approve=DENY, tools_deny=["secret_*"], max_depth=2, cancel_grace=0.25, registry=registry
    )
    for plan in _LOADED[id(notebook)].plans(line, "hi"):
        runtime = plan.runtime
        assert runtime.approve is DENY and runtime.tools_deny == ["secret_*"], line
        assert (runtime.max_depth, runtime.cancel_grace, runtime.registry) == (2, 0.25, registry), line
        assert (runtime is base) == (line == ""), line


def test_a_nested_run_cannot_go_deeper_or_use_more_than_its_outer_run_allows():
    inner = op.Runtime(model=op.ScriptedModel([call("drop_view"), "inner"]), max_depth=8)
    dropped = []

    @op.function
    def drop_view() -> str:
        """Drop a view."""
        dropped.append("view")
        return "dropped"

    @op.agentic_function
    def deeper(runtime=None) -> str:
        """Go one level deeper."""
        return inner.exec("deeper", tools=[drop_view])

    outer = op.Runtime(model=op.ScriptedModel([call("deeper"), "done"]), max_depth=0, tools_deny=["drop_view"])
    run = outer.run("go", tools=[deeper])
    [result] = [m for m in run.messages if isinstance(m, op.ToolResultMessage)]
    assert "capped at depth 0" in result.text  # the outer Runtime's cap, not the inner's 8

    outer = op.Runtime(model=op.ScriptedModel([call("deeper"), "done"]), tools_deny=["drop_view"])
    run = outer.run("go", tools=[deeper])
    assert not dropped  # the outer Runtime's deny list holds in the run its tool started
    [nested_call] = [e for e in run.events if e.type == "tool_execution_end" and e.depth == 1]
    assert nested_call.status == "error" and "unknown tool 'drop_view'" in nested_call.result.text


def test_a_rerun_given_an_approver_asks_it_again_about_each_recorded_refusal():
    run, _ = _recorded_step_run()
    asked = []
    again = run.rerun(approve=lambda request: asked.append(request.tool_name) or True)
    assert asked == ["drop_table"] and DROPPED == ["users"]
    assert drops(again) == ["done"]


def test_a_rerun_runs_a_recorded_edit_with_the_edited_arguments():
    run = op.Runtime(model=script()).run(
        "go", tools=[DROP], step=True, approve=lambda request: op.edit(table="scratch")
    )
    assert DROPPED == ["scratch"]
    DROPPED.clear()
    again = run.rerun()
    assert DROPPED == ["scratch"] and again.divergence is None


def test_a_recorded_skip_is_a_skip_again_with_its_reason():
    run = op.Runtime(model=script()).run("go", tools=[DROP], step=True, approve=lambda request: op.skip("not today"))
    again = run.rerun()
    assert not DROPPED and drops(again) == ["skipped"] and again.divergence is None
    assert "not today" in again.tool_results[0].text


def test_a_fork_keeps_the_runs_rules_but_not_a_finished_views_buttons():
    # A cell's approver is its policy asking with the view's buttons; the view is gone when
    # the run is forked in Python, so the fork keeps the rules and has no one to ask.
    asked = []

    def ask_in_view(request):
        asked.append(request.tool_name)
        return False

    run = op.Runtime(model=script()).run(
        "go", tools=[DROP], approve=op.policy(ask=["drop_*"]).in_session(None, ask_in_view)
    )
    assert asked == ["drop_table"] and not DROPPED
    fork = run.fork(1, model=script())
    assert asked == ["drop_table"] and not DROPPED
    assert drops(fork) == ["denied"] and "no one to ask" in fork.tool_results[0].text


# -- every place that starts a run is on the documented list ------------------------------------

_STARTS = frozenset({"run", "arun", "start", "exec", "aexec", "_execute", "rerun", "fork"})
_RUN, _FORK, _RERUN = (
    "Runtime.run / exec / start / arun / aexec",
    "Runtime.fork / Run.fork",
    "Runtime.rerun / Run.rerun / op.rerun_all",
)
_EVALUATE, _CELL = "op.evaluate / op.aevaluate", "%%agent (awaited, blocking, --background, -m A,B)"
NOT_A_RUN = None  # a thread, a regex match, an event loop, an MCP session, a Runtime built but not run

# Every call in the package that starts a run (engine.execute, Runtime(...), and .run / .arun /
# .start / .exec / .aexec / ._execute / .rerun / .fork on anything), by "module:function | call",
# and the entry point of _run_context.ENTRY_POINTS (docs/semantics.md §9) it belongs to.
SITES: dict[str, str | None] = {
    "lab.decision:make | _pick_runtime(runtime).exec": "op.decision.make / amake",
    "lab.decision:amake | _pick_runtime(runtime).aexec": "op.decision.make / amake",
    "lab.evaluation.__init__:_run_plan | worker.start": NOT_A_RUN,
    "lab.evaluation._jobs:_runtime | Runtime": _EVALUATE,
    "lab.evaluation._jobs:arun_job | _runtime(job).arun": _EVALUATE,
    "lab.evaluation._judge:Judge.__call__ | self._runtime_for(key).run": "op.judge",
    "lab.evaluation._judge:Judge.agrade | runtime.arun": "op.judge",
    "lab.evaluation._grading:_run_to_the_end | asyncio.run": NOT_A_RUN,
    "lab.evaluation._grading:_run_to_the_end | worker.start": NOT_A_RUN,
    "lab.evaluation._grading:_run_to_the_end.target | context.run": NOT_A_RUN,
    "core._threads:start_daemon_thread | threading.Thread(target=target, name=name, daemon=True).start": NOT_A_RUN,
    "lab.evaluation._judge:judge | Runtime": "op.judge",
    "jupyter._background:start_background | plan.runtime.start": _CELL,
    "jupyter._background:start_background | threading.Thread(target=context.run, args=(thread_ticker,), "
    "name='openprogram-view', daemon=True).start": NOT_A_RUN,
    "jupyter._foreground:run_awaited | plan.runtime.arun": _CELL,
    "jupyter._foreground:run_blocking | plan.runtime.start": _CELL,
    "jupyter._line_commands:run_line_command | command.run": NOT_A_RUN,
    "jupyter._show:_follow | threading.Thread(target=lambda: asyncio.run(ticker()), daemon=True, "
    "name='openprogram-view').start": NOT_A_RUN,
    "jupyter._show:_follow | asyncio.run": NOT_A_RUN,
    "jupyter._warm_up:start_warm_up | thread.start": NOT_A_RUN,
    "jupyter._serve:ServedTools.__init__ | self._watcher.start": NOT_A_RUN,
    "jupyter._serve:ServedTools._call | self.runtime.replace(model=model, approve=approve).arun": "op.serve / "
    "%agent serve (a call "
    "from an MCP client)",
    "tools._mcp_serving:ServedEndpoint.__init__ | self._thread.start": NOT_A_RUN,
    "models._json_depth:nesting_past | match.start": NOT_A_RUN,
    "models.bedrock:BedrockModel._attempt | pump.start": NOT_A_RUN,
    "models._bedrock_stream:StreamPump.start | threading.Thread(target=self._run, name='bedrock-converse-stream', "
    "daemon=True).start": NOT_A_RUN,
    "render._markdown_inert:_inert_prose | match.start": NOT_A_RUN,
    "render._markdown_inert:_inert_prose | closing.start": NOT_A_RUN,
    "render._markdown_inert:_dollars_in_prose | match.start": NOT_A_RUN,
    "engine.rerun:rerun_all | base.rerun": _RERUN,
    "engine.run:Run.fork | base.fork": _FORK,
    "engine.run:Run.rerun | base.rerun": _RERUN,
    "engine.runtime:Runtime.replace | Runtime": NOT_A_RUN,
    "engine.runtime:Runtime.arun | self._execute": _RUN,
    "engine.runtime:Runtime._execute | execute": _RUN,
    "engine.runtime:Runtime.aexec | self.arun": _RUN,
    "engine.runtime:Runtime.run | self.start": _RUN,
    "engine.runtime:Runtime.exec | self.run": _RUN,
    "engine.runtime:Runtime.fork | runtime.run": _FORK,
    "engine.runtime:Runtime.rerun | self.run": _RERUN,
    "engine.runtime:RunHandle.launch.main | execute": _RUN,
    "engine.runtime:RunHandle.launch.on_loop | context.run": NOT_A_RUN,
    "engine.runtime:default_runtime | Runtime": NOT_A_RUN,
    "tools._mcp_connection:McpConnection.__init__ | self._thread.start": NOT_A_RUN,
    "tools._mcp_connection:McpConnection.list_tools | self.run": NOT_A_RUN,
    "tools._mcp_connection:McpConnection.close | threading.Thread(target=self._finish, "
    "name='openprogram-mcp-close', daemon=True).start": NOT_A_RUN,
    "tools.base:ExternalTool.call | self._execute": NOT_A_RUN,
    "tools.mcp_source:McpTool._call | in_call.copy().run": NOT_A_RUN,  # runs sampled (below) in the call's context
    "tools.mcp_source:McpTool._call.log | in_call.copy().run": NOT_A_RUN,
    "tools._mcp_sampling:sampled.answer | runtime.exec": "an MCP server's sampling request (during a call of its tool)",
    "tools.base:run_in_daemon_thread.job | context.run": NOT_A_RUN,
    "tools.base:_DaemonWorkers.submit | threading.Thread(target=self._work, args=(slot, job), "
    "name='openprogram-tool', daemon=True).start": NOT_A_RUN,
}


def _sites() -> set[str]:
    """Every call in the package that may start a run, as ``"module:function | call"``."""
    import ast
    from pathlib import Path

    root = Path(op.__file__).parent
    found: set[str] = set()

    def walk(node: ast.AST, module: str, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = (
                [*scope, child.name]
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                else scope
            )
            if isinstance(child, ast.Call):
                called = child.func
                if (isinstance(called, ast.Attribute) and called.attr in _STARTS) or (
                    isinstance(called, ast.Name) and called.id in ("Runtime", "execute")
                ):
                    found.add(f"{module}:{'.'.join(scope)} | {ast.unparse(called)}")
            walk(child, module, inner)

    for path in sorted(root.rglob("*.py")):
        walk(ast.parse(path.read_text()), ".".join(path.relative_to(root).with_suffix("").parts), [])
    return found


def test_every_place_that_starts_a_run_is_an_entry_point_on_the_documented_list():
    from pathlib import Path

    from openprogram_jupyter.engine._run_context import ENTRY_POINTS

    new = sorted(_sites() - set(SITES))
    assert not new, (
        "these start a run (or build a Runtime) and are on no list: map each in SITES to its "
        "entry point in _run_context.ENTRY_POINTS (docs/semantics.md §9), adding one if it is new, "
        "and make it derive its context from the run or Runtime it serves:\n" + "\n".join(new)
    )
    assert {entry for entry in SITES.values() if entry is not None} <= set(ENTRY_POINTS)
    semantics = (Path(op.__file__).parent.parent / "docs" / "semantics.md").read_text()
    section = semantics.split("\n## 9. ")[1].split("\n## ")[0]
    table = [line for line in section.splitlines() if line.startswith("| ")]
    assert [f"| {name} | {text} |" for name, text in ENTRY_POINTS.items()] == table[1:], (
        "docs/semantics.md §9's table is not _run_context.ENTRY_POINTS"
    )


def test_a_rerun_marks_each_answer_it_took_from_the_recording():
    run = op.Runtime(model=script()).run("go", tools=[DROP], step=True, approve=lambda request: op.skip("not today"))
    again = run.rerun()
    details = again.tool_results[0].details
    assert details["approval_recorded"] is True and details["approval"] == "skipped"
    assert again.tool_results[0].text == "skipped by the user: not today. The call did not run."


def test_a_rerun_s_approver_judges_the_recorded_edit_not_the_model_s_arguments():
    run = op.Runtime(model=script()).run(
        "go", tools=[DROP], step=True, approve=lambda request: op.edit(table="scratch")
    )
    DROPPED.clear()
    again = run.rerun(approve=op.policy(deny=["drop_table(table=users)"], allow=["drop_table"]))
    assert DROPPED == ["scratch"] and drops(again) == ["done"]


def test_a_recorded_edit_that_no_longer_fits_the_tool_is_denied_saying_why():
    run = op.Runtime(model=script()).run(
        "go", tools=[DROP], step=True, approve=lambda request: op.edit(table="scratch")
    )
    DROPPED.clear()

    @op.function(register_globally=False)
    def drop_table(table: Literal["users", "orders"]) -> str:
        """Drop one of two tables: the model's "users" fits, the recorded edit "scratch" no longer does."""
        DROPPED.append(table)
        return "dropped"

    again = run.rerun(tools=[drop_table])
    result = again.tool_results[0]
    assert not DROPPED and result.status == "denied"
    assert result.text.startswith("denied: the recorded edited arguments for drop_table no longer fit the tool (")
    assert result.text.endswith("); the call did not run")
    assert (result.details["approval"], result.details["approval_recorded"]) == ("denied", True)
