"""A real browser: JupyterLab on 127.0.0.1, Debian's chromium driven by Playwright.

Runs an ``%%agent`` cell, watches its live view grow, clicks Stop, and checks that the
cell ends promptly with the static transcript in place of the widgets. Screenshots of the
live view and of the result go to ``tests/browser/output/``.

The shared pieces (chromium, a page, notebooks) are in :mod:`.lab`; the JupyterLab server
is the ``lab`` fixture (``conftest.py``).
"""

from __future__ import annotations

import json
import os
import time

import pytest

from .lab import OUTPUT, REPO, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

STOP_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op",
    "slow = op.ScriptedModel(['word ' * 3000], delay=0.02)",
    "%%agent -m slow -o r\nTalk for a long time.",
    "print('stop_reason:', r.stop_reason)",
]


def test_stop_button_in_jupyterlab_ends_a_running_agent_cell(lab):
    root = lab.root
    name = write_notebook(root, "stop.ipynb", STOP_CELLS)
    with notebook_page(lab, 1200, 900, "failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))

        view = page.locator(".widget-html", has_text="word word word")
        view.first.wait_for(timeout=60_000)
        stop = page.locator("button.widget-button", has_text="Stop")  # not the toolbar's ■
        stop.wait_for(timeout=30_000)

        # The view updates live: the streamed text grows while we watch.
        first = len(view.first.inner_text())
        page.wait_for_timeout(1500)
        second = len(view.first.inner_text())
        assert second > first, (first, second)
        page.screenshot(path=str(OUTPUT / "live-view.png"), full_page=True)

        clicked = time.monotonic()
        stop.click()
        page.get_by_text("Stopped with the Stop button").first.wait_for(timeout=15_000)
        latency = time.monotonic() - clicked
        page.get_by_text("stop_reason: aborted").wait_for(timeout=15_000)
        page.screenshot(path=str(OUTPUT / "after-stop.png"), full_page=True)
        (OUTPUT / "latency.json").write_text(json.dumps({"stop_click_to_static_transcript_s": latency}))
        print(f"\n[browser] Stop click → static transcript shown in {latency:.3f} s")

        # 3,000 words at 20 ms would take a minute; the click ended it within seconds.
        assert latency < 5
        assert page.locator("button.widget-button").count() == 0  # the widgets are gone
        transcript = page.locator(".jp-OutputArea-output", has_text="agent run").first.inner_text()
        assert "stopped (aborted)" in transcript and "word word" in transcript


# A run worth a picture: two tool calls (one slow enough to type a message during), a
# Markdown answer, then the message sent while it ran.
TOUR_CELLS = [
    "%load_ext openprogram_jupyter\nimport time\nimport openprogram_jupyter as op",
    "@op.function\ndef mean(values: list[float]) -> float:\n"
    "    '''The mean of some numbers.'''\n    return sum(values) / len(values)\n\n"
    "@op.function\ndef forecast(city: str, days: int = 3) -> dict:\n"
    "    '''The forecast for a city.'''\n    time.sleep(6)\n"
    "    return {'city': city, 'highs': [18.5, 21.0, 19.5][:days]}",
    "guide = op.ScriptedModel([\n"
    "    op.ToolCall(name='forecast', arguments={'city': 'Lisbon', 'days': 3}),\n"
    "    op.ToolCall(name='mean', arguments={'values': [18.5, 21.0, 19.5]}),\n"
    "    '## Lisbon, next three days\\n\\n| day | high |\\n|---|---:|\\n| 1 | 18.5 °C |\\n| 2 | 21.0 °C |\\n'\n"
    "    '| 3 | 19.5 °C |\\n\\n**Mean high: 19.7 °C.** Pack a light jacket for the evenings.',\n"
    "], delay=0.01)",
    "%%agent -m guide -o r --tools forecast,mean\nWhat will the weather be in Lisbon this week?",
]


def test_enter_in_the_steering_box_queues_a_message_and_the_readme_pictures(lab):
    """Takes the README's pictures from a real run: into tests/browser/output, or into
    docs/images with OPENPROGRAM_UPDATE_PICTURES=1 (then review and commit them)."""
    root = lab.root
    name = write_notebook(root, "tour.ipynb", TOUR_CELLS)
    pictures = REPO / "docs" / "images" if os.environ.get("OPENPROGRAM_UPDATE_PICTURES") else OUTPUT
    pictures.mkdir(parents=True, exist_ok=True)
    with notebook_page(lab, 1000, 760, "tour-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))

        box = page.get_by_placeholder("Message the agent while it works", exact=False)
        box.wait_for(timeout=60_000)
        page.get_by_text("forecast", exact=False).first.wait_for(timeout=30_000)
        box.fill("Use Celsius, please.")
        box.press("Enter")
        page.get_by_text("queued", exact=False).first.wait_for(timeout=10_000)
        assert box.input_value() == ""  # sent, and the box is ready for the next one
        view = page.locator(".jp-OutputArea-output", has=page.locator(".widget-button")).last  # not the hint under it
        view.scroll_into_view_if_needed()
        view.screenshot(path=str(pictures / "live-view.png"))

        page.get_by_text("Mean high", exact=False).first.wait_for(timeout=60_000)
        page.get_by_text("finished", exact=False).last.wait_for(timeout=30_000)
        page.wait_for_timeout(500)
        transcript = page.locator(".jp-OutputArea-output", has_text="agent run").last
        assert transcript.locator("h2", has_text="Lisbon").count() == 1  # the answer is rendered Markdown
        assert transcript.locator("table").count() >= 1
        assert "Use Celsius, please." in transcript.inner_text()  # the message reached the model's record
        transcript.screenshot(path=str(pictures / "saved-transcript.png"))
