"""A corrected key or endpoint is used by the next request (issue 43): the model a string
resolved to, and its SDK client, never outlive the environment they were made with —
set the right key after a 401 and run the same cell again, and the server sees it."""

from __future__ import annotations

import asyncio

import pytest
from fakeserver import FakeServer, Turn

import openprogram_jupyter as op

# (model string, key variable, endpoint variable, endpoint for a server) per provider.
PROVIDERS = [
    ("openai:gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", lambda s: s.openai_base_url),
    ("openai-responses:gpt-4.1-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", lambda s: s.openai_base_url),
    ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", lambda s: s.url),
    ("gemini:gemini-2.5-flash", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", lambda s: s.url),
    ("bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", "AWS_ACCESS_KEY_ID", "AWS_ENDPOINT_URL", lambda s: s.url),
]
WRONG, RIGHT = "sk-wrong-0000000000000000", "sk-right-1111111111111111"


def sent_key(server: FakeServer) -> str:
    recorded = server.requests[-1]
    return server.wires[recorded.wire].key(recorded.headers) or ""


@pytest.mark.parametrize(("model", "key", "endpoint", "url"), PROVIDERS, ids=[p[0].split(":")[0] for p in PROVIDERS])
@pytest.mark.parametrize("same_loop", [False, True], ids=["run", "arun-on-one-loop"])
def test_a_key_set_after_a_run_is_used_by_the_next_run(monkeypatch, model, key, endpoint, url, same_loop):
    """``arun`` twice on one event loop is what a notebook's awaited cells do."""
    wrong, right = ("AKIAWRONGWRONGWRONG", "AKIARIGHTRIGHTRIGHT") if key.startswith("AWS") else (WRONG, RIGHT)
    with FakeServer() as server:
        monkeypatch.setenv(endpoint, url(server))
        monkeypatch.setenv(key, wrong)
        runtime = op.Runtime(model=model)
        server.script(Turn(text="one"), Turn(text="two"))

        async def both() -> list[str]:
            first = (await runtime.arun("hi", tools=[])).text
            assert wrong in sent_key(server)
            monkeypatch.setenv(key, right)  # as %env, os.environ or %agent key would
            return [first, (await runtime.arun("hi", tools=[])).text]

        if same_loop:
            assert asyncio.run(both()) == ["one", "two"]
        else:
            assert runtime.run("hi", tools=[]).text == "one"
            assert wrong in sent_key(server)
            monkeypatch.setenv(key, right)
            assert runtime.run("hi", tools=[]).text == "two"
        assert right in sent_key(server) and wrong not in sent_key(server)


@pytest.mark.parametrize(("model", "key", "endpoint", "url"), PROVIDERS, ids=[p[0].split(":")[0] for p in PROVIDERS])
def test_a_changed_endpoint_is_used_by_the_next_run(monkeypatch, model, key, endpoint, url):
    monkeypatch.setenv(key, "AKIAKEYKEYKEYKEYKEY" if key.startswith("AWS") else RIGHT)
    with FakeServer() as first, FakeServer() as second:
        monkeypatch.setenv(endpoint, url(first))
        runtime = op.Runtime(model=model)
        first.script(Turn(text="one"))
        second.script(Turn(text="two"))
        assert runtime.run("hi", tools=[]).text == "one"
        monkeypatch.setenv(endpoint, url(second))
        assert runtime.run("hi", tools=[]).text == "two"
        assert len(first.requests) == 1 and len(second.requests) == 1


def test_a_model_object_is_used_as_given_whatever_the_environment(monkeypatch):
    model = op.ScriptedModel(["a", "b"])
    runtime = op.Runtime(model=model)
    runtime.run("hi", tools=[])
    monkeypatch.setenv("OPENAI_API_KEY", RIGHT)
    runtime.run("hi", tools=[])
    assert runtime.model is model and len(model.requests) == 2
