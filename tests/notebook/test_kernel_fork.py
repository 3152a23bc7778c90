"""Real kernel: a run forked at round 3 makes no model request and runs no tool before
round 3 (counted), and its saved transcript says which rounds were replayed."""

from __future__ import annotations

import pytest

from .kernels import error_of, live_kernel, plain_output

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op
ran = []

@op.function
def add(a: float, b: float) -> float:
    "Add two numbers."
    ran.append((a, b))
    return a + b

m = op.ScriptedModel([op.ToolCall(name="add", arguments={"a": 1, "b": 2}),
                      op.ToolCall(name="add", arguments={"a": 3, "b": 3}),
                      op.ToolCall(name="add", arguments={"a": 6, "b": 4}), "Ten."])
"""


async def test_a_fork_makes_no_model_request_before_its_round(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP)
        cell = await kernel.run("%%agent -m m -o r\nAdd 1, 2, 3 and 4.")
        assert error_of(cell) is None
        await kernel.text(
            "ran.clear()\n"
            "@op.function\n"
            "def add(a: float, b: float) -> float:\n"
            "    'Add two numbers (both integers).'\n"
            "    ran.append((a, b))\n"
            "    return a + b\n"
            "live = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': 6, 'b': 40}),\n"
            "                         'Forty-six.'])"
        )
        fork = await kernel.run("%agent fork r 3 -m live")
        assert error_of(fork) is None
        counts = await kernel.text(
            "print(len(m.requests), len(live.requests), ran, r_fork.rounds, r_fork.text,\n"
            "      live.requests[0].tools[0]['description'])"
        )
        assert counts.split(" ", 5) == [
            "4",
            "2",
            "[(6.0,",
            "40.0)]",
            "4",
            "Forty-six. Add two numbers (both integers).\n",
        ]
        saved = plain_output(fork)
        assert "rounds 1–2 replayed" in saved and saved.count("replayed from r:") == 2 and "Forty-six." in saved
