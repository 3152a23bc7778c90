"""The rules every provider's round follows, on a provider of the test's own (no SDK, no
server): retries only while nothing streamed, each wait announced with its number, the
failed reply's words (status, code, retries, a refused wait, which key to check, the SDK's
own words, every secret masked), a request that cannot be translated failing at once, the
notices named by the model, the round's wire capture, a strict tool's nulls read as "not
given", a twin for another run, warm-up, usage, and the sampling fields' notices (issue 45).
The loopback tests (``test_provider_errors.py``, ``test_provider_retry_waits.py``) show the
real providers keep the same rules."""

from __future__ import annotations

import asyncio
import os

import pytest

from openprogram_jupyter.core.errors import ProviderError
from openprogram_jupyter.core.messages import AssistantMessage, UserMessage
from openprogram_jupyter.models._provider_common import ProviderModel, make_usage, sampling_fields
from openprogram_jupyter.models._provider_errors import RetryPolicy
from openprogram_jupyter.models._wire import WireLog
from openprogram_jupyter.models.base import MessageBuilder, ModelRequest

KEY = "sk-test-Zq8HvN3pLx7Wc2RtYb6Kd9Fs"


class Scripted(ProviderModel):
    """A provider whose attempts follow a script: an exception is raised (after the
    pieces of text before it stream), a string streams as text and finishes."""

    provider = "fake"
    key_variables = ("FAKE_API_KEY", "FAKE_OTHER_KEY")

    def __init__(self, script: list[object], model_id: str = "m1", **options: object) -> None:
        super().__init__(model_id, **options)  # type: ignore[arg-type]
        self.script = list(script)
        self.attempts = 0
        self.notices: list[str] = []

    def _prepare(self, request: ModelRequest) -> tuple[dict, list[str]]:
        if request.temperature == -1:
            raise ValueError(f"cannot send this picture (key {KEY}, {os.environ.get('FAKE_API_KEY')})")
        return {"model": self.model_id, "key": os.environ.get("FAKE_API_KEY")}, list(self.notices)

    async def _attempt(self, payload: object, out: MessageBuilder):  # type: ignore[override]
        self.attempts += 1
        step = self.script.pop(0)
        if isinstance(step, tuple):  # (text streamed first, then the failure)
            yield out.text_delta(step[0])
            raise step[1]
        if isinstance(step, Exception):
            raise step
        if isinstance(step, list):  # tool calls: (name, arguments) each
            for name, arguments in step:
                for update in out.tool_call(name, dict(arguments), f"id-{name}"):
                    yield update
            out.finish()
            return
        yield out.text_delta(str(step))
        out.finish()

    def _classify(self, exc: Exception) -> ProviderError:
        return ProviderError(f"classified: {exc}", kind="other", retryable=isinstance(exc, ConnectionError))


FAST = RetryPolicy(max_retries=3, base_delay=0.001, max_delay=0.001, jitter=0.0)


def _round(model: Scripted, **request: object) -> tuple[AssistantMessage, list]:
    async def go():
        out = MessageBuilder()
        updates = [u async for u in model.stream(ModelRequest(messages=[UserMessage(content="hi")], **request), out)]
        return out.message, updates

    return asyncio.run(go())


@pytest.fixture(autouse=True)
def no_fake_keys(monkeypatch):
    monkeypatch.delenv("FAKE_API_KEY", raising=False)
    monkeypatch.delenv("FAKE_OTHER_KEY", raising=False)


def busy(status: int = 503, **fields: object) -> ProviderError:
    return ProviderError("busy", status=status, code="overloaded", retryable=True, **fields)  # type: ignore[arg-type]


def test_a_retryable_failure_is_retried_with_each_wait_announced_then_the_reply_streams():
    model = Scripted([busy(), busy(), "hello"], retry=FAST)
    message, updates = _round(model)
    assert model.attempts == 3 and message.stop_reason == "stop" and message.content[0].text == "hello"
    waits = [u.retry_wait for u in updates if u.kind == "retry_wait"]
    assert [(w.retry, w.max_retries, w.reason, w.message) for w in waits] == [
        (1, 3, "overloaded (HTTP 503)", "busy"),
        (2, 3, "overloaded (HTTP 503)", "busy"),
    ]


