"""The context window at its edges: a request estimated at exactly the window is sent and
one token more is not, with the whole refusal; what the estimate counts of each kind of
block; where the window comes from (the setting, the model's own, the model data)
(issue 45 item 3; what mutmut found unpinned in engine/_context.py)."""

from __future__ import annotations

import base64

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
)
from openprogram_jupyter.engine._context import context_window, request_tokens
from openprogram_jupyter.engine.settings import DEFAULTS
from openprogram_jupyter.models.base import ModelRequest
from openprogram_jupyter.models.context_windows import context_window_for

PROMPT = "q" * 398  # with the empty tool list's "[]": 400 characters, 100 tokens


def _run(window: int) -> tuple[op.Run, op.ScriptedModel]:
    model = op.ScriptedModel(["ok"], name="m")
    return op.Runtime(model=model).run(PROMPT, tools=[], context_window=window), model


def test_a_request_of_exactly_the_window_is_sent_and_one_token_more_is_refused_unsent():
    sent, model = _run(100)
    assert sent.text == "ok" and len(model.requests) == 1
    refused, model = _run(99)
    assert refused.stop_reason == "error" and refused.error.kind == "context_length"
    assert refused.error.message == (
        "m: the next request would carry about 100 tokens, more than m's context window of 99: it was not sent. "
        "Start a new session, shorten the history, set compact= (such as 0.8) to summarise older rounds, "
        "or set context_window= if the model takes more"
    )
    assert model.requests == []


def test_the_estimate_counts_pictures_thinking_and_calls_after_the_newest_counted_reply():
    picture = ImageContent(data=base64.b64encode(b"png").decode(), mime_type="image/png")
    history = [
        UserMessage(content="hello"),
        AssistantMessage(content=[TextContent(text="hi")], usage=Usage(input=1_000, cache_read=24, output=6)),
        UserMessage(content=[TextContent(text="x" * 40), picture, picture]),
        AssistantMessage(content=[ThinkingContent(thinking="t" * 81), ToolCall(id="c", name="look", arguments={})]),
    ]
    # 1,030 counted; then 40 + 81 + len("look") + len("{}") = 127 characters: 31 tokens (one
    # character more would make 32); two pictures
    assert request_tokens(ModelRequest(messages=history)) == 1_030 + 31 + 2 * 1_600
    # a reply counted before position 2 (say, before a compaction) is estimated, not trusted
    assert request_tokens(ModelRequest(messages=history), counted_from=2) == (2 + 5 + 2 + 127) // 4 + 3_200


def test_a_reply_whose_provider_counted_a_single_prompt_token_is_trusted():
    history = [
        UserMessage(content="x" * 400),
        AssistantMessage(content=[TextContent(text="ok")], usage=Usage(input=1, output=1)),
    ]
    assert request_tokens(ModelRequest(messages=history)) == 2


def test_the_window_is_the_setting_else_the_model_s_own_whole_number_else_the_model_data():
    class Local(op.ScriptedModel):
        context_window = 8_192

    own = Local(["ok"], name="local-model")
    assert context_window({**DEFAULTS, "context_window": 4_096}, own) == 4_096
    assert context_window(DEFAULTS, own) == 8_192
    odd = op.ScriptedModel(["ok"], name="openai:gpt-4.1-mini")
    odd.context_window = "big"  # not a whole number: the model data's is used
    assert context_window(DEFAULTS, odd) == context_window_for("openai:gpt-4.1-mini") == 1_000_000
    assert context_window(DEFAULTS, op.ScriptedModel(["ok"], name="m")) is None


def test_a_registered_window_is_found_under_the_names_prices_are_and_before_the_model_data(monkeypatch):
    from openprogram_jupyter.models import context_windows

    monkeypatch.setattr(context_windows, "CONTEXT_WINDOWS", {})
    context_windows.register_context_window("my-local-llm", 32_768)
    context_windows.register_context_window("openai:gpt-4.1-mini", 4_000)
    assert context_window_for("my-local-llm") == 32_768
    assert context_window_for("ollama:my-local-llm-2025-01-31") == 32_768  # bare id, dated snapshot
    assert context_window_for("openai:gpt-4.1-mini") == 4_000  # yours before the model data's 1,000,000
    context_windows.register_context_window("my-local-llm", 65_536)  # replaced
    assert context_window(DEFAULTS, op.ScriptedModel(["ok"], name="my-local-llm")) == 65_536
