"""Prompt caching: where a provider must be asked (Anthropic, Bedrock) every request marks
the tools, the system prompt and the newest message by default, and none with
``prompt_cache=False``; what a reply reports as read from or written to the cache is in
``run.usage``, its cost, the header and the saved transcript — on every provider that
reports it. Asserted on the bodies the loopback server received."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.models.bedrock import caches_prompts
from openprogram_jupyter.render import render_html, render_plain

from .cases import CASES, library_cost, make_tools

BY_PREFIX = {case.prefix: case for case in CASES}


def _script(server):
    server.script(
        Turn(calls=[Call("add", {"a": 2, "b": 3})]),
        Turn(text="5.", input_tokens=20, cached_tokens=3000, cache_write_tokens=400, output_tokens=4),
    )


async def _run(server, prefix: str, **options):
    _script(server)
    runtime = BY_PREFIX[prefix].runtime(server)
    return await runtime.arun("Add 2 and 3.", tools=make_tools(), system="Be brief.", **options)


def _anthropic_marks(body: dict) -> list[str]:
    marks = []
    if body["tools"][-1].get("cache_control") == {"type": "ephemeral"}:
        marks.append("tools")
    if isinstance(body.get("system"), list) and body["system"][-1].get("cache_control") == {"type": "ephemeral"}:
        marks.append("system")
    if body["messages"][-1]["content"][-1].get("cache_control") == {"type": "ephemeral"}:
        marks.append("newest message")
    cached_blocks = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and "cache_control" in b]
    assert len(cached_blocks) <= 1, "only the newest message is marked: Anthropic takes at most four marks"
    return marks


def _bedrock_marks(body: dict) -> list[str]:
    point = {"cachePoint": {"type": "default"}}
    marks = []
    if body["toolConfig"]["tools"][-1] == point:
        marks.append("tools")
    if body["system"][-1] == point:
        marks.append("system")
    if body["messages"][-1]["content"][-1] == point:
        marks.append("newest message")
    assert sum(b == point for m in body["messages"] for b in m["content"]) <= 1
    return marks


MARKS = {"anthropic": _anthropic_marks, "bedrock": _bedrock_marks}


@pytest.mark.parametrize("prefix", ["anthropic", "bedrock"])
async def test_every_request_marks_the_tools_the_system_and_the_newest_message(server, prefix):
    run = await _run(server, prefix)
    assert run.stop_reason == "stop", run.error
    for request in server.requests:
        assert MARKS[prefix](request.body) == ["tools", "system", "newest message"]


@pytest.mark.parametrize("prefix", ["anthropic", "bedrock"])
async def test_prompt_cache_false_sends_no_mark(server, prefix):
    await _run(server, prefix, prompt_cache=False)
    for request in server.requests:
        assert "cache_control" not in str(request.body) and "cachePoint" not in str(request.body)
        assert MARKS[prefix](request.body) == []


def test_bedrock_marks_only_models_that_take_cache_points():
    assert caches_prompts("anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert caches_prompts("us.anthropic.claude-3-7-sonnet-20250219-v1:0")
    assert caches_prompts("amazon.nova-pro-v1:0")
    assert not caches_prompts("anthropic.claude-3-haiku-20240307-v1:0")  # Bedrock refuses a cache point here
    assert not caches_prompts("anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert not caches_prompts("meta.llama3-70b-instruct-v1:0")


async def test_a_bedrock_model_without_prompt_caching_gets_no_cache_point(server):
    _script(server)
    runtime = op.Runtime(
        model="bedrock:meta.llama3-70b-instruct-v1:0",
        api_key=BY_PREFIX["bedrock"].runtime(server).model._api_key,
        base_url=server.url,
    )
    await runtime.arun("Add 2 and 3.", tools=make_tools(), system="Be brief.")
    assert server.requests and all("cachePoint" not in str(r.body) for r in server.requests)


@pytest.mark.parametrize("prefix", ["anthropic", "bedrock"])
async def test_cache_reads_and_writes_are_in_the_usage_the_cost_the_header_and_the_transcript(server, prefix):
    run = await _run(server, prefix)
    assert (run.usage.cache_read, run.usage.cache_write) == (3000, 400)
    last = [m for m in run.messages if m.role == "assistant"][-1].usage
    assert last.cost == pytest.approx(
        library_cost(BY_PREFIX[prefix], input=20, cache_read=3000, cache_write=400, output=4)
    )
    assert last.cost < library_cost(BY_PREFIX[prefix], input=3420, cache_read=0, cache_write=0, output=4) / 2
    for text in (render_plain(run), render_html(run)):
        assert "3,000 cache read, 400 cache write" in text