def test_the_retries_end_at_the_policy_s_count_with_the_count_in_the_error():
    model = Scripted([busy()] * 4, retry=FAST)
    message, _ = _round(model)
    assert model.attempts == 4
    assert message.error_message == "fake:m1 failed, HTTP 503, overloaded: busy (after 3 retries)"
    one = Scripted([busy(), busy()], retry=RetryPolicy(max_retries=1, base_delay=0.001, jitter=0.0))
    assert _round(one)[0].error_message == "fake:m1 failed, HTTP 503, overloaded: busy (after 1 retry)"


def test_a_failure_after_something_streamed_is_not_retried():
    model = Scripted([("partial", busy()), "never"], retry=FAST)
    message, updates = _round(model)
    assert model.attempts == 1 and not [u for u in updates if u.kind == "retry_wait"]
    assert message.content[0].text == "partial"
    assert message.error_message == "fake:m1 failed, HTTP 503, overloaded: busy"


def test_a_failure_that_is_not_retryable_ends_at_once_with_its_words():
    model = Scripted([ProviderError("", kind="bad_request")], retry=FAST)
    message, _ = _round(model)
    assert model.attempts == 1
    assert message.error_message == "fake:m1 failed: no message"
    assert message.error.kind == "bad_request" and message.error.provider == "fake"
    classified = Scripted([RuntimeError("boom")], retry=FAST)
    assert _round(classified)[0].error_message == "fake:m1 failed: classified: boom"
    transport = Scripted([ConnectionError("reset"), "ok"], retry=FAST)
    assert _round(transport)[0].content[0].text == "ok"


def test_a_wait_longer_than_the_cap_ends_the_round_stating_it():
    model = Scripted([busy(429, retry_after=90.0)], retry=RetryPolicy(max_retry_after=20.0))
    message, _ = _round(model)
    assert model.attempts == 1
    assert message.error_message == (
        "fake:m1 failed, HTTP 429, overloaded: busy; the server asked to wait 90 s before trying again, "
        "longer than max_retry_after (20 s), so the round ended without waiting"
    )


def test_the_sdk_s_words_follow_and_every_secret_is_masked():
    model = Scripted([ProviderError(f"bad key {KEY}", status=400, detail=f"raw {KEY}")], api_key=KEY, retry=FAST)
    message, _ = _round(model)
    assert message.error_message == "fake:m1 failed, HTTP 400: bad key ***\n\nThe SDK said: raw ***"
    assert message.error.summary == "fake:m1 failed, HTTP 400: bad key ***" and message.error.detail == "raw ***"
    assert message.error.status == 400 and message.error.retryable is False


def test_a_refused_key_names_where_to_check(monkeypatch):
    refused = ProviderError("no", status=401, kind="auth")
    given = Scripted([refused], api_key=KEY, retry=FAST)
    assert _round(given)[0].error_message == "fake:m1 failed, HTTP 401: no; check the api_key= given to the model"
    assert _round(Scripted([refused], retry=FAST))[0].error_message == "fake:m1 failed, HTTP 401: no"
    monkeypatch.setenv("FAKE_OTHER_KEY", "other-value")
    named = _round(Scripted([refused], retry=FAST))[0].error_message
    assert named.startswith("fake:m1 failed, HTTP 401: no; check the key in FAKE_OTHER_KEY (")
    # a key given that is not the variable's: the variable is not the one refused
    assert _round(Scripted([refused], api_key=KEY, retry=FAST))[0].error_message.endswith(
        "; check the api_key= given to the model"
    )


def test_a_request_that_cannot_be_translated_fails_at_once_masked():
    model = Scripted(["never"], api_key=KEY)
    message, updates = _round(model, temperature=-1)
    assert model.attempts == 0 and updates == []
    assert message.error_message == "fake:m1 failed: cannot send this picture (key ***, None)"
    assert message.error.kind == "bad_request"


