"""How each failure of the Anthropic SDK becomes a :class:`ProviderError`, exactly: the
provider's message, error type, status, wait and body kept; which statuses and stream
errors are retried; a failed connection shown by the failure underneath it; a missing key
named with how to give one (what mutmut found unpinned in ``AnthropicModel._classify``;
docs/testing.md, "Mutation tool"). A round against the loopback server shows the same
fields on the run's error."""

from __future__ import annotations

import anthropic
import httpx2
import pytest
from fakeserver import Turn

from openprogram_jupyter.core.errors import ProviderError
from openprogram_jupyter.core.messages import UserMessage
from openprogram_jupyter.models._provider_errors import RetryPolicy
from openprogram_jupyter.models.anthropic import INFO, AnthropicModel
from openprogram_jupyter.models.base import ModelRequest

from .cases import CASES, SECRET, make_tools, stream_once

ANTHROPIC = next(case for case in CASES if case.prefix == "anthropic")
REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/messages")


def _classify(exc: Exception) -> ProviderError:
    return AnthropicModel("claude-sonnet-4-5", api_key="sk-ant-test")._classify(exc)


def _status_error(status: int, body: object, headers: dict[str, str] | None = None) -> anthropic.APIStatusError:
    response = httpx2.Response(status, request=REQUEST, headers=headers or {})
    return anthropic.APIStatusError("Error code: from the SDK", response=response, body=body)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(400, False), (408, True), (409, True), (410, False), (429, True), (499, False), (500, True), (529, True)],
)
def test_a_status_error_keeps_the_provider_s_message_type_status_wait_and_body(status, retryable):
    body = {"type": "error", "error": {"type": "busy_error", "message": "try later"}}
    error = _classify(_status_error(status, body, {"retry-after": "2"}))
    assert (error.message, error.status, error.code) == ("try later", status, "busy_error")
    assert (error.retryable, error.retry_after, error.body) == (retryable, 2.0, body)


def test_a_status_error_without_a_message_in_its_body_says_what_the_sdk_said():
    error = _classify(_status_error(400, {"type": "error", "error": {"type": "invalid_request_error"}}))
    assert (error.message, error.code) == ("Error code: from the SDK", "invalid_request_error")


def test_an_error_event_inside_the_stream_keeps_its_words_type_and_body_and_is_retried_when_its_type_says_so():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    error = _classify(_status_error(200, body))
    assert (error.message, error.code, error.retryable, error.body, error.status) == (
        "Overloaded",
        "overloaded_error",
        True,
        body,
        None,
    )
    refused = _classify(_status_error(200, {"type": "error", "error": {"type": "invalid_request_error"}}))
    assert (refused.message, refused.code, refused.retryable) == (
        "Error code: from the SDK",
        "invalid_request_error",
        False,
    )


@pytest.mark.parametrize("link", ["__cause__", "__context__"])
def test_a_connection_error_shows_the_failure_underneath_and_the_address_tried(link):
    failure = anthropic.APIConnectionError(request=REQUEST)
    setattr(failure, link, ConnectionRefusedError("nothing listens"))
    error = _classify(failure)
    assert error.message.startswith(
        "connection failed (ConnectionRefusedError: nothing listens; tried http://127.0.0.1:9/v1/messages)"
    )
    assert error.kind == "connection"


def test_a_connection_error_with_nothing_underneath_shows_itself():
    error = _classify(anthropic.APIConnectionError(request=REQUEST))
    assert error.message.startswith("connection failed (APIConnectionError: Connection error.; tried http://")


def test_missing_credentials_say_how_to_give_a_key_and_other_failures_say_what_they_are():
    missing = _classify(anthropic.CredentialsError("no credentials found"))
    assert missing.message == f"no API key: {INFO.key_hint}"
    assert (missing.detail, missing.kind) == ("CredentialsError: no credentials found", "credentials")
    assert _classify(ValueError("odd")).message == "ValueError: odd"
    assert _classify(ConnectionResetError("reset")).kind == "connection"


async def test_a_round_s_error_carries_the_provider_s_type_and_is_retried_only_for_a_retryable_status(server):
    server.script(*[Turn.http_error(409, "Conflict") for _ in range(3)])
    run = await ANTHROPIC.runtime(server).arun("Hi.", tools=make_tools())
    assert len(server.requests) == 3
    assert (run.error.status, run.error.code) == (409, "api_error")
    server.requests.clear()
    server.script(Turn.http_error(404, "No such model"))
    run = await ANTHROPIC.runtime(server).arun("Hi.", tools=make_tools())
    assert len(server.requests) == 1
    assert (run.error.status, run.error.code) == (404, "not_found_error")


def test_with_an_sdk_that_has_no_credentials_error_other_failures_are_still_classified(monkeypatch):
    monkeypatch.delattr(anthropic, "CredentialsError")
    assert _classify(ValueError("odd")).message == "ValueError: odd"


async def test_the_retry_policy_given_to_the_model_is_the_one_it_follows(server):
    model = AnthropicModel("claude-sonnet-4-5", api_key=SECRET, base_url=server.url, retry=RetryPolicy(max_retries=0))
    server.script(Turn.http_error(500, "internal"), Turn(text="ok"))
    _, reply = await stream_once(model, ModelRequest(messages=[UserMessage(content="Hi.")]))
    assert reply.stop_reason == "error" and len(server.requests) == 1
