"""A real browser: what a person types into the live view reaches the kernel whole.

While an awaited ``%%agent`` cell runs, the kernel never reports idle for the widget
messages it handles meanwhile, and ipywidgets' frontend sends each widget at most one
state update until it hears that idle: a text box that syncs every keystroke delivers only
its first character. These tests type key by key, with a delay, as a person does — into
step mode's Edit box and Skip reason, and two messages in a row into the steering box —
and check what the run received.
"""

from __future__ import annotations

import json

import nbformat
import pytest

from .test_lab_stop import CHROMIUM, CHROMIUM_ARGS, OUTPUT, open_and_run_all

pytestmark = pytest.mark.slow

TYPING_DELAY_MS = 60


@pytest.fixture(params=["python3"], ids=["ipykernel-7.4+"])
def kernel_lab(request):
    """JupyterLab, and the kernelspec its notebooks name. Only this venv's kernel: the
    ipykernel 6.29 one runs ipywidgets 7.7, whose widgets JupyterLab 4's widget manager
    does not render (the output shows "Click to show javascript error"), so no browser can
    type into them here; the kernel tests cover that kernel."""
    return request.param, request.getfixturevalue("lab")


def write_step_notebook(root, kernel: str = "python3") -> str:
    cells = [
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
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nbformat.write(notebook, root / "step.ipynb")
    return "step.ipynb"


def test_edit_and_skip_reason_typed_key_by_key_reach_the_kernel_whole(kernel_lab):
    from playwright.sync_api import sync_playwright

    kernel, (url, root) = kernel_lab
    name = write_step_notebook(root, kernel)
    OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            open_and_run_all(page, f"{url}/lab/tree/{name}")
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
            page.screenshot(path=str(OUTPUT / f"step-typing-{kernel}.png"), full_page=True)
            checked = json.loads(printed.split("TYPED-RESULTS", 1)[1])
            assert checked == [
                ["done", {"a": 1, "b": 41}, "42"],
                ["skipped", None, "skipped by the user: two is enough. The call did not run."],
                "read: skipped by the user: two is enough. The call did not run.",
            ]
        except BaseException:
            try:
                page.screenshot(path=str(OUTPUT / f"step-typing-failure-{kernel}.png"), full_page=True)
            except Exception as screenshot_error:
                print(f"(no failure screenshot: {screenshot_error})")
            raise
        finally:
            browser.close()


def write_steering_notebook(root, kernel: str = "python3") -> str:
    cells = [
        "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
        "@op.function\ndef work(context: op.ToolContext) -> str:\n    '''Work a while.'''\n"
        "    context.cancelled.wait(12)\n    return 'worked'",
        "m = op.ScriptedModel([op.ToolCall(name='work'),\n"
        "                      lambda request: ' | '.join(x.text for x in request.messages[2:])])",
        "%%agent -m m -o r --tools work\nStart working.",
        "import json\nprint('TYPED-RESULTS', json.dumps(r.text))",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    notebook.metadata["kernelspec"] = {"name": kernel, "display_name": kernel, "language": "python"}
    nbformat.write(notebook, root / "steer.ipynb")
    return "steer.ipynb"


def test_two_steering_messages_typed_in_a_row_both_reach_the_model(kernel_lab):
    from playwright.sync_api import sync_playwright

    kernel, (url, root) = kernel_lab
    name = write_steering_notebook(root, kernel)
    OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            open_and_run_all(page, f"{url}/lab/tree/{name}")
            page.get_by_text("running", exact=False).first.wait_for(timeout=60_000)
            for message in ("use metric units", "and round to one decimal"):
                box = page.get_by_placeholder("Message the agent while it works", exact=False).first
                box.click()
                box.type(message, delay=TYPING_DELAY_MS)
                box.press("Enter")
                page.locator(".widget-html", has_text=message).first.wait_for(timeout=10_000)
            page.locator(".jp-OutputArea-output", has_text="TYPED-RESULTS").first.wait_for(timeout=60_000)
            printed = page.locator(".jp-OutputArea-output", has_text="TYPED-RESULTS").first.inner_text()
            page.screenshot(path=str(OUTPUT / f"steer-typing-{kernel}.png"), full_page=True)
            answer = json.loads(printed.split("TYPED-RESULTS", 1)[1])
            assert "use metric units" in answer and "and round to one decimal" in answer, answer
        except BaseException:
            try:
                page.screenshot(path=str(OUTPUT / f"steer-typing-failure-{kernel}.png"), full_page=True)
            except Exception as screenshot_error:
                print(f"(no failure screenshot: {screenshot_error})")
            raise
        finally:
            browser.close()
