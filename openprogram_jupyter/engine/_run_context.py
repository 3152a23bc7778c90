"""Every public function that starts a run, and the run context each inherits.

The context itself (:class:`~openprogram_jupyter.core._run_context.RunContext`: approvers,
deny lists, depth cap, grace, tool-call budget) is declared in the core, where a tool's call
frame can carry it; this module is the engine's list of the doors into a run.
:data:`ENTRY_POINTS` lists every public function that starts a run, with the context it
inherits; docs/semantics.md §9 is that table, and ``tests/core/test_run_context.py`` fails
for a function of the package that starts a run and is not on it.
"""

from __future__ import annotations

__all__ = ["ENTRY_POINTS"]


ENTRY_POINTS: dict[str, str] = {
    "Runtime.run / exec / start / arun / aexec": "its Runtime's approver (or the run's own approve=), deny list, "
    "depth cap, cancel grace and settings; inside a tool, the calling run's context first",
    "Runtime.fork / Run.fork": "the recorded run's approvers (a view's asking left out), deny lists, depth cap and "
    "grace, then its Runtime's approver (an approve= given replaces the recorded approvers)",
    "Runtime.rerun / Run.rerun / op.rerun_all": "as a fork; every call the recording denied or skipped is refused "
    "again with its recorded result (asked again of an approve= given), an edited call runs as edited",
    "op.evaluate / op.aevaluate": "the runtime in use (the notebook's, or the calling run's Runtime) with each "
    "model in place of its own: its approver, deny list, depth cap, grace, registry and settings",
    "op.judge": "a Runtime of its own with the judge's model; it runs no tool (tools=[])",
    "op.decision.make / amake": "the runtime given, else the runtime in use; it runs no tool (tools=[])",
    "%%agent (awaited, blocking, --background, -m A,B)": "the notebook's current runtime variable (as rebound) "
    "with -m's model in place of its own (a variable holding a Runtime: that Runtime); the session's Always "
    "rules and the view's buttons over its policy",
    "%agent fork / %agent rerun": "as Run.fork / Run.rerun, on the run's Runtime (-m: the notebook's, with "
    "that model); the view's buttons",
    "@op.agentic_function": "its body's runs are nested runs: the calling run's context first",
    "an MCP server's sampling request (during a call of its tool)": "a nested run of the calling run's Runtime "
    "(or of a copy of it on the model a hint chose among op.mcp's sampling_models), started inside that call: the "
    "calling run's context first (approvers, deny lists, depth cap, grace, limits and Stop); it runs no tool "
    "(tools=[]), and only once those approvers let the action mcp_sampling:<server> go",
    "op.serve / %agent serve (a call from an MCP client)": "the served runtime (the one given, else the "
    "notebook's) with a scripted model making the client's one call: its approver, deny list, depth cap, grace "
    "and settings, the session's Always rules first; a call the policy asks about waits for Approve / Deny in "
    "the serving cell's card (denied after `served.approvals.timeout` seconds, or at once with no card on "
    "screen); a tool's `ctx.ask` is asked in that card too (`op.AskError` after "
    "`served.questions.timeout` seconds, or at once with no card)",
    "run.to_test (the written test)": "the recorded answers: a run whose calls were asked about replays in step "
    "mode with an approver giving each call its recorded answer (denied, skipped, edited, run)",
}
"""Every public entry point that starts a run (and so can run a tool), and the context it
inherits. docs/semantics.md §9 shows this table; ``tests/core/test_run_context.py`` maps
every place in the package that starts a run to one of these."""
