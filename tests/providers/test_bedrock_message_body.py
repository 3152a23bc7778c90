"""Bedrock's message list, checked and encoded once per message, put into the body botocore
builds: the bytes sent are the ones botocore itself would have written for the whole
request, a message botocore would refuse is refused the same way, and a body still holding
the stand-in is never sent."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import boto3
import pytest
from botocore.exceptions import ParamValidationError

from openprogram_jupyter.models._bedrock_body import (
    SENDING,
    STAND_IN,
    check_messages_put,
    message_bytes,
    put_messages,
)


@pytest.fixture(scope="module")
def message_shape():
    client = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
    return client.meta.service_model.shape_for("Message")


@pytest.fixture
def sending():
    yield SENDING
    SENDING.messages = None


def test_a_message_is_encoded_as_botocore_writes_it_with_bytes_as_base64(message_shape):
    message = {
        "role": "user",
        "content": [{"text": "Héllo"}, {"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}],
    }
    encoded = message_bytes(message, message_shape)
    assert encoded == json.dumps(
        {"role": "user", "content": [{"text": "Héllo"}, {"image": {"format": "png", "source": {"bytes": "iVBORw=="}}}]}
    ).encode("utf-8")
    assert b"\\u00e9" in encoded  # ASCII-escaped, as json.dumps' defaults write it


def test_a_message_botocore_would_refuse_is_refused_naming_the_parameter(message_shape):
    with pytest.raises(ParamValidationError, match=r"content\[0\]\.text") as refused:
        message_bytes({"role": "user", "content": [{"text": 5}]}, message_shape)
    assert "Invalid type" in str(refused.value)
    with pytest.raises(ParamValidationError, match="role"):
        message_bytes({"content": [{"text": "hi"}]}, message_shape)


def stand_in_body() -> bytes:
    return json.dumps({"modelId": "m", "messages": [STAND_IN], "system": []}).encode("utf-8")


def test_the_stand_in_becomes_the_round_s_messages_in_order(sending):
    first, second = {"role": "user", "content": [{"text": "a"}]}, {"role": "assistant", "content": [{"text": "b"}]}
    sending.messages = [json.dumps(first).encode(), json.dumps(second).encode()]
    params = {"body": stand_in_body()}
    put_messages(params, model=None)
    assert params["body"] == json.dumps({"modelId": "m", "messages": [first, second], "system": []}).encode("utf-8")
    assert json.loads(params["body"])["messages"] == [first, second]


def test_an_empty_history_is_an_empty_list(sending):
    sending.messages = []
    params = {"body": stand_in_body()}
    put_messages(params)
    assert json.loads(params["body"])["messages"] == []


def test_a_body_is_left_as_it_is_when_no_round_is_being_sent_or_it_holds_no_stand_in(sending):
    params = {"body": stand_in_body()}
    sending.messages = None
    put_messages(params)
    assert params["body"] == stand_in_body()
    sending.messages = [b'{"role": "user"}']
    other = {"body": b'{"messages": []}'}
    put_messages(other)
    assert other["body"] == b'{"messages": []}'


def test_a_body_built_on_a_thread_that_sends_no_round_is_left_as_it_is():
    # SENDING is per thread: a thread that never sent a round has no messages at all
    params = {"body": stand_in_body()}
    failures: list[BaseException] = []

    def build() -> None:
        try:
            put_messages(params)
        except BaseException as exc:  # handed to the test's thread
            failures.append(exc)

    worker = threading.Thread(target=build)
    worker.start()
    worker.join(5)
    assert failures == []
    assert params["body"] == stand_in_body()


def test_a_request_still_holding_the_stand_in_is_never_sent():
    with pytest.raises(RuntimeError) as refused:
        check_messages_put(SimpleNamespace(body=stand_in_body()))
    assert str(refused.value) == "bedrock: the request's messages were not put in its body; nothing was sent"
    # the stand-in's text alone, wherever it stands, is enough to refuse the request
    inner = json.dumps(STAND_IN).encode("utf-8")
    with pytest.raises(RuntimeError):
        check_messages_put(SimpleNamespace(body=b'{"messages": [' + inner + b", {}]}"))


def test_a_request_whose_messages_were_put_or_whose_body_is_no_bytes_is_sent():
    check_messages_put(SimpleNamespace(body=b'{"messages": [{"role": "user", "content": [{"text": "hi"}]}]}'))
    check_messages_put(SimpleNamespace(body=None))
    check_messages_put(SimpleNamespace(body=stand_in_body().decode()))  # botocore's bodies are bytes
