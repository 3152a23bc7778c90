"""A real browser answers what a tool asks: ``ctx.ask`` answered by typing into the call's
card (key by key, with a delay, as a person types; then Send), and an MCP server's
``elicitation/create`` answered by a click — the stand-in FastMCP server of
``tests/tool_sources/eliciting_server.py``, started from the notebook over stdio, whose
``delete`` tool asks to confirm. Each test checks what the tool (and the server) received,
and leaves a screenshot of the question as it was shown in ``output/``.
"""

from __future__ import annotations

import json
import sys

import pytest

from .lab import OUTPUT, REPO, notebook_page, open_and_run_all, write_notebook

pytestmark = pytest.mark.slow

TYPING_DELAY_MS = 60
ELICITING_SERVER = REPO / "tests" / "tool_sources" / "eliciting_server.py"

ASK_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n\n"
    "@op.function\ndef greet(ctx: op.ToolContext) -> str:\n"
    "    '''Greet the user by the name they give.'''\n"
    "    return 'Hello, ' + ctx.ask('What is your name?') + '!'",
    "m = op.ScriptedModel([op.ToolCall(name='greet'), lambda request: 'read: ' + request.messages[-1].text])",
    "%%agent -m m -o r --tools greet\nGreet me.",
    "import json\nresult = r.tool_results[0]\n"
    "print('ASKED-RESULTS', json.dumps([result.text, result.details['answers'], r.text]))",
]

ELICIT_CELLS = [
    "%load_ext openprogram_jupyter\nimport openprogram_jupyter as op\n"
    f"files = op.mcp(command=[{sys.executable!r}, {str(ELICITING_SERVER)!r}], name='files')",
    "m = op.ScriptedModel([op.ToolCall(name='files_delete', arguments={'path': '/tmp/old.txt'}),\n"
    "                      lambda request: 'read: ' + request.messages[-1].text])",
    "%%agent -m m -o r --mcp files\nDelete the old file.",
    "import json\nprint('ASKED-RESULTS', json.dumps([r.tool_results[0].text, r.text]))",
]


def printed_results(page) -> object:
    result = page.locator(".jp-OutputArea-output", has_text="ASKED-RESULTS").first
    result.wait_for(timeout=60_000)
    return json.loads(result.inner_text().split("ASKED-RESULTS", 1)[1])


def test_a_tool_s_question_is_answered_by_typing_in_its_card(lab):
    root = lab.root
    name = write_notebook(root, "ask.ipynb", ASK_CELLS)
    with notebook_page(lab, 1200, 900, "ask-typing-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        page.get_by_text("greet asks:", exact=False).first.wait_for(timeout=60_000)
        box = page.get_by_placeholder("your answer", exact=False).first
        box.wait_for(timeout=15_000)
        box.click()
        box.type("Ada Lovelace", delay=TYPING_DELAY_MS)
        page.screenshot(path=str(OUTPUT / "ask-typing.png"), full_page=True)
        page.locator("button.widget-button", has_text="Send").first.click()
        checked = printed_results(page)
        page.screenshot(path=str(OUTPUT / "ask-typing-answered.png"), full_page=True)
    assert checked == [
        "Hello, Ada Lovelace!",
        [{"question": "What is your name?", "answer": "Ada Lovelace"}],
        "read: Hello, Ada Lovelace!",
    ]


def test_an_mcp_server_s_elicitation_is_answered_by_a_click(lab):
    root = lab.root
    name = write_notebook(root, "elicit.ipynb", ELICIT_CELLS)
    with notebook_page(lab, 1200, 900, "elicit-click-failure.png") as page:
        open_and_run_all(page, lab.notebook_address(name))
        page.get_by_text("Delete /tmp/old.txt?", exact=False).first.wait_for(timeout=60_000)
        page.screenshot(path=str(OUTPUT / "elicit-click.png"), full_page=True)
        page.locator("button.widget-button", has_text="yes").first.click()
        checked = printed_results(page)
    assert checked == ["deleted /tmp/old.txt", "read: deleted /tmp/old.txt"]
