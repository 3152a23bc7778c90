"""Anthropic Messages, exactly: the body a round sends (its fields, the history's blocks,
the cache marks, the tool choice, the compaction's beta; what mutmut found unpinned in
models/anthropic.py: docs/testing.md, "Mutation tool"). Asserted on what the loopback
server received from the real SDK client. How the stream is read is in
test_anthropic_stream.py, the failures in test_anthropic_errors.py."""

from __future__ import annotations

import base64

import pytest
from fakeserver import Turn

from openprogram_jupyter.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from openprogram_jupyter.models import _incremental, resolve_model
from openprogram_jupyter.models._tool_search import ANTHROPIC_SEARCH_TOOL
from openprogram_jupyter.models.anthropic import AnthropicModel
from openprogram_jupyter.models.base import ModelRequest

from .cases import FAST_RETRY, SECRET, make_tools, stream_once

MODEL = "anthropic:claude-sonnet-4-5"
TOOLS = [t.spec for t in make_tools()]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-image-bytes").decode()
EPHEMERAL = {"type": "ephemeral"}


def _model(server, name: str = MODEL, **options):
    """The model ``name`` against the loopback server; ``options`` (``max_tokens``,
    ``thinking_budget``) as the model's own arguments."""
    if options:
        model = AnthropicModel(name.removeprefix("anthropic:"), api_key=SECRET, base_url=server.url, **options)
    else:
        model = resolve_model(name, api_key=SECRET, base_url=server.url)
    model.retry = FAST_RETRY
    return model


async def _sent(server, request: ModelRequest, name: str = MODEL, **options) -> tuple[dict, list[str]]:
    """The body a round of ``request`` sends (the round itself answers "ok") and its notices."""
    server.script(Turn(text="ok"))
    updates, reply = await stream_once(_model(server, name, **options), request)
    assert reply.stop_reason == "stop", (reply.error_message, server.rejections)
    return server.requests[-1].body, [u.delta.removeprefix(f"{name}: ") for u in updates if u.kind == "notice"]


def _go(**fields) -> ModelRequest:
    return ModelRequest(messages=[UserMessage(content="go")], prompt_cache=False, **fields)


# -- the request ---------------------------------------------------------------------------


async def test_a_plain_round_sends_the_model_its_output_cap_the_messages_and_asks_for_a_stream(server):
    body, notices = await _sent(server, _go(system="Be brief."))
    assert body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 8192,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "go"}]}],
        "stream": True,
        "system": "Be brief.",
    }
    assert notices == []
    assert server.requests[-1].path == "/v1/messages"


async def test_claude_3_opus_sonnet_and_haiku_get_4096_output_tokens_and_an_own_cap_wins(server):
    body, _ = await _sent(server, _go(), name="anthropic:claude-3-haiku-20240307")
    assert body["max_tokens"] == 4096
    body, _ = await _sent(server, _go(), name="anthropic:claude-3-5-haiku-latest")
    assert body["max_tokens"] == 8192
    body, _ = await _sent(server, _go(), max_tokens=300)
    assert body["max_tokens"] == 300


async def test_the_run_s_budget_lowers_the_output_cap_but_never_raises_it(server):
    body, _ = await _sent(server, _go(max_output_tokens=500))
    assert body["max_tokens"] == 500
    body, _ = await _sent(server, _go(max_output_tokens=50_000))
    assert body["max_tokens"] == 8192


async def test_thinking_raises_the_cap_to_the_budget_plus_1024_within_the_run_s_budget(server):
    body, notices = await _sent(server, _go(reasoning=10_000))
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10_000}
    assert body["max_tokens"] == 11_024 and notices == []
    body, _ = await _sent(server, _go(reasoning=10_000, max_output_tokens=10_500))
    assert body["max_tokens"] == 10_500
    body, _ = await _sent(server, _go(), thinking_budget=2_000)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2_000} and body["max_tokens"] == 8192


async def test_the_run_s_reasoning_setting_wins_over_the_model_s_thinking_budget(server):
    body, _ = await _sent(server, _go(reasoning=3_000), thinking_budget=2_000)
    assert body["thinking"]["budget_tokens"] == 3_000


