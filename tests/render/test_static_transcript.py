"""The static transcript: what a saved notebook shows without widgets."""

from __future__ import annotations

import base64
import re
import threading
from html.parser import HTMLParser

import pytest
from inert_html import assert_inert

import openprogram_jupyter as op
from openprogram_jupyter.render import render_bundle, render_html, render_markdown, render_plain
from openprogram_jupyter.render.markdown import code_span, fence
from openprogram_jupyter.tools.registry import default_registry

HOSTILE = "<script>alert('x')</script> ``` ```` <img src=x onerror=alert(1)>"


@pytest.fixture(autouse=True)
def clean_registry():
    default_registry.clear()
    yield
    default_registry.clear()


def hostile_run() -> op.Run:
    @op.function
    def echo(text: str) -> str:
        """Say it back."""
        return text

    @op.function
    def crash(text: str) -> str:
        """Raise."""
        raise ValueError(text)

    model = op.ScriptedModel(
        [
            op.AssistantMessage(
                content=[
                    op.ThinkingContent(thinking=HOSTILE),
                    op.TextContent(text=HOSTILE),
                    op.ToolCall(name="echo", arguments={"text": HOSTILE}),
                ]
            ),
            [op.ToolCall(name="crash", arguments={"text": HOSTILE}), op.ToolCall(name=HOSTILE, arguments={})],
            HOSTILE,
        ]
    )
    return op.Runtime(model=model).run(HOSTILE, tools=[echo, crash])


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_html_escapes_everything_and_has_no_script():
    html = render_html(hostile_run())
    parser = _Tags()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert tags <= {"div", "span", "b", "code", "pre", "details", "summary", "img", "p"}, tags  # p: answers
    assert not [attrs for _, attrs in parser.tags if any(name.startswith("on") for name in attrs)]
    assert "script" not in tags and "img" not in tags  # the hostile <img> stayed text
    assert html.count("&lt;script&gt;") >= 6  # prompt, thinking, text, arguments, results, final
    assert_inert(html)


ONE_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def test_html_embeds_only_checked_data_images():
    @op.function
    def picture() -> tuple:
        """A tiny image."""
        return (base64.b64decode(ONE_PIXEL_PNG), "image/png")

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="picture"), "ok"])).run("go", tools=[picture])
    parser = _Tags()
    parser.feed(render_html(run))
    images = [attrs for tag, attrs in parser.tags if tag == "img"]
    assert [attrs["src"] for attrs in images] == [f"data:image/png;base64,{ONE_PIXEL_PNG}"]


def test_html_has_one_details_per_call():
    html = render_html(hostile_run())
    summaries = re.findall(
        r"<details style=\"margin:2px 0 2px 4px\"><summary style=\"display:list-item\"><code>(.*?)</code>", html
    )
    escaped = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; ``` ```` &lt;img src=x onerror=alert(1)&gt;"
    assert summaries == ["echo", "crash", escaped]


def test_markdown_keeps_tool_strings_inside_code_and_the_model_text_inert():
    markdown = render_markdown(hostile_run())
    outside = _outside_code(markdown)
    assert "<script" not in outside and "<img" not in outside
    # Outside code only the model's own text and thinking, with their tags escaped:
    assert outside.count("&lt;script>alert('x')&lt;/script>") == 3  # thinking, text, final answer
    assert outside.replace("&lt;script>alert('x')&lt;/script>", "").count("alert") == 3  # the <img> as text
    assert markdown.count("<script>") >= 6  # every other one is there, inside fences or spans


def _outside_code(markdown: str) -> str:
    """The markdown with fenced blocks and code spans removed (a small CommonMark subset)."""
    kept, fence_ticks = [], None
    for line in markdown.split("\n"):
        stripped = line.strip()
        match = re.match(r"^(`{3,})", stripped)
        if fence_ticks is None and match:
            fence_ticks = match.group(1)
            continue
        if fence_ticks is not None:
            if stripped == fence_ticks:
                fence_ticks = None
            continue
        kept.append(re.sub(r"(`+)(.+?)\1", "", line))
    assert fence_ticks is None, "an unclosed fence"
    return "\n".join(kept)


def test_a_fence_is_longer_than_any_backtick_run_inside():
    assert fence("a ```` b").startswith("`````text\n")
    assert fence("plain").startswith("```text\n")
    assert code_span("x ` y") == "``x ` y``"
    assert code_span("`edge`") == "`` `edge` ``"


def test_plain_shows_calls_results_and_how_it_ended():
    text = render_plain(hostile_run())
    assert "▸ echo(" in text and "→ done" in text
    assert "→ error" in text and "ValueError" in text
    assert "unknown tool" in text
    assert text.rstrip().endswith("— finished")


