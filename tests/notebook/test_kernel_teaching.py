"""Real kernels: step mode driven by widget messages, ``%agent code`` run as a cell, and
sessions restored from the saved notebook after ``restart_kernel()``."""

from __future__ import annotations

import json

import nbformat
import pytest

from .kernels import LiveKernel, error_of, live_kernel, outputs_mimes, plain_output

pytestmark = pytest.mark.slow

SETUP = """\
%load_ext openprogram_jupyter
import openprogram_jupyter as op

@op.function
def add(a: int, b: int) -> int:
    '''Add two whole numbers.'''
    return a + b
"""


def shown(kernel: LiveKernel, cell) -> set[str]:
    """The comm ids of the widgets on screen: those reachable from the cell's live view (a
    card kept aside for reuse has widgets too, but nobody can click them)."""
    roots = [
        o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
        for o in cell.outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    seen, todo = set(), list(roots)
    while todo:
        comm_id = todo.pop()
        if comm_id in seen or comm_id not in kernel.client.widget_state:
            continue
        seen.add(comm_id)
        children = kernel.client.widget_state[comm_id].get("children", [])
        todo += [child.removeprefix("IPY_MODEL_") for child in children if isinstance(child, str)]
    return seen


async def card_button(kernel: LiveKernel, cell, description: str) -> str:
    """The waiting card's button, once it is on screen (the view's own Stop has an icon;
    the card's has none)."""

    def on_screen() -> list[str]:
        shown_now = shown(kernel, cell)
        return [
            c
            for c in kernel.widgets("ButtonModel", description=description)
            if c in shown_now and kernel.client.widget_state[c].get("icon", "") == ""
        ]

    return await kernel.find(on_screen, what=f"the card's {description} button")


async def wait_waiting(kernel: LiveKernel, arguments: str) -> None:
    """Until the open card shows the pick with ``arguments`` waiting for an answer."""
    await kernel.wait_for(
        lambda: any(arguments in v and "awaiting" in v for v in kernel.widget_values()),
        what=f"the pick ({arguments}) waiting in its card",
    )


async def test_step_mode_answers_each_pick_with_run_edit_skip_and_stop_clicks(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            SETUP + "m = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': i, 'b': i})"
            " for i in (1, 2, 3, 4)] + ['done'])\n"
        )
        cell, task = kernel.start("%%agent --step -m m -o r --tools add\nAdd some numbers.")
        await wait_waiting(kernel, "a=1, b=1")
        kernel.click(await card_button(kernel, cell, "Run"))
        await wait_waiting(kernel, "a=2, b=2")
        kernel.click(await card_button(kernel, cell, "Edit"))
        # The editor opens filled with the model's arguments; the user then types over them.
        editor = await kernel.find(
            lambda: [
                c
                for c in kernel.widgets("TextareaModel")
                if c in shown(kernel, cell) and '"a": 2' in kernel.client.widget_state[c]["value"]
            ],
            what="the editor, filled",
        )
        kernel.type_into(editor, json.dumps({"a": 20, "b": 22}))
        kernel.click(await card_button(kernel, cell, "Run edited"))
        await wait_waiting(kernel, "a=3, b=3")
        reason = await kernel.find(
            lambda: [
                c
                for c in kernel.widgets("TextModel", placeholder="reason for skipping (the model reads it)")
                if c in shown(kernel, cell)
            ],
            what="the skip reason box",
        )
        kernel.type_into(reason, "three is plenty")
        kernel.click(await card_button(kernel, cell, "Skip"))
        await wait_waiting(kernel, "a=4, b=4")
        kernel.click(await card_button(kernel, cell, "Stop"))
        await task
        assert error_of(cell) is None  # a Stop click ends the run, not the cell
        report = await kernel.text(
            "print(r.stop_reason)\n"
            "for t in r.tool_results: print(t.status, t.details.get('approval'), t.text.splitlines()[-1])\n"
        )
        lines = report.splitlines()
        assert lines[0] == "aborted"
        assert lines[1] == "done approved 2"
        assert lines[2] == "done edited 42"
        assert lines[3].startswith("skipped skipped skipped by the user: three is plenty")
        assert lines[4].startswith("cancelled ")
        assert all("application/vnd.jupyter.widget-view+json" not in m for m in outputs_mimes(cell))
        saved = plain_output(cell)
        assert "(a=20, b=22) → done · edited" in saved and "arguments edited by the user before it ran" in saved


async def test_agent_code_fills_the_next_cell_and_running_it_gives_the_runs_results(kernel_name):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            SETUP + "m = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': 2, 'b': 3}),"
            " op.ToolCall(name='add', arguments={'a': 5, 'b': 8}), 'thirteen'])\n"
        )
        await kernel.run("%%agent -m m -o r --tools add\nAdd.")
        reply = await kernel.client.kc.execute("%agent code r", reply=True)
        payloads = [p for p in reply["content"].get("payload", []) if p.get("source") == "set_next_input"]
        assert len(payloads) == 1 and payloads[0]["replace"] is False
        source = payloads[0]["text"]
        assert "add_1 = add(a=2, b=3)" in source and "add_2 = add(a=5, b=8)" in source
        cell = await kernel.run(source)
        assert error_of(cell) is None
        same = await kernel.text(
            "from openprogram_jupyter.tools.results import result_content\n"
            "print([result_content(v)[0][0].text for v in (add_1, add_2)] == [t.text for t in r.tool_results],"
            " len(m.requests) == r.rounds == 3)\n"
        )
        assert same.split() == ["True", "True"]  # equal results, and no model request beyond the run's