async def test_a_temperature_is_sent_up_to_1_without_thinking_and_left_out_with_it_saying_so(server):
    body, notices = await _sent(server, _go(temperature=0.5, stop_sequences=("END",)))
    assert (body["temperature"], body["stop_sequences"], notices) == (0.5, ["END"], [])
    body, notices = await _sent(server, _go(temperature=1.5))
    assert body["temperature"] == 1.0
    assert notices == ["Anthropic takes a temperature from 0 to 1: temperature=1.5 was sent as 1"]
    body, notices = await _sent(server, _go(temperature=0.5, stop_sequences=("END",), reasoning=2_048))
    assert "temperature" not in body and body["stop_sequences"] == ["END"]
    assert notices == ["Anthropic with extended thinking takes no temperature here: temperature=0.5 was not sent"]


def _choice(choice, parallel=None) -> ModelRequest:
    return _go(tools=TOOLS, tool_choice=choice, parallel_tool_calls=parallel)


async def test_each_tool_choice_is_anthropic_s_own_and_parallel_off_is_said_except_with_none(server):
    sent = {}
    for choice in ("auto", "required", "none", {"type": "function", "name": "mul"}):
        for parallel in (None, True, False):
            body, _ = await _sent(server, _choice(choice, parallel))
            sent[str(choice), parallel] = body["tool_choice"]
    assert sent == {
        ("auto", None): {"type": "auto"},
        ("auto", True): {"type": "auto"},
        ("auto", False): {"type": "auto", "disable_parallel_tool_use": True},
        ("required", None): {"type": "any"},
        ("required", True): {"type": "any"},
        ("required", False): {"type": "any", "disable_parallel_tool_use": True},
        ("none", None): {"type": "none"},
        ("none", True): {"type": "none"},
        ("none", False): {"type": "none"},
        ("{'type': 'function', 'name': 'mul'}", None): {"type": "tool", "name": "mul"},
        ("{'type': 'function', 'name': 'mul'}", True): {"type": "tool", "name": "mul"},
        ("{'type': 'function', 'name': 'mul'}", False): {
            "type": "tool",
            "name": "mul",
            "disable_parallel_tool_use": True,
        },
    }


async def test_tools_are_declared_in_menu_order_with_their_schemas(server):
    body, _ = await _sent(server, _go(tools=TOOLS))
    assert [t["name"] for t in body["tools"]] == ["add", "mul", "fail"]
    assert body["tools"][0] == {
        "name": "add",
        "description": TOOLS[0]["description"],
        "input_schema": body["tools"][0]["input_schema"],
    }
    assert body["tools"][0]["input_schema"]["required"] == ["a", "b"]


async def test_a_strict_tool_without_a_description_is_sent_closed_strict_and_with_an_empty_description(server):
    spec = {
        "name": "lookup",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "strict": True,
    }
    body, notices = await _sent(server, _go(tools=[spec]))
    assert body["tools"] == [
        {
            "name": "lookup",
            "description": "",
            "input_schema": {
                "type": "object",
                "properties": {"q": {"type": "string"}},
                "required": ["q"],
                "additionalProperties": False,
            },
            "strict": True,
        }
    ]
    assert notices == []


async def test_a_model_without_strict_tool_use_gets_plain_schemas_and_a_notice_naming_it(server):
    strict = [{**spec, "strict": True} for spec in TOOLS[:1]]
    body, notices = await _sent(server, _go(tools=strict), name="anthropic:claude-3-5-haiku-latest")
    assert "strict" not in body["tools"][0]
    assert any("claude-3-5-haiku-latest has no strict tool use" in n for n in notices), notices


async def test_allowed_tools_declares_only_those_saying_so(server):
    body, notices = await _sent(server, _go(tools=TOOLS, allowed_tools=["mul"]))
    assert [t["name"] for t in body["tools"]] == ["mul"]
    assert notices == [
        "Anthropic cannot allow some tools while declaring all: only mul was declared (add, fail left out), "
        "so the cached prompt prefix changes"
    ]


