"""The MCP-replies fuzzer: random ``CallToolResult``s (content blocks of every type with
random fields, ``isError``, structured content) as an MCP server may send them, turned into
a tool's result (``mcp_source.result_value``) inside a run. Whatever the server sent, the
run keeps the invariants of every run (:func:`.conftest.check_run`)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import example, given, reject
from hypothesis import strategies as st
from pydantic import ValidationError

import openprogram_jupyter as op
from openprogram_jupyter.tools.mcp_source import result_value

from .conftest import check_run, counted, fuzz_settings
from .strategies import json_like, texts

types = pytest.importorskip("mcp.types")

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
datas = st.one_of(st.sampled_from([PNG, "", "not base64", "AAAA", " \n"]), texts)
mimes = st.one_of(st.sampled_from(["image/png", "image/jpeg", "image/svg+xml", "audio/wav", ""]), texts)
blocks = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": texts}),
    st.fixed_dictionaries({"type": st.sampled_from(["image", "audio"]), "data": datas, "mimeType": mimes}),
    st.fixed_dictionaries(
        {
            "type": st.just("resource"),
            "resource": st.fixed_dictionaries(
                {"uri": st.sampled_from(["file:///x", "https://e.x/\ud83d", "x:"]), "text": texts}
            ),
        }
    ),
    st.fixed_dictionaries({"type": st.just("resource_link"), "uri": st.just("file:///y"), "name": texts}),
    st.dictionaries(texts, json_like, max_size=3),
)
structured = st.dictionaries(texts, json_like, max_size=3)
replies = st.fixed_dictionaries(
    {"content": st.lists(blocks, max_size=4)}, optional={"isError": st.booleans(), "structuredContent": structured}
)


@fuzz_settings(short_examples=60)
@given(reply=replies)
@example(reply={"content": [{"type": "text", "text": "x\udcffy"}]}).via("a lone surrogate in an MCP text block")
def test_any_mcp_reply_becomes_a_result_of_a_sound_run(reply: dict[str, Any]):
    try:
        result = types.CallToolResult.model_validate(reply)
    except ValidationError:
        reject()  # the SDK refuses it before it reaches us
    counted("mcp")

    @op.function(register_globally=False)
    def remote() -> Any:
        """What an MCP server answered."""
        return result_value(result)

    run = op.Runtime(model=op.ScriptedModel([op.ToolCall(name="remote", arguments={}), "done"])).run(
        "go", tools=[remote]
    )
    check_run(run)
    assert len([m for m in run.messages if isinstance(m, op.ToolResultMessage)]) == 1