def test_a_huge_result_is_cut_with_a_note_in_every_format():
    @op.function
    def big() -> str:
        """A lot of text."""
        return "y" * 50_000

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="big"), "done"])).run("go", tools=[big])
    bundle = render_bundle(run)
    for mime, text in bundle.items():
        assert "more characters not shown" in text, mime
        assert "y" * 10_000 not in text, mime


def test_an_aborted_run_says_it_was_stopped_and_keeps_its_transcript():
    started = threading.Event()

    @op.function
    def wait_here(context: op.ToolContext) -> str:
        """Wait until cancelled."""
        started.set()
        context.cancelled.wait(5)
        return "noticed the stop"

    abort = threading.Event()
    model = op.ScriptedModel(
        [op.AssistantMessage(content=[op.TextContent(text="first I wait"), op.ToolCall(name="wait_here")]), "never"]
    )
    runtime = op.Runtime(model=model)
    handle = runtime.start("go", tools=[wait_here], abort=abort)
    assert started.wait(5)
    abort.set()
    run = handle.wait(10)
    assert run.stop_reason == "aborted"
    text = render_plain(run)
    assert "first I wait" in text
    assert "stopped (aborted)" in text
    assert "wait_here" in text


def test_a_nested_run_is_rendered_inside_its_call():
    @op.agentic_function
    def research(topic: str, runtime=None) -> str:
        """Research."""
        return runtime.exec(f"look up {topic}", tools=[])

    model = op.ScriptedModel([op.ToolCall(name="research", arguments={"topic": "owls"}), "owls hoot", "final"])
    run = op.Runtime(model=model).run("go", tools=[research])
    text = render_plain(run)
    lines = text.split("\n")
    call_line = next(i for i, line in enumerate(lines) if "▸ research(" in line)
    nested_line = next(i for i, line in enumerate(lines) if "nested run" in line)
    assert nested_line > call_line
    assert lines[nested_line].startswith(" " * 6)  # indented under the call
    html = render_html(run)
    assert html.index("nested run") > html.index("<code>research</code>")


def test_a_run_without_events_is_rendered_from_its_messages():
    class Bare:
        model = "scripted"
        stop_reason = "stop"
        events = ()
        messages = (
            op.UserMessage(content="hi"),
            op.AssistantMessage(content=[op.ToolCall(id="c1", name="add", arguments={"a": 1})]),
            op.ToolResultMessage(tool_call_id="c1", tool_name="add", content=[op.TextContent(text="2")]),
            op.AssistantMessage(content=[op.TextContent(text="two")]),
        )

    text = render_plain(Bare())
    assert "hi" in text and "▸ add(a=1) → done" in text and "two" in text


def test_run_reprs_use_the_renderers():
    run = op.Runtime(model=op.ScriptedModel(["hello <b>"])).run("hi", tools=[])
    assert run._repr_html_() == render_html(run)
    assert run._repr_markdown_() == render_markdown(run)
    assert repr(run) == render_plain(run)
    assert "hello &lt;b&gt;" in run._repr_html_()


def test_a_tool_traceback_keeps_the_tools_frames_and_drops_the_loops():
    @op.function
    def crash(x: int) -> int:
        """Crash."""
        raise ValueError("bad <x>")

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="crash", arguments={"x": 1}), "ok"])).run(
        "go", tools=[crash]
    )
    html = render_html(run)
    start = html.index("Traceback")
    traceback = html[start : html.index("</pre>", start)]
    assert "in crash" in traceback and "raise ValueError(&quot;bad &lt;x&gt;&quot;)" in traceback
    assert "openprogram_jupyter" not in traceback


def test_a_model_error_reads_as_one_line_with_the_providers_words_collapsed(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = op.Runtime(model="openai:gpt-4.1-mini").run("hi", tools=[])
    summary = (
        "openai:gpt-4.1-mini failed: no API key: set OPENAI_API_KEY (in the environment, a .env file "
        "next to the notebook, Colab's secrets, or %agent key openai) or pass api_key="
    )
    assert str(run.error) == summary and run.error.detail.startswith("OpenAIError")
    assert run.error.kind == "credentials"
    plain = repr(run)
    assert plain.count(summary) == 1 and "ended with an error (round 1, above)" in plain
    assert "(the SDK said: OpenAIError" in plain
    html = run._repr_html_()
    assert html.count("no API key") == 1
    assert '<summary style="display:list-item;color:#57606a;font-size:12px;">the SDK said</summary>' in html
    markdown = run._repr_markdown_()
    assert markdown.count(summary) == 1 and "*the SDK said*" in markdown