async def test_deferred_tools_come_last_marked_deferred_and_then_the_search_tool(server):
    deferred = [{**TOOLS[2], "defer_loading": True}]
    body, _ = await _sent(server, _go(tools=TOOLS, deferred_tools=deferred, tool_choice="none"))
    assert [(t["name"], t.get("defer_loading")) for t in body["tools"][:3]] == [
        ("add", None),
        ("mul", None),
        ("fail", True),
    ]
    assert body["tools"][3] == ANTHROPIC_SEARCH_TOOL
    assert body["tool_choice"] == {"type": "none"}


async def test_a_history_of_tool_blocks_without_tools_declares_them_as_stubs_and_chooses_none(server):
    call = ToolCall(id="toolu_1", name="lookup", arguments={"q": "x"})
    history = [
        UserMessage(content="go"),
        AssistantMessage(content=[call]),
        ToolResultMessage(tool_call_id="toolu_1", tool_name="lookup", content=[TextContent(text="found")]),
    ]
    body, _ = await _sent(server, ModelRequest(messages=history, prompt_cache=False, parallel_tool_calls=False))
    assert [t["name"] for t in body["tools"]] == ["lookup"]
    assert "defer_loading" not in body["tools"][0]
    assert body["tool_choice"] == {"type": "none"}


async def test_without_tools_or_tool_history_nothing_about_tools_is_sent(server):
    body, _ = await _sent(server, _go(tool_choice="required", parallel_tool_calls=False))
    assert "tools" not in body and "tool_choice" not in body


# -- the history ---------------------------------------------------------------------------


def _again() -> UserMessage:
    return UserMessage(content="and?")


async def _sent_messages(server, history: list) -> list[dict]:
    body, _ = await _sent(server, ModelRequest(messages=history, tools=TOOLS, prompt_cache=False))
    return body["messages"]


async def test_an_earlier_turn_goes_back_as_its_thinking_text_calls_and_one_user_message_of_results(server):
    call = ToolCall(id="toolu_1", name="add", arguments={"a": 1, "b": 2})
    bad_id = ToolCall(id="call.2/x", name="fail", arguments={"reason": "no"})
    turn = AssistantMessage(
        content=[
            ThinkingContent(thinking="Plan.", signature="sig-1"),
            TextContent(text=""),
            TextContent(text="Adding."),
            call,
            bad_id,
        ]
    )
    results = [
        ToolResultMessage(tool_call_id="toolu_1", tool_name="add", content=[TextContent(text="3")]),
        ToolResultMessage(
            tool_call_id="call.2/x",
            tool_name="fail",
            content=[TextContent(text="Error: no"), ImageContent(data=PNG, mime_type="image/png")],
            is_error=True,
        ),
    ]
    sent = await _sent_messages(server, [UserMessage(content="go"), turn, *results, _again()])
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Plan.", "signature": "sig-1"},
            {"type": "text", "text": "Adding."},
            {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}},
            {"type": "tool_use", "id": "call_2_x", "name": "fail", "input": {"reason": "no"}},
        ],
    }
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    assert sent[2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": [{"type": "text", "text": "3"}],
                "is_error": False,
            },
            {
                "type": "tool_result",
                "tool_use_id": "call_2_x",
                "content": [{"type": "text", "text": "Error: no"}, image],
                "is_error": True,
            },
            {"type": "text", "text": "and?"},
        ],
    }
    assert len(sent) == 3


async def test_redacted_thinking_goes_back_as_its_data_and_unsigned_thinking_not_at_all(server):
    turn = AssistantMessage(
        content=[
            ThinkingContent(thinking="", provider_data={"redacted_thinking": "enc-1"}),
            ThinkingContent(thinking="another provider's"),
            ThinkingContent(thinking="", provider_data={"redacted_thinking": 7}),
            TextContent(text="Said."),
        ]
    )
    sent = await _sent_messages(server, [UserMessage(content="go"), turn, _again()])
    assert sent[1]["content"] == [{"type": "redacted_thinking", "data": "enc-1"}, {"type": "text", "text": "Said."}]


