"""Embedded resources from the reference server reach the model as what they are: a text
resource as its text, a text blob as its text, a binary blob (gzip) as a one-line note of
its type and size — never as base64 or a JSON dump."""

from __future__ import annotations

import base64
import gzip

import openprogram_jupyter as op


def _result(runtime, tool, arguments):
    runtime.model = op.ScriptedModel([op.ToolCall(name=tool, arguments=arguments), "done"])
    run = runtime.run("go")
    assert run.stop_reason == "stop", run.error
    [result] = run.tool_results
    return result


def test_a_text_resource_is_its_text(runtime, everything):
    result = _result(runtime, "ev_get-resource-reference", {"resourceType": "Text", "resourceId": 1})
    texts = [block.text for block in result.content]
    assert texts[1].startswith("Resource 1: This is a plaintext resource created at")
    assert '"uri"' not in result.text and "mime" not in result.text


def test_a_text_blob_is_its_decoded_text(runtime, everything):
    result = _result(runtime, "ev_get-resource-reference", {"resourceType": "Blob", "resourceId": 2})
    texts = [block.text for block in result.content]
    assert texts[1].startswith("Resource 2: This is a base64 blob created at")
    assert "UmVzb3VyY2Ug" not in result.text  # its base64


def test_a_binary_blob_is_a_note_of_its_type_and_size(runtime, everything):
    data = "data:text/plain;base64," + base64.b64encode(b"hello " * 100).decode()
    arguments = {"name": "h.gz", "data": data, "outputType": "resource"}
    result = _result(runtime, "ev_gzip-file-as-resource", arguments)
    size = len(gzip.compress(b"hello " * 100, mtime=0))
    assert result.text.startswith("[binary resource demo://resource/session/h.gz: application/gzip, ")
    assert result.text.endswith(" bytes; not sent to the model]")
    assert "H4sI" not in result.text  # a gzip stream's base64
    assert abs(int(result.text.split(", ")[1].split(" ")[0]) - size) < 10  # node's gzip header may differ slightly
