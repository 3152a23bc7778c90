"""Property: whatever the model picks and whenever the run is stopped, every ToolCall gets
exactly one result, right after the reply that made it — the transcript stays valid."""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from transcript_checks import assert_every_call_has_one_result

import openprogram_jupyter as op
from openprogram_jupyter.tools.registry import Registry

registry = Registry()


@op.function(registry=registry)
def ok(x: int) -> int:
    """Returns x."""
    return x


@op.function(registry=registry)
def boom(x: int) -> int:
    """Raises."""
    raise ValueError(f"bad {x}")


picks = st.one_of(
    st.builds(lambda x: op.ToolCall(name="ok", arguments={"x": x}), st.integers(0, 3)),
    st.builds(lambda x: op.ToolCall(name="boom", arguments={"x": x}), st.integers(0, 3)),
    st.just(op.ToolCall(name="ok", arguments={"x": "not an int"})),
    st.just(op.ToolCall(name="missing_tool", arguments={})),
)
rounds = st.lists(st.lists(picks, min_size=1, max_size=3), min_size=0, max_size=5)


@settings(max_examples=40, deadline=None)
@given(script=rounds, stop_after_events=st.one_of(st.none(), st.integers(1, 60)))
def test_every_call_gets_exactly_one_result_even_when_stopped(script, stop_after_events):
    abort = threading.Event()
    seen = []

    def on_event(event):
        seen.append(event)
        if stop_after_events is not None and len(seen) >= stop_after_events:
            abort.set()

    model = op.ScriptedModel([*script, "done"])
    run = op.Runtime(model=model, registry=registry).run("go", abort=abort, on_event=on_event)
    assert run.stop_reason in ("stop", "aborted")
    assert_every_call_has_one_result(run)
    assert run.events[-1].type == "agent_end"