async def test_a_user_message_s_pictures_are_sent_and_its_empty_text_left_out(server):
    message = UserMessage(
        content=[TextContent(text="Look:"), TextContent(text=""), ImageContent(data=PNG, mime_type="image/png")]
    )
    sent = await _sent_messages(server, [message])
    assert sent == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ],
        }
    ]


# -- prompt caching --------------------------------------------------------------------------


async def test_the_cache_marks_the_last_block_of_the_newest_message_that_is_not_thinking(server):
    turn = AssistantMessage(content=[TextContent(text="Hm."), ThinkingContent(thinking="Plan.", signature="s")])
    history = [UserMessage(content="go"), turn]
    body, _ = await _sent(server, ModelRequest(messages=history, tools=TOOLS, system="Be brief."))
    assert body["tools"][-1]["cache_control"] == EPHEMERAL
    assert all("cache_control" not in t for t in body["tools"][:-1])
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}]
    assert body["messages"][-1]["content"] == [
        {"type": "text", "text": "Hm.", "cache_control": EPHEMERAL},
        {"type": "thinking", "thinking": "Plan.", "signature": "s"},
    ]
    assert "cache_control" not in str(body["messages"][0])


async def test_a_newest_message_of_thinking_alone_is_sent_unmarked_and_marks_are_not_kept_for_later(server):
    turn = AssistantMessage(content=[ThinkingContent(thinking="", provider_data={"redacted_thinking": "enc"})])
    model = _model(server)
    server.script(Turn(text="ok"), Turn(text="ok"))
    go = UserMessage(content="go")  # the same message in both rounds: its built blocks are reused
    await stream_once(model, ModelRequest(messages=[go]))
    first = server.requests[-1].body["messages"]
    assert first == [{"role": "user", "content": [{"type": "text", "text": "go", "cache_control": EPHEMERAL}]}]
    await stream_once(model, ModelRequest(messages=[go, turn]))
    second = server.requests[-1].body["messages"]
    assert second[0]["content"] == [{"type": "text", "text": "go"}]
    assert second[-1]["content"] == [{"type": "redacted_thinking", "data": "enc"}]


# -- the compaction's beta -------------------------------------------------------------------


class _EveryClient(dict):
    """A stand-in for ``_incremental._RAW_BODIES``: every client's ``post`` takes
    ``content=`` (``True``), or none does (``False``, an older SDK: the body goes as ``body=``)."""

    def __init__(self, takes_content: bool) -> None:
        super().__init__()
        self.takes_content = takes_content

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: object) -> bool:
        return self.takes_content


@pytest.mark.parametrize("takes_content", [True, False], ids=["content", "body"])
async def test_provider_compaction_goes_to_the_beta_path_with_its_header_and_others_do_not(
    server, monkeypatch, takes_content
):
    monkeypatch.setattr(_incremental, "_RAW_BODIES", _EveryClient(takes_content))
    await _sent(server, ModelRequest(messages=[UserMessage(content="go")], provider_compaction=80_000))
    compacting = server.requests[-1]
    assert compacting.path == "/v1/messages?beta=true"
    assert compacting.headers["anthropic-beta"] == "compact-2026-01-12"
    assert compacting.body["context_management"]["edits"][0]["trigger"] == {"type": "input_tokens", "value": 80_000}
    await _sent(server, _go())
    assert server.requests[-1].path == "/v1/messages" and "anthropic-beta" not in server.requests[-1].headers


async def test_a_compaction_s_notice_comes_after_the_round_s_other_notices(server):
    request = ModelRequest(messages=[UserMessage(content="go")], provider_compaction=10_000, temperature=1.5)
    body, notices = await _sent(server, request)
    assert body["context_management"]["edits"][0]["trigger"]["value"] == 50_000
    assert notices == [
        "Anthropic takes a temperature from 0 to 1: temperature=1.5 was sent as 1",
        "Anthropic compacts past no fewer than 50,000 input tokens: its compaction was asked for past 50,000, "
        "not 10,000",
    ]