async def save_and_restart(kernel: LiveKernel, saved, then: str) -> None:
    """Save the notebook as it stands to ``saved``, restart the kernel, and set it up again
    as JupyterLab would (the notebook's path in ``JPY_SESSION_NAME``), then run ``then``."""
    nbformat.write(kernel.notebook, saved)
    await kernel.client.km.restart_kernel(now=True)
    await kernel.client.kc.wait_for_ready(timeout=60)
    await kernel.text(SETUP + f"import os\nos.environ['JPY_SESSION_NAME'] = {str(saved)!r}\n" + then)


async def test_a_session_comes_back_after_a_restart_from_the_saved_notebook(kernel_name, tmp_path):
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(
            SETUP + "m = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': 1, 'b': 1}), 'two', 'and three'])\n"
        )
        await kernel.run("%%agent -m m -s lesson\nWhat is 1 + 1?")
        await kernel.run("%%agent -m m -s lesson\nAnd plus one?")
        await save_and_restart(kernel, tmp_path / "lesson.ipynb", "m2 = op.ScriptedModel(['four'])\n")
        # The kernel lacks the session the notebook holds: the cell says how to bring it back.
        refused = await kernel.run("%%agent -m m2 -s lesson\nAnd one more?")
        said = "".join(o.get("text", "") for o in refused.outputs if o.output_type == "stream")
        assert "UsageError" in said and "has no session 'lesson'" in said and "%agent restore" in said
        assert await kernel.text("print(len(m2.requests))") == "0\n"
        restored = await kernel.run("%agent restore")
        assert error_of(restored) is None
        assert "session lesson: 6 message(s) from 2 run(s)" in plain_output(restored)
        await kernel.run("%%agent -m m2 -s lesson\nAnd one more?")
        sent = await kernel.text("import json\nprint(json.dumps([(x.role, x.text) for x in m2.requests[0].messages]))")
        roles_and_texts = json.loads(sent)
        assert [role for role, _ in roles_and_texts] == [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "user",
            "assistant",
            "user",
        ]
        assert roles_and_texts[0][1] == "What is 1 + 1?" and roles_and_texts[2][1] == "2"
        assert roles_and_texts[4][1] == "And plus one?" and roles_and_texts[-1][1] == "And one more?"


async def test_restore_follows_the_kernels_order_and_a_new_start_not_the_notebooks_cell_order(kernel_name, tmp_path):
    """Cells run out of order and a session started again with --new: the restored session
    is the one the kernel had — the runs after the last --new, in the order they ran."""
    async with live_kernel(kernel_name) as kernel:
        await kernel.text(SETUP + "m = op.ScriptedModel(['one', 'two', 'three', 'four'])\n")
        first = await kernel.run("%%agent -m m -s lesson\nFirst?")
        second = await kernel.run("%%agent -m m -s lesson\nSecond?")
        fresh = await kernel.run("%%agent -m m -s lesson --new\nStart again?")
        after = await kernel.run("%%agent -m m -s lesson\nAnd then?")
        # The notebook shows the cells in another order than they ran (the user moved them).
        kernel.notebook.cells = [after, second, fresh, first, *kernel.notebook.cells[:-4]]
        await save_and_restart(kernel, tmp_path / "lesson.ipynb", "m2 = op.ScriptedModel(['five'])\n")
        restored = await kernel.run("%agent restore")
        assert error_of(restored) is None
        said = plain_output(restored)
        assert "session lesson: 4 message(s) from 2 run(s) (2 run(s) from before a --new left out)" in said
        await kernel.run("%%agent -m m2 -s lesson\nAnd now?")
        sent = await kernel.text("print([x.text for x in m2.requests[0].messages])")
        assert sent.strip() == "['Start again?', 'three', 'And then?', 'four', 'And now?']"
