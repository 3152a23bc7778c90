"""Bedrock's message list, validated and encoded once per message, put into the body botocore builds.

botocore validates every request's parameters against the API's shapes and serializes
them into JSON, walking the whole history each round: 100 ms a round at 2,000 rounds. So
the round's message list is validated and encoded here, each message once
(:meth:`HistoryMemo.encode_items`), as botocore would, and botocore is handed a one-message
stand-in: it validates, serializes, signs and sends the rest of the request as ever, and
the encoded list takes the stand-in's place in the body before the request is signed.
"""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

from ..core._json import JsonObject
from ._incremental import join_list
from ._json_data import to_json_data

__all__ = ["SENDING", "STAND_IN", "check_messages_put", "message_bytes", "put_messages"]

STAND_IN: JsonObject = {"role": "user", "content": [{"text": f"op-messages-{uuid.uuid4().hex}"}]}
SENDING = threading.local()  # the encoded messages of the request this thread is making


def _json_bytes(value: object) -> bytes:
    """JSON as botocore's REST-JSON serializer writes it (``json.dumps`` defaults)."""
    return json.dumps(value).encode("utf-8")


_STAND_IN_BYTES = _json_bytes([STAND_IN])


def message_bytes(message: JsonObject, shape: Any) -> bytes:
    """One Converse message checked against botocore's ``Message`` shape (the error it
    raises for any parameter) and encoded as it serializes it: ``bytes`` as base64."""
    from botocore.exceptions import ParamValidationError
    from botocore.validate import ParamValidator

    report = ParamValidator().validate(message, shape)
    if report.has_errors():
        raise ParamValidationError(report=report.generate_report())
    return _json_bytes(to_json_data(message))


def put_messages(params: JsonObject, **_: Any) -> None:
    """botocore's ``before-call`` (before signing): the stand-in list in the serialized
    body becomes the round's encoded messages."""
    messages = getattr(SENDING, "messages", None)
    if messages is None:
        return
    head, found, tail = params["body"].partition(_STAND_IN_BYTES)
    if found:
        params["body"] = join_list(head, messages, b", ", tail)


def check_messages_put(request: Any, **_: Any) -> None:
    """botocore's ``before-send``: a request still holding the stand-in is never sent."""
    body = request.body if isinstance(request.body, bytes) else b""
    if _STAND_IN_BYTES[1:-1] in body:
        raise RuntimeError("bedrock: the request's messages were not put in its body; nothing was sent")
