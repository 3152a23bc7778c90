"""A provider's own tool search, exactly: the notice of what it searched and loaded (the
query as the model gave it, words that are not a query shown as JSON, a failure without a
code), read from the raw events Anthropic and OpenAI Responses stream, through the real
SDK clients against the loopback server; and which tools a provider with its own search
declares without deferring (what mutmut found unpinned in models/_tool_search.py;
docs/testing.md, "Mutation tool")."""

from __future__ import annotations

from fakeserver import Turn
from fakeserver.wire import sse

from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models import resolve_model
from openprogram_jupyter.models._tool_search import eager_specs, search_notice
from openprogram_jupyter.models.base import ModelRequest

from .cases import FAST_RETRY, SECRET, make_tools, stream_once

ADD, MUL, FAIL = (t.spec for t in make_tools())


def _event(kind: str, **fields: object) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


async def _notices(server, model_name: str, base_url: str, frames: list[bytes]) -> list[str]:
    """The notices a round makes of these raw stream ``frames``."""
    model = resolve_model(model_name, api_key=SECRET, base_url=base_url)
    model.retry = FAST_RETRY
    server.script(Turn(raw_frames=frames))
    updates, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="go")]))
    assert reply.stop_reason == "stop", reply.error_message
    return [u.delta.removeprefix(f"{model_name}: ") for u in updates if u.kind == "notice"]


def test_the_notice_shows_a_query_as_the_model_wrote_it_and_other_words_as_sorted_json():
    assert search_notice("X's", "café menus", ["weather", "forecast"]) == (
        'X\'s tool search: searched for "café menus", loaded weather, forecast'
    )
    assert search_notice("X's", {"q": "café", "limit": 2}, []) == (
        'X\'s tool search: searched for "{\\"limit\\": 2, \\"q\\": \\"café\\"}", loaded no tool'
    )


async def test_anthropic_s_search_without_a_query_or_an_error_code_is_shown_as_it_came(server):
    use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {}}
    failed = {"type": "tool_search_tool_result_error"}
    result = {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": failed}
    frames = [
        _event("message_start", message={"usage": {"input_tokens": 5, "output_tokens": 1}}),
        _event("content_block_start", index=0, content_block=use),
        _event("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"words": '}),
        _event("content_block_delta", index=0, delta={"type": "input_json_delta"}),
        _event("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '"sunny"}'}),
        _event("content_block_stop", index=0),
        _event("content_block_start", index=1, content_block=result),
        _event("content_block_stop", index=1),
        _event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 3}),
        _event("message_stop"),
    ]
    said = await _notices(server, "anthropic:claude-sonnet-4-5", server.url, frames)
    assert said == [
        'Anthropic\'s tool search: searched for "{\\"words\\": \\"sunny\\"}", which failed (no error code given): '
        "no tool was loaded"
    ]


async def test_responses_search_without_a_query_is_shown_as_its_arguments(server):
    call = {"type": "tool_search_call", "id": "ts_1", "call_id": "tsc_1", "arguments": {"words": "sunny"}}
    output = {"type": "tool_search_output", "id": "tso_1", "call_id": "tsc_1", "tools": [{"name": "weather"}]}
    frames = [
        _event("response.output_item.done", item=call),
        _event("response.output_item.done", item=output),
        _event("response.completed", response={"status": "completed"}),
    ]
    said = await _notices(server, "openai-responses:gpt-4.1-mini", server.openai_base_url, frames)
    assert said == ['OpenAI Responses\' tool search: searched for "{\\"words\\": \\"sunny\\"}", loaded weather']


def test_a_provider_with_its_own_search_declares_the_tools_it_is_given_less_the_deferred_and_the_package_s_search():
    search = {"name": "tool_search", "description": "Find tools.", "parameters": {"type": "object"}}
    asking = ModelRequest(messages=[], tools=[ADD, MUL, FAIL, search], deferred_tools=[MUL])
    assert eager_specs(asking) == [ADD, FAIL]
    assert eager_specs(asking, [FAIL, MUL, search]) == [FAIL], "the given specs (say, the allowed ones), not all"
    not_asking = ModelRequest(messages=[], tools=[ADD, MUL])
    assert eager_specs(not_asking, [MUL]) == [MUL]