def test_notices_are_named_by_the_model_before_the_reply():
    model = Scripted(["ok"])
    model.notices = ["temperature was not sent"]
    _, updates = _round(model)
    assert (updates[0].kind, updates[0].delta) == ("notice", "fake:m1: temperature was not sent")
    assert model.wire_request(ModelRequest(messages=[UserMessage(content="hi")])) == (
        {"model": "m1", "key": None},
        ["fake:m1: temperature was not sent"],
    )


def test_a_model_needs_an_id_and_a_twin_shares_all_but_its_memo():
    with pytest.raises(ValueError) as refused:
        Scripted([], model_id="")
    assert str(refused.value) == "fake: a model id is required, e.g. 'fake:MODEL'"
    model = Scripted(["ok"], api_key=KEY, base_url="http://127.0.0.1:9", retry=FAST)
    twin = model.for_another_run()
    assert (twin.name, twin.base_url, twin.retry, twin._api_key) == ("fake:m1", "http://127.0.0.1:9", FAST, KEY)
    assert twin._clients is model._clients and twin._history is not model._history
    assert KEY not in repr(model)


def test_sampling_fields_send_what_the_provider_takes_and_say_what_it_does_not():
    request = ModelRequest(messages=[], temperature=2.5, stop_sequences=["END"])
    assert sampling_fields(request, "p", temperature="temperature", stop="stop", max_temperature=1.0) == (
        {"temperature": 1.0, "stop": ["END"]},
        ["p takes a temperature from 0 to 1: temperature=2.5 was sent as 1"],
    )
    assert sampling_fields(request, "p", temperature=None, stop=None) == (
        {},
        [
            "p takes no temperature here: temperature=2.5 was not sent",
            "p takes no stop sequences: stop_sequences=['END'] were not sent",
        ],
    )
    assert sampling_fields(request, "p", temperature="t", stop=None)[0] == {"t": 2.0}  # 2 unless told
    at_max = ModelRequest(messages=[], temperature=2.0)
    assert sampling_fields(at_max, "p", temperature="t", stop="s") == ({"t": 2.0}, [])
    assert sampling_fields(ModelRequest(messages=[]), "p", temperature="t", stop="s") == ({}, [])


def test_usage_counts_no_token_below_zero():
    usage = make_usage("nobody:model", input=-5, output=None, cache_read=3, cache_write=2)  # type: ignore[arg-type]
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (0, 0, 3, 2, 5)
    assert usage.cost is None


def test_the_error_fields_keep_the_code_and_whether_it_could_be_retried_and_a_waited_retry_after_says_nothing():
    model = Scripted([busy(429, retry_after=0.001)] * 4, retry=FAST)
    message, _ = _round(model)
    assert message.error_message == "fake:m1 failed, HTTP 429, overloaded: busy (after 3 retries)"
    assert (message.error.code, message.error.retryable, message.error.status) == ("overloaded", True, 429)


def test_a_key_variable_s_value_is_masked_whatever_its_shape(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "correct horse battery staple")
    said = "the key correct horse battery staple is wrong"
    message, _ = _round(Scripted([ProviderError(said, status=400, detail=said)], retry=FAST))
    assert (
        message.error_message == "fake:m1 failed, HTTP 400: the key *** is wrong\n\nThe SDK said: the key *** is wrong"
    )


def test_warm_up_builds_a_client_touches_the_resource_a_round_calls_and_prepares_a_request():
    class Warm(Scripted):
        _warm_up_resource = "chat.completions"

        def _make_client(self):
            self.made += 1
            return Client()

        def _prepare(self, request):
            self.prepared.append(request.messages[0].content)
            return super()._prepare(request)

    class Chat:
        @property
        def completions(self):
            touched.append("chat.completions")
            return object()

    class Client:
        chat = Chat()

    touched: list[str] = []
    model = Warm(["ok"])
    model.made, model.prepared = 0, []
    model.warm_up()
    assert (model.made, touched, model.prepared) == (1, ["chat.completions"], ["warm-up"])


