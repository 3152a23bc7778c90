"""The shared provider helpers: prices, secrets, retry-after, retry policy, pairing."""

from __future__ import annotations

import email.utils
import subprocess
import sys
import time

import pytest

from openprogram_jupyter.core.messages import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from openprogram_jupyter.models import pricing
from openprogram_jupyter.models._bedrock_controls import model_family
from openprogram_jupyter.models._history import AssistantTurn, paired_history
from openprogram_jupyter.models._provider_common import ProviderError, make_usage, require_module, scrub_secrets
from openprogram_jupyter.models._provider_errors import RetryPolicy, parse_retry_after

from .cases import CASES

# -- missing optional dependencies ------------------------------------------------------


def test_a_missing_provider_dependency_names_the_packages_of_its_extra():
    # Read from the installed package's metadata: right from a clone and from an index alike.
    with pytest.raises(ValueError) as raised:
        require_module("no_such_module_for_this_test", "bedrock")
    assert str(raised.value) == (
        "the 'bedrock' provider needs 'no_such_module_for_this_test', which is not installed "
        "(pip install 'boto3>=1.34')"
    )


def test_an_extra_the_metadata_does_not_know_is_named_as_an_extra():
    from openprogram_jupyter.core._install import install_hint

    assert install_hint("no-such-extra") == "install the [no-such-extra] extra of openprogram-jupyter"


# -- prices ----------------------------------------------------------------------------


def test_known_price_gives_the_cost_in_dollars():
    usage = Usage(input=1_000_000, output=1_000_000)
    assert pricing.cost_of("openai:gpt-4.1-mini", usage) == pytest.approx(0.40 + 1.60)


def test_unknown_model_costs_none_never_a_guess():
    assert pricing.cost_of("openai:some-future-model", Usage(input=10, output=10)) is None
    assert make_usage("openai:some-future-model", 10, 10).cost is None


def test_dated_snapshots_and_region_prefixes_share_the_base_price():
    assert pricing.price_for("openai:gpt-4.1-mini-2025-04-14") == pricing.price_for("openai:gpt-4.1-mini")
    assert pricing.price_for("anthropic:claude-sonnet-4-5-20250929") == pricing.price_for("anthropic:claude-sonnet-4-5")
    assert pricing.price_for("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0") is not None


def test_a_price_of_your_own_without_a_cache_price_makes_cached_tokens_cost_unknown():
    pricing.register_price("openai:my-model", input=1.0, output=2.0)
    try:
        assert pricing.cost_of("openai:my-model", Usage(input=100, output=10)) == pytest.approx(120 / 1e6)
        assert pricing.cost_of("openai:my-model", Usage(input=100, output=10, cache_read=50)) is None
    finally:
        pricing.PRICES.pop("openai:my-model")


def test_a_prompt_past_the_first_tier_costs_the_tiers_price_as_the_library_says():
    import genai_prices

    for prompt in (150_000, 250_000):  # Gemini 2.5 Pro's input price doubles above 200k
        expected = genai_prices.calc_price(
            genai_prices.Usage(input_tokens=prompt, output_tokens=10), "gemini-2.5-pro", provider_id="google"
        ).total_price
        assert pricing.cost_of("gemini:gemini-2.5-pro", Usage(input=prompt, output=10)) == float(expected)
    assert pricing.cost_of("gemini:gemini-2.5-pro", Usage(input=250_000, output=10)) > 2 * pricing.cost_of(
        "gemini:gemini-2.5-pro", Usage(input=125_000, output=5)
    )


def test_users_can_register_a_price():
    pricing.register_price("my-local-model", input=0.0, output=0.0)
    try:
        assert make_usage("openai:my-local-model", 100, 100).cost == 0.0
        pricing.register_price("openai:my-local-model", input=1.0, output=1.0)
        assert make_usage("openai:my-local-model", 500_000, 500_000).cost == pytest.approx(1.0)
    finally:
        pricing.PRICES.pop("my-local-model", None)
        pricing.PRICES.pop("openai:my-local-model", None)


def test_usage_totals_all_token_kinds():
    usage = make_usage("anthropic:claude-sonnet-4-5", input=100, output=50, cache_read=1000, cache_write=10)
    assert usage.total_tokens == 1160
    assert usage.cost == pytest.approx((100 * 3 + 50 * 15 + 1000 * 0.30 + 10 * 3.75) / 1e6)


# -- secrets ---------------------------------------------------------------------------------


