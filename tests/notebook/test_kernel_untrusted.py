"""Real kernels, both versions: what a model or a saved notebook sends cannot break a cell.

A tampered notebook given to ``%agent restore`` is one line naming the cell and field, and
changes no session; a reply nested past what can be serialised still leaves the cell with
its static transcript and its saved run (it stayed "agent run in progress").
"""

from __future__ import annotations

import json

import pytest

from .kernels import STATIC_MIMES, WIDGET_VIEW, error_of, live_kernel, outputs_mimes

pytestmark = pytest.mark.slow

SETUP = "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"


async def test_a_tampered_notebook_is_refused_in_one_line_and_no_session_changes(kernel_name, tmp_path):
    saved = {
        "format": 1,
        "run_id": "run_x",
        "session": "lesson",
        "history_length": -3,
        "started_at": 1.0,
        "messages": [{"role": "user", "content": "hi"}],
    }
    path = tmp_path / "tampered.ipynb"
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "source": "",
                        "metadata": {},
                        "execution_count": 1,
                        "outputs": [{"output_type": "display_data", "data": {}, "metadata": {"openprogram": saved}}],
                    }
                ]
            }
        )
    )
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP + "m = op.ScriptedModel(['kept'])")
        await kernel.run("%%agent -m m -s lesson\nRemember this.")
        cell = await kernel.run(f"%agent restore {path}")
        # IPython shows a UsageError as one line on stderr (no traceback) and fails the cell.
        stderr = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stderr")
        assert stderr.startswith("UsageError: %agent restore: code cell 1: its saved run has a bad history_length")
        assert "Traceback" not in stderr and stderr.count("\n") <= 1 and error_of(cell) is None
        kept = await kernel.text(
            "from openprogram_jupyter.jupyter import _LOADED\n"
            "session = next(iter(_LOADED.values())).sessions.get('lesson')\n"
            "print([m.text for m in session.messages])"
        )
        assert kept.strip() == "['Remember this.', 'kept']"


async def test_a_reply_nested_too_deep_still_leaves_the_saved_transcript(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            SETUP + "deep = {}\nfor _ in range(300):\n    deep = {'x': deep}\n"
            "m = op.ScriptedModel([op.ToolCall(name='take', arguments={'data': deep}), 'done'])\n"
            "@op.function\ndef take(data: dict) -> str:\n    '''Take.'''\n    return 'ok'\n"
        )
        cell = await kernel.run("%%agent -m m -o r --tools take\nTake it.")
        assert error_of(cell) is None
        assert outputs_mimes(cell) and all(
            mimes == STATIC_MIMES and WIDGET_VIEW not in mimes for mimes in outputs_mimes(cell)
        )
        metadata = json.dumps([o.get("metadata", {}) for o in cell.outputs])
        assert "cut when saved" in metadata
        assert (await kernel.text("print(r.stop_reason)")).strip() == "stop"
