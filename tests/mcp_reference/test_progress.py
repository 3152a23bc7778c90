"""Progress from the reference server's ``trigger-long-running-operation``: the client asks
for it (a progressToken) and each step reaches the call's card as a step of a total (a bar)."""

from __future__ import annotations

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._call_card import progress_html


def test_each_step_of_a_long_operation_is_progress_of_its_total(runtime, everything):
    call = op.ToolCall(name="ev_trigger-long-running-operation", arguments={"duration": 0.4, "steps": 4})
    runtime.model = op.ScriptedModel([call, "done"])
    run = runtime.run("go")
    assert run.stop_reason == "stop", run.error
    reports = [e.data for e in run.events if e.type == "tool_execution_update" and e.status == "progress"]
    assert [(report["step"], report["of"]) for report in reports] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert 'role="progressbar"' in progress_html(reports[1]) and 'aria-valuenow="50"' in progress_html(reports[1])
