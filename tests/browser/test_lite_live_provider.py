"""A live model from the JupyterLite site (issue 51 step 3): ``notebooks/lite/live-provider.ipynb``
in chromium asks the loopback fake server — an OpenAI-compatible API on another origin, with
CORS headers for the site's origin — through the real openai SDK as the site installs it
(openai 3.x on httpx2, whose Pyodide transport is the page's ``fetch``: httpx2-jsfetch).

No request is intercepted: while Playwright routes requests it answers every CORS preflight
itself, which would hide whether the server allows the site. Chromium resolves no host name
instead (``--host-resolver-rules``), and every address the page and its workers ask for is
recorded: only the site's and the fake server's may be.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakeserver import Call, Close, FakeServer, Recorded, Turn, Wire

from .lab import OUTPUT, chromium_page
from .test_lite_lesson import CELL_OUTPUT, _add_cell_and_run, static_server

pytestmark = pytest.mark.slow

NOTEBOOK = "live-provider.ipynb"
BASE_URL_CELL, KEY_CELL, AGENT_CELL, GRADING_CELL, AWAITED_CELL = 4, 6, 10, 12, 14  # markdown cells counted
KEY = "sk-typed-in-the-browser-0123456789"
ANSWER = "Cairo is the warmest today at 31.0 °C; Oslo has 4.0 °C."
OFFLINE = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)
# Every text a cell's output shows, in order, as the page draws it.
RECORD_OUTPUTS = f"""(cell) => {{
    window.cellOutputs = [];
    new MutationObserver(() => {{
        const text = ({CELL_OUTPUT})(cell);
        if (text !== window.cellOutputs[window.cellOutputs.length - 1]) window.cellOutputs.push(text);
    }}).observe(document.querySelector('.jp-Notebook'), {{childList: true, subtree: true, characterData: true}});
}}"""


def two_rounds(recorded: Recorded, wire: Wire) -> Turn:
    """The model's turn for any request, whatever the order runs send them in: Oslo's and
    Cairo's temperatures first, then, once the results are in, the answer streamed slowly
    enough that the view shows it arriving."""
    if recorded.body["messages"][-1]["role"] == "tool":
        return Turn(text=ANSWER, chunk_size=4, frame_delay=0.05)
    return Turn(calls=[Call("temperature", {"city": "Oslo"}), Call("temperature", {"city": "Cairo"})])


@pytest.fixture(scope="module")
def live_site(lite_site: Path, tmp_path_factory) -> Path:
    """The site of ``scripts/build_lite.sh`` with its app on the page (``window.jupyterapp``),
    so the test can read the notebook as saved: a folder of links to the built site's
    entries, with a ``jupyter-lite.json`` of its own that says so. The built site stays as
    a teacher builds it, for the other tests that serve it."""
    site = tmp_path_factory.mktemp("live") / "site"
    site.mkdir()
    for entry in lite_site.iterdir():
        if entry.name != "jupyter-lite.json":
            (site / entry.name).symlink_to(entry)
    config = json.loads((lite_site / "jupyter-lite.json").read_text(encoding="utf-8"))
    config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
    (site / "jupyter-lite.json").write_text(json.dumps(config), encoding="utf-8")
    return site


@contextlib.contextmanager
def live_page(site: Path, failure_picture: str) -> Iterator[tuple[Any, str, FakeServer, list[str]]]:
    """``(page, address, fake, asked)``: the live notebook open and idle, the fake server
    answering :func:`two_rounds` with CORS for the site's origin and only :data:`KEY`,
    and every address the page asked for in ``asked``."""
    asked: list[str] = []
    with (
        FakeServer() as fake,
        static_server(site) as address,
        chromium_page(1200, 1600, failure_picture, OFFLINE) as page,
    ):
        fake.cors_origin = address
        fake.expected_key = KEY
        fake.responder = two_rounds
        page.on("request", lambda request: asked.append(request.url))
        page.goto(f"{address}/lab/index.html?path={NOTEBOOK}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        _replace_cell(page, BASE_URL_CELL, f'BASE_URL = "{fake.openai_base_url}"')
        yield page, address, fake, asked


def _cell(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def _replace_cell(page: Any, index: int, code: str) -> None:
    """Put ``code`` in place of cell ``index``'s source, as a student edits it."""
    _cell(page, index).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+a")
    page.keyboard.type(code)
    page.keyboard.press("Escape")


