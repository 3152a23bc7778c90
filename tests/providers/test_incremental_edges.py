"""The request body encoded incrementally (``models/_incremental``), at its edges: the bytes
are the SDKs' own encoding, a system prompt built anew each round is kept only while it is
equal, and whether a client can take a body already encoded."""

from __future__ import annotations

import math

import pytest

from openprogram_jupyter.core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from openprogram_jupyter.models._history import AssistantTurn
from openprogram_jupyter.models._incremental import HistoryMemo, encode_json, takes_raw_bodies


def test_a_body_is_compact_utf8_with_its_text_unescaped():
    body = {"messages": [{"role": "user", "content": "café ☕"}], "stream": True}
    assert encode_json(body) == '{"messages":[{"role":"user","content":"café ☕"}],"stream":true}'.encode()


def test_a_body_holding_nan_or_infinity_is_refused_not_sent_as_invalid_json():
    for number in (math.nan, math.inf):
        with pytest.raises(ValueError, match="JSON compliant"):
            encode_json({"temperature": number})


def test_a_system_prompt_built_anew_is_the_same_object_while_equal_and_the_new_one_once_changed():
    memo = HistoryMemo()
    first = {"role": "system", "content": "Be brief."}
    assert memo.same(first) is first
    assert memo.same({"role": "system", "content": "Be brief."}) is first
    changed = {"role": "system", "content": "Be thorough."}
    assert memo.same(changed) is changed
    assert memo.same({"role": "system", "content": "Be thorough."}) is changed


class _NewSdk:
    async def post(self, path: str, *, cast_to: object, body: object = None, content: bytes | None = None) -> None:
        """A client whose ``post`` takes an encoded body (``content=``)."""


class _OldSdk:
    async def post(self, path: str, *, cast_to: object, body: object = None) -> None:
        """A client from before ``content=``: it is handed the body to encode itself."""


def test_only_a_client_whose_post_takes_content_is_sent_an_encoded_body_asked_once_per_class(monkeypatch):
    from openprogram_jupyter.models import _incremental

    monkeypatch.setattr(_incremental, "_RAW_BODIES", {})  # the answers earlier tests left are not read
    assert takes_raw_bodies(_NewSdk()) is True
    assert takes_raw_bodies(_OldSdk()) is False
    assert takes_raw_bodies(_NewSdk()) is True and takes_raw_bodies(_OldSdk()) is False  # from the answers kept
    assert _incremental._RAW_BODIES == {_NewSdk: True, _OldSdk: False}


def _reply(n: int) -> list:
    call = ToolCall(id=f"call_{n}", name="add", arguments={"a": n})
    result = ToolResultMessage(tool_call_id=f"call_{n}", tool_name="add", content=[TextContent(text=str(n))])
    return [AssistantMessage(content=[TextContent(text=f"step {n}"), call]), result]


def test_each_round_converts_only_what_is_new_and_the_last_group():
    converted: list[str] = []

    def step(out: list, entry: UserMessage | AssistantTurn) -> None:
        name = entry.content if isinstance(entry, UserMessage) else entry.message.text
        converted.append(str(name))
        out.append({"source": name})

    memo, history = HistoryMemo(), [UserMessage(content="go")]
    for n in range(4):
        history = [*history, *_reply(n)]
        converted.clear()
        wire = memo.build(history, step)
        assert converted == (["go"] if n == 0 else [f"step {n - 1}"]) + [f"step {n}"]
        assert wire == [{"source": "go"}, *({"source": f"step {k}"} for k in range(n + 1))]
    converted.clear()
    assert memo.build(history, step) == wire  # the same history again (a retried round)
    assert converted == ["step 3"]


def test_each_round_encodes_only_the_items_not_encoded_the_round_before():
    encoded: list[int] = []

    def encode(item: dict) -> bytes:
        encoded.append(item["n"])
        return encode_json(item)

    memo, items = HistoryMemo(), []
    for n in range(4):
        items = [*items, {"n": n}]
        encoded.clear()
        assert memo.encode_items(items, encode) == [encode_json(item) for item in items]
        assert encoded == [n]