def test_scrub_masks_the_given_secret_and_key_shaped_strings():
    text = (
        "bad key sk-proj-abcdef1234567890 and my-own-secret-value, header Bearer tok3n.value, "
        "url ?key=AIzaSyA1234567890abcdefghij x-api-key: abc123def"
    )
    out = scrub_secrets(text, ["my-own-secret-value"])
    for leaked in (
        "abcdef1234567890",
        "my-own-secret-value",
        "tok3n.value",
        "AIzaSyA1234567890abcdefghij",
        "abc123def",
    ):
        assert leaked not in out
    assert "bad key" in out and "header Bearer ***" in out


# -- retries -----------------------------------------------------------------------------------


def test_retry_after_forms():
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "0.25"}) == 0.25
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < parse_retry_after({"retry-after": date}) <= 31
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_retry_policy_waits_retry_after_and_backs_off_otherwise():
    policy = RetryPolicy(max_retries=3, base_delay=0.5, max_delay=3.0, max_retry_after=10, jitter=0.0)
    retryable = ProviderError("x", status=503, retryable=True)
    assert [policy.wait_before(n, retryable) for n in range(4)] == [0.5, 1.0, 2.0, None]
    assert policy.wait_before(0, ProviderError("x", retryable=True, retry_after=4.0)) == 4.0
    assert policy.wait_before(0, ProviderError("x", retryable=True, retry_after=60.0)) is None
    assert policy.wait_before(0, ProviderError("x", status=400)) is None


# -- pairing ---------------------------------------------------------------------------------------


def _result(call_id: str, name: str = "t") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextContent(text=call_id)])


def test_paired_history_orders_results_by_call_fills_gaps_and_drops_strays():
    reply = AssistantMessage(
        content=[ToolCall(name="a", id="1"), ToolCall(name="b", id="2"), ToolCall(name="c", id="3")]
    )
    history = [
        UserMessage(content="go"),
        reply,
        _result("3"),
        _result("stray"),
        _result("1"),
        AssistantMessage(content=[]),
        UserMessage(content="next"),
    ]
    entries = paired_history(history)

    assert [type(e).__name__ for e in entries] == ["UserMessage", "AssistantTurn", "UserMessage"]
    turn = entries[1]
    assert isinstance(turn, AssistantTurn)
    assert [r.tool_call_id for r in turn.results] == ["1", "2", "3"]
    assert turn.results[1].is_error and "no result was recorded" in turn.results[1].text


# -- Bedrock model families ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("anthropic.claude-3-haiku-20240307-v1:0", (True, True, True)),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", (True, True, True)),
        ("anthropic.claude-v2:1", (False, False, False)),
        ("amazon.nova-lite-v1:0", (False, True, True)),
        ("mistral.mistral-large-2407-v1:0", (False, True, False)),
        ("meta.llama3-1-70b-instruct-v1:0", (False, False, False)),
        ("arn:aws:bedrock:us-east-1:123:inference-profile/x", (False, False, False)),
    ],
)
def test_bedrock_model_families(model_id, expected):
    assert model_family(model_id) == expected


# -- imports ---------------------------------------------------------------------------------------


def test_importing_the_package_and_resolving_models_imports_no_sdk():
    models = [case.model for case in CASES]  # one per provider tools are declared to
    code = (
        "import sys, openprogram_jupyter as op\n"
        f"for m in {models!r}:\n"
        "    op.Runtime(model=m, api_key='k', base_url='http://127.0.0.1:9').model\n"
        "heavy = ('openai', 'anthropic', 'boto3', 'botocore', 'httpx_sse', 'httpx2')\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] in heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "", "AWS_REGION": "us-east-1"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_host_the_resolver_says_does_not_exist_is_not_retried_but_one_it_could_not_look_up_is():
    import socket

    from openprogram_jupyter.models._provider_errors import connection_retryable

    def chained(cause: BaseException) -> Exception:
        error = ConnectionError("connect failed")
        error.__cause__ = cause
        return error

    assert not connection_retryable(chained(socket.gaierror(socket.EAI_NONAME, "Name or service not known")))
    assert connection_retryable(chained(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")))
    assert connection_retryable(chained(ConnectionRefusedError(111, "refused")))


def test_backoff_stops_growing_at_its_cap_and_a_retry_after_at_the_cap_is_waited():
    policy = RetryPolicy(max_retries=6, base_delay=0.5, max_delay=3.0, max_retry_after=10, jitter=0.0)
    retryable = ProviderError("x", status=503, retryable=True)
    assert [policy.wait_before(n, retryable) for n in range(7)] == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0, None]
    assert policy.wait_before(0, ProviderError("x", retryable=True, retry_after=10.0)) == 10.0  # exactly the cap
    assert policy.wait_before(0, ProviderError("x", retryable=True, retry_after=10.01)) is None