def _run_all_typing_the_key(page: Any) -> None:
    """Run All; type :data:`KEY` into the password field the key cell opens; wait until the
    last cell has run."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    box = _cell(page, KEY_CELL).locator(".jp-Stdin-input")
    box.wait_for(timeout=120_000)
    assert box.get_attribute("type") == "password"
    box.fill(KEY)
    box.press("Enter")
    page.wait_for_function(
        f"() => ({CELL_OUTPUT})({AWAITED_CELL}).trim().length > 0 || /Error/.test(document.body.innerText)",
        timeout=120_000,
    )


def _saved_notebook(page: Any) -> str:
    """Save the notebook (File ▸ Save's command, awaited) and read it back from the site's
    storage, as JSON text."""
    return page.evaluate(
        f"""async () => {{
            await window.jupyterapp.commands.execute('docmanager:save');
            const saved = await window.jupyterapp.serviceManager.contents.get('{NOTEBOOK}', {{content: true}});
            return JSON.stringify(saved.content);
        }}"""
    )


def _closes_while_open(page: Any, fake: FakeServer, seconds: float = 10.0) -> list[Close]:
    """The connections the fake server saw its client close, waiting up to ``seconds`` (a
    generous bound: it notices at its next frame, 0.2 s apart here) with the page open."""
    deadline = time.monotonic() + seconds
    while not fake.closes and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return list(fake.closes)


def test_a_session_on_the_live_notebook_streams_then_stops_a_background_run_then_names_cors(live_site):
    """One student's session on one page: Run All asks the server and streams the answer,
    keeping the key out; a background run streams and its Stop stops it mid-answer; Anthropic
    from the page says direct browser access, and a server that refuses the origin is named
    as CORS. One page, because each page boots Pyodide and installs the package (about 40
    CPU-s, most of such a test)."""
    with live_page(live_site, "lite-live-failure.png") as (page, address, fake, asked):
        _run_all_streams_the_answer_and_keeps_the_key_out(page, address, fake, asked)
        _a_background_run_streams_and_its_stop_button_stops_it_mid_answer(page, fake)
        _anthropic_says_direct_browser_access_and_a_refused_origin_names_cors(page, address, fake)


def _run_all_streams_the_answer_and_keeps_the_key_out(
    page: Any, address: str, fake: FakeServer, asked: list[str]
) -> None:
    page.evaluate(RECORD_OUTPUTS, AGENT_CELL)
    _run_all_typing_the_key(page)
    outputs = page.evaluate("() => window.cellOutputs")
    transcript = page.evaluate(CELL_OUTPUT, AGENT_CELL)
    grading = page.evaluate(CELL_OUTPUT, GRADING_CELL)
    awaited = page.evaluate(CELL_OUTPUT, AWAITED_CELL)
    key_cell = page.evaluate(CELL_OUTPUT, KEY_CELL)
    page_html = page.content()
    saved = _saved_notebook(page)
    page.screenshot(path=str(OUTPUT / "lite-live.png"), full_page=True)
    server = fake.url

    # Only the site and the fake server were asked for anything.
    assert [url for url in asked if not url.startswith((address + "/", server + "/"))] == []
    # The browser asked the server whether the site may send (a real preflight), and it may.
    assert fake.preflights, "no CORS preflight reached the server"
    preflight = fake.preflights[0]
    assert preflight["origin"] == address and preflight["access-control-request-method"] == "POST"
    assert "authorization" in preflight["access-control-request-headers"].split(",")
    # Two runs of two rounds each (the %%agent cell, then await live.arun), every request from
    # the site's page with the typed key.
    assert len(fake.requests) == 4, [r.body for r in fake.requests]
    for request in fake.requests:
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.headers["origin"] == address
        assert request.body["model"] == "gpt-4.1-mini" and request.body["stream"] is True
        assert [tool["function"]["name"] for tool in request.body["tools"]] == ["temperature"]
    results = [m for m in fake.requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in results] == ["4.0", "31.0"]
    # The answer streamed into the live view piece by piece (the ▍ cursor on a part of it).
    assert any("round 2" in text and "▍" in text and ANSWER not in text for text in outputs), outputs
    assert 'temperature (city="Oslo") ✓ done' in transcript and 'temperature (city="Cairo") ✓ done' in transcript
    assert ANSWER in transcript and "finished" in transcript, transcript
    assert "Warning" not in transcript and "Traceback" not in transcript, transcript
    assert "✓ 2 check(s) passed" in grading, grading
    assert awaited.strip() == ANSWER, awaited
    # The key was typed into a password field, never shown, and is not in the saved notebook.
    assert "OPENAI_API_KEY is set for this kernel" in key_cell, key_cell
    assert KEY not in page_html and KEY not in saved
    assert "OPENAI_API_KEY is set for this kernel" in saved  # what was saved is the notebook's outputs


def _a_background_run_streams_and_its_stop_button_stops_it_mid_answer(page: Any, fake: FakeServer) -> None:
    before = len(fake.requests)
    slow = Turn(text="Cairo is the warmest. " * 40, chunk_size=4, frame_delay=0.2)
    fake.responder = lambda recorded, wire: (
        slow if recorded.body["messages"][-1]["role"] == "tool" else two_rounds(recorded, wire)
    )
    _add_cell_and_run(page, AWAITED_CELL, "%%agent -m live --background --tools temperature -o handle\n{QUESTION}")
    background = _cell(page, AWAITED_CELL + 1)
    page.wait_for_function(
        f"() => ({CELL_OUTPUT})({AWAITED_CELL + 1}).includes('▍')", timeout=60_000
    )  # the answer is streaming
    background.locator(".jp-OutputArea button", has_text="Stop").click()
    page.wait_for_function(
        f"() => ({CELL_OUTPUT})({AWAITED_CELL + 1}).includes('Stopped with the Stop button')", timeout=60_000
    )
    _add_cell_and_run(page, AWAITED_CELL + 1, "print(handle.done, handle.run.stop_reason)")
    page.wait_for_function(f"() => ({CELL_OUTPUT})({AWAITED_CELL + 2}).trim().length > 0", timeout=60_000)
    after_stop = page.evaluate(CELL_OUTPUT, AWAITED_CELL + 2)
    transcript = page.evaluate(CELL_OUTPUT, AWAITED_CELL + 1)
    closes = _closes_while_open(page, fake)
    sent = len(fake.requests) - before

    assert after_stop.strip() == "True aborted", after_stop
    assert sent == 2, "the background run's two rounds"
    assert "round 2" in transcript and "stopped (aborted)" in transcript, transcript
    streamed = re.search(r"round 2\n(.*?)\n", transcript)
    assert streamed and 0 < len(streamed.group(1)) < len(slow.text), transcript
    # Stop ends the page's request for the streaming answer (not the page's closing): the
    # server sees its client go with most of the answer unsent.
    assert [close.request_index for close in closes] == [before + 1], closes
    assert closes[0].frames_sent < len(slow.text) // slow.chunk_size // 2, closes


def _anthropic_says_direct_browser_access_and_a_refused_origin_names_cors(
    page: Any, address: str, fake: FakeServer
) -> None:
    fake.script(Turn(text="Hello from Claude."))
    _add_cell_and_run(
        page,
        AWAITED_CELL,
        f'ant = op.Runtime("anthropic:claude-sonnet-4-5", api_key="{KEY}", base_url="{fake.url}")\n'
        'claude = await ant.arun("Hi.")\nprint(claude.stop_reason, claude.error, claude.text)',
    )
    page.wait_for_function(f"() => ({CELL_OUTPUT})({AWAITED_CELL + 1}).trim().length > 0", timeout=60_000)
    claude = page.evaluate(CELL_OUTPUT, AWAITED_CELL + 1)
    anthropic_request = fake.requests[-1]
    anthropic_preflight = fake.preflights[-1]

    with FakeServer() as closed:  # a server that allows no other origin
        closed.responder = two_rounds
        _add_cell_and_run(
            page,
            AWAITED_CELL + 1,
            f'closed = op.Runtime("openai:gpt-4.1-mini", base_url="{closed.openai_base_url}")\n'
            "refused = await closed.arun(QUESTION, tools=[temperature])\n"
            "print(refused.stop_reason, refused.error)",
        )
        page.wait_for_function(f"() => ({CELL_OUTPUT})({AWAITED_CELL + 2}).trim().length > 0", timeout=60_000)
        refused = page.evaluate(CELL_OUTPUT, AWAITED_CELL + 2)
        closed_url, closed_requests = closed.url, list(closed.requests)

    assert claude.strip() == "stop None Hello from Claude.", claude
    assert anthropic_request.path == "/v1/messages" and anthropic_request.headers["origin"] == address
    assert anthropic_request.headers["anthropic-dangerous-direct-browser-access"] == "true"
    assert anthropic_preflight["origin"] == address
    assert "anthropic-dangerous-direct-browser-access" in anthropic_preflight["access-control-request-headers"]
    # The browser sends nothing to a server that does not allow the site's origin (its
    # preflight is refused) and tells the page only that the fetch failed: the run fails as a
    # failed connection, tried again as one, and its error names CORS.
    assert refused.startswith(
        f"error openai:gpt-4.1-mini failed: connection failed (ConnectError: Failed to fetch; tried {closed_url}"
        "/v1/chat/completions); in the browser a server that does not allow this page's origin (CORS) fails "
        "the same way: the provider or gateway must answer this site's origin (after 3 retries)"
    ), refused
    assert closed_requests == [], "the browser sent nothing past the refused preflight"
