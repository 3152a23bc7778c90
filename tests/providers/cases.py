"""The five providers as test cases: how to point each at the fake server, and how to
read its request bodies (tool choice, calls, results) in a provider-neutral way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeserver import FakeServer

import openprogram_jupyter as op
from openprogram_jupyter.models._provider_errors import RetryPolicy
from openprogram_jupyter.models.base import MessageBuilder, Model, ModelRequest

SECRET = "sk-test-SECRET-0123456789abcdef"
FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05, jitter=0.0)


@dataclass(frozen=True)
class Case:
    prefix: str
    model_id: str
    url: Callable[[FakeServer], str]
    choice: Callable[[dict[str, Any]], Any]  # the mapped tool_choice + parallel setting
    calls: Callable[[dict[str, Any]], list[str]]  # ids (names for Gemini) of the last assistant turn's calls
    results: Callable[[dict[str, Any]], list[tuple[str, str, bool]]]  # (id|name, text, is_error), last group
    frames_before_text: int  # stream frames up to and including the 2nd text piece

    @property
    def model(self) -> str:
        return f"{self.prefix}:{self.model_id}"

    def __str__(self) -> str:
        return self.prefix

    def runtime(self, server: FakeServer, **kwargs: Any) -> op.Runtime:
        runtime = op.Runtime(
            model=self.model, api_key=kwargs.pop("api_key", SECRET), base_url=self.url(server), **kwargs
        )
        runtime.model.retry = FAST_RETRY
        return runtime


def _openai_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    messages = body["messages"]
    last_assistant = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    # Chat Completions has no error flag: an error result says so in its text ("Error: ...").
    return [
        (m["tool_call_id"], m["content"], m["content"].startswith("Error"))
        for m in messages[last_assistant:]
        if m["role"] == "tool"
    ]


def _openai_calls(body: dict[str, Any]) -> list[str]:
    assistant = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    return [c["id"] for c in assistant.get("tool_calls", [])]


def _responses_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    items = body["input"]
    last_call = max(i for i, item in enumerate(items) if item.get("type") == "function_call")
    first_of_turn = last_call
    while first_of_turn > 0 and items[first_of_turn - 1].get("type") == "function_call":
        first_of_turn -= 1
    outputs = [
        (i["call_id"], i["output"] if isinstance(i["output"], str) else i["output"][0]["text"])
        for i in items[first_of_turn:]
        if i.get("type") == "function_call_output"
    ]
    # The Responses API has no error flag either: the text says so.
    return [(call_id, text, text.startswith("Error")) for call_id, text in outputs]


def _responses_calls(body: dict[str, Any]) -> list[str]:
    items = body["input"]
    last_call = max(i for i, item in enumerate(items) if item.get("type") == "function_call")
    ids = []
    index = last_call
    while index >= 0 and items[index].get("type") == "function_call":
        ids.insert(0, items[index]["call_id"])
        index -= 1
    return ids


def _anthropic_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    last_user = body["messages"][-1]["content"]
    return [(b["tool_use_id"], b["content"][0]["text"], b["is_error"]) for b in last_user if b["type"] == "tool_result"]


def _anthropic_calls(body: dict[str, Any]) -> list[str]:
    assistant = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    return [b["id"] for b in assistant["content"] if b["type"] == "tool_use"]


def _gemini_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    parts = body["contents"][-1]["parts"]
    out = []
    for part in parts:
        if "functionResponse" in part:
            response = part["functionResponse"]["response"]
            out.append(
                (part["functionResponse"]["name"], response.get("output", response.get("error")), "error" in response)
            )
    return out


def _gemini_calls(body: dict[str, Any]) -> list[str]:
    model = [c for c in body["contents"] if c["role"] == "model"][-1]
    return [p["functionCall"]["name"] for p in model["parts"] if "functionCall" in p]


def _bedrock_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    last_user = body["messages"][-1]["content"]
    return [
        (b["toolResult"]["toolUseId"], b["toolResult"]["content"][0]["text"], b["toolResult"]["status"] == "error")
        for b in last_user
        if "toolResult" in b
    ]


def _bedrock_calls(body: dict[str, Any]) -> list[str]:
    assistant = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    return [b["toolUse"]["toolUseId"] for b in assistant["content"] if "toolUse" in b]


def _openai_choice(body: dict[str, Any]) -> Any:
    return {k: body[k] for k in ("tool_choice", "parallel_tool_calls") if k in body}


CASES = [
    Case("openai", "gpt-4.1-mini", lambda s: s.openai_base_url, _openai_choice, _openai_calls, _openai_results, 3),
    Case(
        "openai-responses",
        "gpt-4.1-mini",
        lambda s: s.openai_base_url,
        _openai_choice,
        _responses_calls,
        _responses_results,
        6,
    ),
    Case(
        "anthropic",
        "claude-sonnet-4-5",
        lambda s: s.url,
        lambda b: b.get("tool_choice"),
        _anthropic_calls,
        _anthropic_results,
        5,
    ),
    Case(
        "gemini", "gemini-2.5-flash", lambda s: s.url, lambda b: b.get("toolConfig"), _gemini_calls, _gemini_results, 2
    ),
    Case(
        "bedrock",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        lambda s: s.url,
        lambda b: {
            "toolChoice": b.get("toolConfig", {}).get("toolChoice"),
            "additional": b.get("additionalModelRequestFields"),
        },
        _bedrock_calls,
        _bedrock_results,
        3,
    ),
]
CASE_IDS = [c.prefix for c in CASES]


def make_tools() -> list[op.Tool]:
    def add(a: float, b: float) -> float:
        """Add two numbers.

        Args:
            a: First number.
            b: Second number.
        """
        return a + b

    def mul(a: float, b: float) -> float:
        """Multiply two numbers.

        Args:
            a: First number.
            b: Second number.
        """
        return a * b

    def fail(reason: str) -> str:
        """Always raises.

        Args:
            reason: What to say.
        """
        raise RuntimeError(reason)

    return [op.function(f, register_globally=False) for f in (add, mul, fail)]


async def stream_once(model: Model, request: ModelRequest) -> tuple[list[Any], Any]:
    """One round straight through ``Model.stream``: the updates and the message."""
    out = MessageBuilder(model.name)
    updates = [u async for u in model.stream(request, out)]
    return updates, out.message


LIBRARY_PROVIDER = {
    "openai": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "google",
    "bedrock": "aws",
}


def library_cost(case: Case, *, input: int, cache_read: int, cache_write: int, output: int) -> float:
    """What genai-prices itself says the case's model costs for this usage (``input``
    without the cached tokens, as our ``Usage`` counts it)."""
    import genai_prices

    usage = genai_prices.Usage(
        input_tokens=input + cache_read + cache_write,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        output_tokens=output,
    )
    return float(genai_prices.calc_price(usage, case.model_id, provider_id=LIBRARY_PROVIDER[case.prefix]).total_price)
