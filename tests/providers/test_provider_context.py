"""The context meter and the context window: the header shows the tokens the latest
request carried, as the provider counted them, against the model's window (amber from
80%); a request estimated larger than the window ends the run before it is sent.
Runs through the real SDK clients against the loopback server."""

from __future__ import annotations

import time

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.jupyter._header import header_html
from openprogram_jupyter.models.context_windows import context_window_for
from openprogram_jupyter.render import _format as fmt
from openprogram_jupyter.render import render_plain
from openprogram_jupyter.render.tree import TreeBuilder, tree_of

from .cases import CASE_IDS, CASES, make_tools

BY_PREFIX = {case.prefix: case for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_the_meter_is_the_latest_requests_tokens_as_the_provider_counted_them(case, server):
    server.script(
        Turn(calls=[Call("add", {"a": 1, "b": 2})], input_tokens=30_000), Turn(text="3.", input_tokens=41_234)
    )
    run = await case.runtime(server).arun("Add 1 and 2.", tools=make_tools())
    window = context_window_for(run.model)
    assert window is not None, "every provider's test model has a known window"
    text, fraction = fmt.context_meter(tree_of(run))
    assert fraction == 41_234 / window  # the second round's count, not the first, not a sum
    assert text == f"context 41k of {fmt.compact_count(window)}"
    assert text in render_plain(run).splitlines()[0]


def test_the_meter_turns_amber_from_80_percent_of_the_window():
    def header_at(tokens: int) -> str:
        model = op.ScriptedModel(["ok"], name="m")
        run = op.Runtime(model=model).run("Hi.", context_window=1000)
        run.messages[-1].usage.input = tokens  # as a provider that counted this many would have said
        builder = TreeBuilder()
        for event in run.events:
            builder.apply(event)
        return header_html(builder.root, builder, time.time(), 0)

    assert 'style="color:#57606a;">context 790 of 1k<' in header_at(790)
    assert 'style="color:#9a6700;font-weight:600;">context 800 of 1k<' in header_at(800)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_first_request_larger_than_the_window_is_never_sent(case, server):
    server.script(Turn(text="never"))
    run = await case.runtime(server).arun("word " * 4000, tools=[], context_window=2000)
    assert run.stop_reason == "error" and run.error.kind == "context_length"
    assert "would carry about 5,0" in run.error.message and "context window of 2,000" in run.error.message
    assert server.requests == []


async def test_a_later_round_that_would_not_fit_stops_before_it_is_sent(server):
    @op.function(register_globally=False)
    def read_book() -> str:
        """Return a long text."""
        return "page " * 4000  # about 5,000 tokens

    server.script(Turn(calls=[Call("read_book", {})], input_tokens=41_000), Turn(text="never sent"))
    run = await BY_PREFIX["anthropic"].runtime(server).arun("Read it.", tools=[read_book], context_window=45_000)
    assert len(server.requests) == 1, "the second request was refused before sending"
    assert run.stop_reason == "error" and run.error.kind == "context_length"
    assert run.tool_results[0].text.startswith("page page")  # what was done is kept


def test_the_estimate_starts_from_the_newest_reply_the_provider_counted():
    """The provider's count of the newest counted reply, plus what came after it; a reply
    with no count (a local server's) after it is text like any other."""
    from openprogram_jupyter.core.messages import AssistantMessage, TextContent, Usage, UserMessage
    from openprogram_jupyter.engine._context import CHARS_PER_TOKEN, request_tokens
    from openprogram_jupyter.models.base import ModelRequest

    def reply(text: str, **usage: int) -> AssistantMessage:
        return AssistantMessage(content=[TextContent(text=text)], usage=Usage(**usage))

    history = [
        UserMessage(content="q" * 400),
        reply("a" * 40, input=100, output=10),
        UserMessage(content="r" * 400),
        reply("b" * 80, input=500, cache_read=300, cache_write=7, output=20),
        UserMessage(content="s" * 400),
        reply("c" * 120),
        UserMessage(content="t" * 40),
    ]
    after = (400 + 120 + 40) // CHARS_PER_TOKEN
    assert request_tokens(ModelRequest(messages=history)) == 500 + 300 + 7 + 20 + after
    cached_only = [*history[:3], reply("b" * 80, cache_read=900, output=20), *history[4:]]
    assert request_tokens(ModelRequest(messages=cached_only)) == 900 + 20 + after  # a fully cached prompt counts
    never_counted = [m for m in history if not isinstance(m, AssistantMessage)] + [reply("x" * 8)]
    assert request_tokens(ModelRequest(messages=never_counted)) == (len("[]") + 1240 + 8) // CHARS_PER_TOKEN
