"""The JupyterLite lesson site of ``scripts/build_lite.sh`` in chromium, with no network
(issue 51 step 2): the site, built once for this module, is served by a plain static server
on 127.0.0.1; every request the page or its workers make to any other address is aborted and
recorded, and none may be. Run All: the kernel (Pyodide, from the site) installs the package
from the site's own index, the ``%%agent`` cell's live view draws the replayed rounds, and
the grading cell passes.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import free_port
from .lab import OUTPUT, chromium_page

pytestmark = pytest.mark.slow

AGENT_CELL, GRADING_CELL = 6, 8  # in notebooks/lite/replay-lesson.ipynb, counting markdown cells
# A cell's text reads "" until the cell is in the page: JupyterLab adds a notebook's cells to
# the page a few at a time, and a loaded page can still be adding them when a test looks (a
# wait would otherwise fail on the missing cell instead of waiting for it).
CELL_OUTPUT = (
    "(i) => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.jp-OutputArea')?.innerText ?? ''"
)
PROMPT = (
    "(i) => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]?.querySelector('.jp-InputPrompt')?.innerText ?? ''"
)
# Every text the agent cell's output shows, in order, as the page draws it.
RECORD_AGENT_OUTPUT = f"""() => {{
    window.agentOutputs = [];
    const read = () => ({CELL_OUTPUT})({AGENT_CELL});
    new MutationObserver(() => {{
        const text = read();
        if (text !== window.agentOutputs[window.agentOutputs.length - 1]) window.agentOutputs.push(text);
    }}).observe(document.querySelector('.jp-Notebook'), {{childList: true, subtree: true, characterData: true}});
}}"""


@contextlib.contextmanager
def static_server(root: Path) -> Iterator[str]:
    """``python -m http.server`` serving ``root`` on 127.0.0.1; yields its address."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", "-b", "127.0.0.1", "-d", str(root), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", port)),
            ):
                break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def lesson_page(
    site: Path, failure_picture: str, height: int = 1600
) -> Iterator[tuple[Any, str, list[str], list[str]]]:
    """The site's lesson open in chromium: ``(page, address, outside, fetched)``. Every
    request not to the site is aborted and listed in ``outside``; those the site answered
    are listed in ``fetched``. The kernel is idle when the block starts."""
    outside: list[str] = []
    fetched: list[str] = []
    with static_server(site) as address, chromium_page(1200, height, failure_picture) as page:

        def only_the_site(route):
            if route.request.url.startswith(address + "/"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        page.context.route("**/*", only_the_site)
        page.on("requestfinished", lambda request: fetched.append(request.url))
        page.goto(f"{address}/lab/index.html?path=replay-lesson.ipynb")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        yield page, address, outside, fetched


def run_all_to_the_grading_cell(page: Any) -> None:
    """Run All, and wait until the grading cell has run. Under load the page can show its
    kernel idle before the kernel takes requests, and a Run All then leaves every cell
    unrun ("[ ]"), as a person would see; like that person, the test runs all again when
    the first code cell has not started within 30 s (at most three times)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    first_code_cell_started = (
        "() => /\\[(\\*|\\d+)\\]/"
        ".test(document.querySelector('.jp-Notebook .jp-CodeCell .jp-InputPrompt')?.innerText ?? '')"
    )
    for attempt in range(3):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        try:
            page.wait_for_function(first_code_cell_started, timeout=30_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    page.wait_for_function(f"(i) => /\\[\\d+\\]/.test(({PROMPT})(i))", arg=GRADING_CELL, timeout=300_000)


def test_a_lesson_session_replays_and_grades_then_a_background_run_stops_and_step_mode_follows_typing(lite_site):
    """One student's session on one page, as three lessons' worth of cells: Run All replays
    and grades the lesson; a background run returns its cell at once and its Stop stops it;
    step mode asks each pick with ``input()``. One page, because each page boots Pyodide and
    installs the package (about 40 CPU-s, most of such a test)."""
    # The site starts a lesson's kernel itself: under load JupyterLab could open the notebook
    # before the kernel specs arrived and ask "Select Kernel", and Run All waited on the dialog.
    settings = json.loads((lite_site / "jupyter-lite.json").read_text())["jupyter-config-data"]["settingsOverrides"]
    assert settings["@jupyterlab/notebook-extension:tracker"] == {"autoStartDefaultKernel": True}
    with lesson_page(lite_site, "lite-lesson-failure.png", height=1400) as (page, address, outside, fetched):
        _run_all_replays_the_lesson_and_grades_it(page, lite_site, address, fetched)
        _a_background_run_returns_the_cell_at_once_and_its_stop_button_stops_it(page)
        _step_mode_asks_each_pick_with_input_and_follows_the_typed_answers(page)
    assert outside == []


def _run_all_replays_the_lesson_and_grades_it(page: Any, lite_site: Path, address: str, fetched: list[str]) -> None:
    page.evaluate(RECORD_AGENT_OUTPUT)
    run_all_to_the_grading_cell(page)
    grading_prompt = page.locator(".jp-Notebook .jp-Cell").nth(GRADING_CELL).locator(".jp-InputPrompt")
    page.screenshot(path=str(OUTPUT / "lite-lesson.png"), full_page=True)
    agent_outputs = page.evaluate("() => window.agentOutputs")
    transcript = page.evaluate(CELL_OUTPUT, AGENT_CELL)
    grading = page.evaluate(CELL_OUTPUT, GRADING_CELL)
    grading_count = grading_prompt.inner_text()

    # The site has the two extensions the lesson needs, whatever else this environment has.
    config = json.loads((lite_site / "jupyter-lite.json").read_text(encoding="utf-8"))["jupyter-config-data"]
    assert [extension["name"] for extension in config["federated_extensions"]] == [
        "@jupyter-widgets/jupyterlab-manager",
        "@jupyterlite/pyodide-kernel-extension",
    ]
    # The kernel's Pyodide and every package came from the site itself.
    assert f"{address}/static/pyodide/pyodide.asm.wasm" in fetched
    assert any(url.startswith(f"{address}/pypi/openprogram_jupyter-0.1.0-py3-none-any.whl") for url in fetched)
    # The live view drew the run as it went: round 1's calls before round 2's answer, and that
    # answer while it streamed (the ▍ cursor), before the transcript took its place.
    assert any('temperature (city="Cairo")' in text and "Cairo is the warmest" not in text for text in agent_outputs), (
        agent_outputs
    )
    assert any("round 2\nCairo" in text and "▍" in text for text in agent_outputs), agent_outputs
    for call in (
        'temperature (city="Oslo") ✓ done',
        'temperature (city="Lisbon") ✓ done',
        'temperature (city="Cairo") ✓ done',
    ):
        assert call in transcript
    assert "Cairo is the warmest today at 31.0 °C (Lisbon 19.5 °C, Oslo 4.0 °C)." in transcript
    # A reload ends JupyterLite's kernel, and the run with it: no line says the run goes on.
    assert not any("If this page is reloaded" in text for text in agent_outputs)
    # While it ran, the view said why its Stop could not take a click.
    assert any("In JupyterLite a click reaches the kernel only after the cell ends" in text for text in agent_outputs)
    assert "Error" not in grading and "Traceback" not in grading, grading
    assert (
        "✓ 4 check(s) passed: called temperature that ran and returned exactly 3 time(s); temperature returned "
        "31.0; answer contains 'Cairo'; ended with 'stop'" in grading
    ), grading
    assert grading_count.strip().startswith("[5]"), grading_count


def _add_cell_and_run(page, below: int, code: str) -> None:
    """Add a code cell under cell ``below`` (command mode ``b``), type ``code`` into it, run it
    (Ctrl+Enter, staying on it) and leave the editor."""
    page.locator(".jp-Notebook .jp-Cell").nth(below).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.type(code)
    page.keyboard.press("Control+Enter")
    page.keyboard.press("Escape")


def _a_background_run_returns_the_cell_at_once_and_its_stop_button_stops_it(page: Any) -> None:
    # Slow enough that the run is still going when the cell has returned and Stop is clicked.
    _add_cell_and_run(page, GRADING_CELL, 'slow = ReplayModel("cassettes/lesson.json", delay=0.5)')
    _add_cell_and_run(page, GRADING_CELL + 1, "%%agent -m slow --background --tools temperature -o handle\n{QUESTION}")
    background = page.locator(".jp-Notebook .jp-Cell").nth(GRADING_CELL + 2)
    stop = background.locator(".jp-OutputArea button", has_text="Stop")
    stop.wait_for(timeout=60_000)
    returned = background.locator(".jp-InputPrompt").inner_text()
    running = background.locator(".jp-OutputArea").inner_text()
    stop.click()
    page.wait_for_function(
        f"() => ({CELL_OUTPUT})({GRADING_CELL + 2}).includes('Stopped with the Stop button')", timeout=60_000
    )
    _add_cell_and_run(
        page,
        GRADING_CELL + 2,
        "print(handle.done, handle.run.stop_reason)",
    )
    page.wait_for_function(f"() => ({CELL_OUTPUT})({GRADING_CELL + 3}).trim().length > 0", timeout=60_000)
    after_stop = page.evaluate(CELL_OUTPUT, GRADING_CELL + 3)
    transcript = page.evaluate(CELL_OUTPUT, GRADING_CELL + 2)
    page.screenshot(path=str(OUTPUT / "lite-stop.png"), full_page=True)

    # The cell had returned (its count is shown) while its run was still going.
    assert returned.strip().startswith("[7]"), returned  # Run All counted 1 to 5, the slow model 6
    assert (
        "Running in the background: handle holds the handle (handle.run is the Run once handle.done, "
        "handle.abort() stops it)." in running
    ), running
    # The click reached the kernel while the run went on, and stopped it in its first round.
    assert after_stop.strip() == "True aborted", after_stop
    assert "Stopped with the Stop button; the transcript up to that point is kept." in transcript
    # Round 1 may have shown the first words of its reply ("I'll ") before the click landed.
    assert re.search(r"round 1\n([^\n]*\n)?stopped \(aborted\)", transcript), transcript
    assert "round 2" not in transcript, transcript


def _answer_prompt(cell, expected_prompt: str, answer: str) -> None:
    """Wait for the cell's ``input()`` prompt saying ``expected_prompt``, type ``answer``, Enter."""
    prompt = cell.locator(".jp-Stdin-prompt").last
    prompt.filter(has_text=expected_prompt).wait_for(timeout=60_000)
    box = cell.locator(".jp-Stdin-input").last
    box.fill(answer)
    box.press("Enter")


def _step_mode_asks_each_pick_with_input_and_follows_the_typed_answers(page: Any) -> None:
    _add_cell_and_run(page, GRADING_CELL, 'stepper = ReplayModel("cassettes/lesson.json")')
    _add_cell_and_run(page, GRADING_CELL + 1, "%%agent -m stepper --step --tools temperature -o stepped\n{QUESTION}")
    stepping = page.locator(".jp-Notebook .jp-Cell").nth(GRADING_CELL + 2)
    _answer_prompt(stepping, "temperature({'city': 'Oslo'})", "r")
    _answer_prompt(stepping, "temperature({'city': 'Lisbon'})", "s")
    _answer_prompt(stepping, "reason (the model reads it):", "we already know Lisbon is mild")
    _answer_prompt(stepping, "temperature({'city': 'Cairo'})", "r")
    page.wait_for_function(f"() => ({CELL_OUTPUT})({GRADING_CELL + 2}).includes('finished')", timeout=60_000)
    _add_cell_and_run(
        page,
        GRADING_CELL + 2,
        'op.check(stepped).called("temperature", city="Lisbon").called("temperature", times=2, ok=True)',
    )
    page.wait_for_function(f"() => ({CELL_OUTPUT})({GRADING_CELL + 3}).trim().length > 0", timeout=60_000)
    checked = page.evaluate(CELL_OUTPUT, GRADING_CELL + 3)
    transcript = page.evaluate(CELL_OUTPUT, GRADING_CELL + 2)
    page.screenshot(path=str(OUTPUT / "lite-step.png"), full_page=True)

    # Oslo and Cairo ran as typed, Lisbon was skipped with the typed reason the model read.
    assert (
        '✓ 2 check(s) passed: called temperature(city="Lisbon"); called temperature that ran and returned '
        "exactly 2 time(s)" in checked
    ), checked
    assert "skipped by the user: we already know Lisbon is mild" in transcript, transcript