def test_a_twin_gets_a_memo_of_its_own_kind_and_usage_counts_only_what_it_is_given():
    model = Scripted(["ok"])
    twin = model.for_another_run()
    assert type(twin._history) is type(model._history)
    usage = model._usage(output=2)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (0, 2, 0, 0, 2)
    usage = model._usage(input=1)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (1, 0, 0, 0, 1)


def test_a_missing_sdk_names_the_extra_that_installs_it():
    from openprogram_jupyter.models._provider_common import require_module

    with pytest.raises(ValueError) as refused:
        require_module("surely_missing_module_zz", "google", "gemini")
    # the gemini extra's own install line (its packages as this install's metadata lists them)
    said = str(refused.value)
    assert said.startswith("the 'google' provider needs 'surely_missing_module_zz', which is not installed (")
    assert "[google] extra" not in said
    with pytest.raises(ValueError) as refused:
        require_module("surely_missing_module_zz", "google")
    assert str(refused.value).endswith("(install the [google] extra of openprogram-jupyter)")
    require_module("json", "any")  # installed: nothing raised


def test_a_null_for_an_optional_argument_of_a_strict_tool_means_not_given():
    optional = {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}
    tools = [
        {"name": "strict", "strict": True, "parameters": {**optional, "required": ["city"]}},
        {"name": "loose", "parameters": optional},
        {"name": "bare", "strict": True},
    ]
    calls = [("strict", {"city": None, "unit": None}), ("loose", {"unit": None}), ("bare", {"x": None})]
    message, _ = _round(Scripted([calls]), tools=tools)
    assert [(call.name, call.arguments) for call in message.tool_calls] == [
        ("strict", {"city": None}),
        ("loose", {"unit": None}),
        ("bare", {"x": None}),
    ]


def _captured(model: Scripted, **request: object) -> tuple[AssistantMessage, WireLog, bool]:
    """The round's reply, its wire log, and whether the reply holds the round's capture."""
    log = WireLog()

    async def go():
        asked = ModelRequest(messages=[UserMessage(content="hi")], **request)
        asked.wire = log.recorder(1, asked)
        out = MessageBuilder()
        [u async for u in model.stream(asked, out)]
        return out.message, out.wire is asked.wire

    message, kept = asyncio.run(go())
    return message, log, kept


def test_the_wire_capture_keeps_the_body_masked_each_attempt_and_each_failure(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "correct horse battery staple")
    message, log, kept = _captured(Scripted([busy(body={"error": "busy"}), "ok"], retry=FAST))
    assert message.content[0].text == "ok" and kept
    assert log.request(1) == {"model": "m1", "key": "***"}
    reply = log.reply(1)
    assert (reply["provider"], reply["attempts"]) == ("fake", 2)
    assert reply["errors"] == [
        {"attempt": 1, "status": 503, "code": "overloaded", "message": "busy", "body": {"error": "busy"}}
    ]


def test_the_wire_capture_says_why_nothing_was_sent_masked(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "correct horse battery staple")
    _, log, _ = _captured(Scripted(["never"], api_key=KEY), temperature=-1)
    assert log.why_no_request(1) == "nothing was sent: cannot send this picture (key ***, ***)"


def test_a_key_given_to_a_model_is_masked_everywhere_from_then_on():
    from openprogram_jupyter.core._secrets import mask

    key = "a plain passphrase for this test only"
    Scripted(["ok"], api_key=key)
    assert mask(f"a tool printed {key}") == "a tool printed ***"


def test_cached_tokens_reach_the_usage_and_unnamed_counts_are_zero():
    model = Scripted(["ok"])
    usage = model._usage(cache_read=3, cache_write=4)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens) == (0, 0, 3, 4, 7)
    alone = make_usage("nobody:model", cache_write=1)
    assert (alone.input, alone.output, alone.cache_read, alone.cache_write, alone.total_tokens) == (0, 0, 0, 1, 1)
