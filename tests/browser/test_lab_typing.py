"""A real browser: what a person types into the live view reaches the kernel whole.

While an awaited ``%%agent`` cell runs, the kernel never reports idle for the widget
messages it handles meanwhile, and ipywidgets' frontend sends each widget at most one
state update until it hears that idle: a text box that syncs every keystroke delivers only
its first character. These tests type key by key, with a delay, as a person does — into
step mode's Edit box and Skip reason, and two messages in a row into the steering box —
and check what the run received. Only this venv's kernel: the ipykernel 6.29 one runs
ipywidgets 7.7, whose widgets JupyterLab 4's widget manager does not render (the output
shows "Click to show javascript error"), so no browser can type into them here; the kernel
tests cover that kernel.
"""

from __future__ import annotations

import json

import pytest

from .lab import OUTPUT, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

TYPING_DELAY_MS = 60


STEP_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef add(a: int, b: int) -> int:\n    '''Add two whole numbers.'''\n    return a + b",
    "m = op.ScriptedModel([op.ToolCall(name='add', arguments={'a': 1, 'b': 1}),\n"
    "                      op.ToolCall(name='add', arguments={'a': 2, 'b': 2}),\n"
    "                      lambda request: 'read: ' + request.messages[-1].text])",
    "%%agent --step -m m -o r --tools add\nAdd some numbers.",
    "import json\n"
    "results = [[t.status, t.details.get('edited_arguments'), t.text.splitlines()[-1]] for t in r.tool_results]\n"
    "print('TYPED-RESULTS', json.dumps(results + [r.text]))",
]

STEERING_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef work(context: op.ToolContext) -> str:\n    '''Work a while.'''\n"
    "    context.cancelled.wait(12)\n    return 'worked'",
    "m = op.ScriptedModel([op.ToolCall(name='work'),\n"
    "                      lambda request: ' | '.join(x.text for x in request.messages[2:])])",
    "%%agent -m m -o r --tools work\nStart working.",
    "import json\nprint('TYPED-RESULTS', json.dumps(r.text))",
]


def test_edit_and_skip_reason_typed_key_by_key_reach_the_kernel_whole(lab):
    root = lab.root
    name = write_notebook(root, "step.ipynb", STEP_CELLS)
    with notebook_page(lab, 1200, 900, "step-typing-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        button = lambda text: page.locator("button.widget-button", has_text=text)  # noqa: E731
        button("Edit").first.wait_for(timeout=60_000)
        page.get_by_text("a=1, b=1").first.wait_for(timeout=30_000)
        button("Edit").first.click()
        editor = page.locator(".widget-textarea textarea").first
        editor.wait_for(timeout=15_000)
        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        # A mistake first: the card says what is wrong, and the call keeps waiting.
        editor.type('{"a": 1, "b": ', delay=TYPING_DELAY_MS)
        button("Run edited").first.click()
        page.get_by_text("not valid JSON", exact=False).first.wait_for(timeout=15_000)
        editor = page.locator(".widget-textarea textarea").first
        editor.click()
        page.keyboard.press("End")
        editor.type("41}", delay=TYPING_DELAY_MS)
        button("Run edited").first.click()

        page.get_by_text("a=2, b=2").first.wait_for(timeout=30_000)
        reason = page.get_by_placeholder("reason for skipping", exact=False).first
        reason.wait_for(timeout=15_000)
        reason.click()
        reason.type("two is enough", delay=TYPING_DELAY_MS)
        button("Skip").first.click()

        page.locator(".jp-OutputArea-output", has_text="TYPED-RESULTS").first.wait_for(timeout=60_000)
        printed = page.locator(".jp-OutputArea-output", has_text="TYPED-RESULTS").first.inner_text()
        page.screenshot(path=str(OUTPUT / "step-typing.png"), full_page=True)
        checked = json.loads(printed.split("TYPED-RESULTS", 1)[1])
        assert checked == [
            ["done", {"a": 1, "b": 41}, "42"],
            ["skipped", None, "skipped by the user: two is enough. The call did not run."],
            "read: skipped by the user: two is enough. The call did not run.",
        ]


def test_two_steering_messages_typed_in_a_row_both_reach_the_model(lab):
    root = lab.root
    name = write_notebook(root, "steer.ipynb", STEERING_CELLS)
    with notebook_page(lab, 1200, 900, "steer-typing-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        page.get_by_text("running", exact=False).first.wait_for(timeout=60_000)
        for message in ("use metric units", "and round to one decimal"):
            box = page.get_by_placeholder("Message the agent while it works", exact=False).first
            box.click()
            box.type(message, delay=TYPING_DELAY_MS)
            box.press("Enter")
            page.locator(".widget-html", has_text=message).first.wait_for(timeout=10_000)
        page.locator(".jp-OutputArea-output", has_text="TYPED-RESULTS").first.wait_for(timeout=60_000)
        printed = page.locator(".jp-OutputArea-output", has_text="TYPED-RESULTS").first.inner_text()
        page.screenshot(path=str(OUTPUT / "steer-typing.png"), full_page=True)
        answer = json.loads(printed.split("TYPED-RESULTS", 1)[1])
        assert "use metric units" in answer and "and round to one decimal" in answer, answer
