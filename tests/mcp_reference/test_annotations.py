"""The reference server's tool annotations in words: ``echo`` is read-only (and so never
asks), ``toggle-simulated-logging`` says nothing true but open world false: no words."""

from __future__ import annotations

import openprogram_jupyter as op


def test_the_reference_server_s_hints_are_on_its_tools_and_in_the_transcript(runtime, everything):
    assert everything.tool("echo").hints == ("read-only",)
    assert everything.tool("toggle-simulated-logging").hints == ()
    assert not everything.tool("echo").options.requires_approval
    runtime.model = op.ScriptedModel([op.ToolCall(name="ev_echo", arguments={"message": "hi"}), "done"])
    run = runtime.run("echo")
    assert '▸ ev_echo(message="hi") → done · read-only' in repr(run)
