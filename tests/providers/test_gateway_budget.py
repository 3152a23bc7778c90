"""An OpenAI-compatible gateway's refusal of a spent budget (LiteLLM's proxy:
``{"error": {"type": "budget_exceeded", ...}}``, HTTP 400, or 429 from other gateways)
ends the run at once with one line — "the course's budget for you is spent" and the
gateway's own words — read from the error's fields, never from its words. Through the
real ``openai`` SDK against the loopback server."""

from __future__ import annotations

import time

import pytest
from fakeserver import Turn

import openprogram_jupyter as op
from openprogram_jupyter.models._provider_errors import budget_spent

GATEWAY_WORDS = "Budget has been exceeded! Current cost: 0.51, Max budget: 0.5"
MODELS = ["openai:gpt-4.1-mini", "openai-responses:gpt-4.1-mini"]


def litellm_refusal(message: str = GATEWAY_WORDS, *, kind: str = "budget_exceeded", status: int = 400) -> dict:
    """The body LiteLLM's proxy sends (its ``ProxyException``: ``code`` is the status as a string)."""
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def student_runtime(server, model: str) -> op.Runtime:
    """A Runtime as a student's notebook makes it: the default retry policy, a gateway key."""
    return op.Runtime(model=model, base_url=server.openai_base_url, api_key="sk-student-gateway-key-0001")


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("status", [400, 429])
async def test_a_spent_budget_ends_the_run_at_once_with_one_line(server, model, status):
    server.script(*[Turn(status=status, error_body=litellm_refusal(status=status)) for _ in range(4)])
    run = await student_runtime(server, model).arun("Hi.")
    after_the_refusal = time.monotonic() - server.requests[0].read_at  # the SDK's import and setup not counted

    assert run.stop_reason == "error"
    assert len(server.requests) == 1, "a spent budget is asked once: neither the SDK nor the package retries it"
    assert after_the_refusal < 0.4, f"the run ended {after_the_refusal:.2f} s after the refusal"
    assert (run.error.kind, run.error.status, run.error.code, run.error.retryable) == (
        "budget",
        status,
        "budget_exceeded",
        False,
    )
    assert str(run.error) == (
        f"{model} failed, HTTP {status}, budget_exceeded: the course's budget for you is spent; "
        f"the gateway says: {GATEWAY_WORDS}"
    )
    saved = op.AssistantMessage.model_validate_json(run.messages[-1].model_dump_json())
    assert saved.error is not None and saved.error.kind == "budget"  # the kind survives a saved notebook


async def test_the_same_words_under_another_type_are_an_ordinary_refusal(server):
    server.script(Turn(status=400, error_body=litellm_refusal(kind="invalid_request_error")))
    run = await student_runtime(server, "openai:gpt-4.1-mini").arun("Hi.")

    assert (run.error.kind, run.error.code) == ("bad_request", "invalid_request_error")
    assert "budget for you" not in str(run.error)


async def test_the_gateways_words_are_one_line_and_escaped_in_the_transcript(server):
    words = 'Budget spent.\n<img src=x onerror="alert(1)"> Max budget: 0.5'
    server.script(Turn(status=400, error_body=litellm_refusal(words)))
    run = await student_runtime(server, "openai:gpt-4.1-mini").arun("Hi.")

    line = "the course's budget for you is spent; the gateway says: Budget spent. <img"
    assert line in str(run.error) and "\n" not in str(run.error)
    html = run._repr_html_()
    assert "<img" not in html and "the course&#x27;s budget for you is spent" in html.replace("&#39;", "&#x27;")
    assert "&lt;img src=x onerror=" in html


@pytest.mark.parametrize(
    ("body", "spent"),
    [
        ({"error": {"type": "budget_exceeded"}}, True),
        ({"error": {"type": "invalid_request_error", "code": "budget_exceeded"}}, True),
        ({"type": "budget_exceeded", "message": "spent"}, True),
        ({"error": {"type": "Budget_Exceeded"}}, False),  # compared exactly
        ({"error": {"message": "Budget has been exceeded!", "type": "invalid_request_error"}}, False),
        ({"error": {"type": ["budget_exceeded"]}}, False),
        ("budget_exceeded", False),
        (None, False),
    ],
)
def test_a_spent_budget_is_read_from_the_type_or_code_field(body, spent):
    assert budget_spent(body) is spent
