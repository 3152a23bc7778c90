"""The request body encoded incrementally (``models/_incremental``), at its edges: the bytes
are the SDKs' own encoding, a system prompt built anew each round is kept only while it is
equal, and whether a client can take a body already encoded."""

from __future__ import annotations

import math

import pytest

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


def test_only_a_client_whose_post_takes_content_is_sent_an_encoded_body_asked_once_per_class():
    assert takes_raw_bodies(_NewSdk()) is True
    assert takes_raw_bodies(_OldSdk()) is False
    assert takes_raw_bodies(_NewSdk()) is True and takes_raw_bodies(_OldSdk()) is False  # from the answers kept
