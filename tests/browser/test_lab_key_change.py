"""A real browser: a corrected key is used by the same cell run again (issue 43, item 1), in
JupyterLab and in Notebook 7.

A loopback OpenAI-compatible server runs in the test process and accepts one key at a
time. The notebook points ``OPENAI_BASE_URL`` at it with a wrong ``OPENAI_API_KEY``; the
``%%agent`` cell gets the 401, whose message names ``OPENAI_API_KEY``. Then the key is
corrected three times, each way a user may do it — ``%env``, ``os.environ``, and
``%agent key openai`` typed into the frontend's password box — and after each the same
cell runs again: the server must receive the key just set. Before, the model object
built for ``openai:gpt-4.1-mini`` kept its SDK client, and the server saw the wrong key
until the kernel was restarted.
"""

from __future__ import annotations

import pytest
from fakeserver import FakeServer, Turn

from .lab import OUTPUT, notebook_page, open_notebook, run_cell, start_cell, wait_cell, write_notebook

pytestmark = pytest.mark.slow

WRONG = "sk-wrong-0000000000000000"
BY_ENV, BY_OS, TYPED = "sk-env-1111111111111111", "sk-os-2222222222222222", "sk-typed-3333333333333333"
AGENT_CELL = 1


def cells(base_url: str) -> list[str]:
    return [
        f"%load_ext openprogram_jupyter\nimport os\nos.environ['OPENAI_BASE_URL'] = '{base_url}'\n"
        f"os.environ['OPENAI_API_KEY'] = '{WRONG}'",
        "%%agent -m openai:gpt-4.1-mini\nSay hello.",
        f"%env OPENAI_API_KEY={BY_ENV}",
        f"os.environ['OPENAI_API_KEY'] = '{BY_OS}'",
        "%agent key openai",
    ]


def sent_key(server: FakeServer) -> str:
    """The key the server received with its last request."""
    recorded = server.requests[-1]
    return server.wires[recorded.wire].key(recorded.headers) or ""


def type_key(page, cell: int, key: str) -> None:
    """Run ``%agent key openai`` in ``cell`` and type ``key`` into its password box, as a
    person does, then Enter."""
    before = start_cell(page, cell)
    box = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator("input.jp-Stdin-input")
    box.wait_for(timeout=30_000)
    box.press_sequentially(key, delay=20)
    box.press("Enter")
    wait_cell(page, cell, before)


def test_a_key_corrected_after_a_401_is_used_when_the_cell_runs_again(jupyter):
    with (
        FakeServer() as server,
        notebook_page(jupyter, 1100, 1200, f"key-change-failure-{jupyter.frontend}.png") as page,
    ):
        server.expected_key = WRONG + "-never"  # the first request is refused, whatever it sends
        name = write_notebook(jupyter.root, "key.ipynb", cells(server.openai_base_url))
        open_notebook(page, jupyter.notebook_address(name))
        run_cell(page, 0)
        refused = run_cell(page, AGENT_CELL)
        assert sent_key(server) == WRONG and "OPENAI_API_KEY" in refused, refused

        answers = []
        for number, (key, set_it) in enumerate([(BY_ENV, 2), (BY_OS, 3), (TYPED, 4)], start=1):
            server.expected_key = key
            server.script(Turn(text=f"Hello, key {number}."))
            if set_it == 4:
                type_key(page, set_it, key)
            else:
                run_cell(page, set_it)
            answers.append(run_cell(page, AGENT_CELL))
            assert sent_key(server) == key, (number, sent_key(server))  # the bug: still WRONG
        page.screenshot(path=str(OUTPUT / f"key-change-{jupyter.frontend}.png"), full_page=True)

    assert [f"Hello, key {n}." in answer for n, answer in enumerate(answers, start=1)] == [True, True, True], answers
    assert [r.headers.get("authorization") for r in server.requests] == [
        f"Bearer {key}" for key in (WRONG, BY_ENV, BY_OS, TYPED)
    ]
