"""Keys of any shape, per provider, against the loopback server: a 401 that echoes one, a
tool that raises with one, a reply that streams one. None of it reaches the record, a view,
a cassette or the next request (docs/faults.md, "Secrets")."""

from __future__ import annotations

import json

import pytest
from fakeserver import Call, Turn

import openprogram_jupyter as op
from openprogram_jupyter.render import render_bundle

from .cases import CASE_IDS, CASES, SECRET

each_provider = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

# Made up for these tests, none shaped like a key pattern: only their values can mask them.
KEYS = {
    "OPENAI_API_KEY": "gsk_live4Q9zXbT2mW7pLr8sVn3yHc6JdE",
    "AWS_SESSION_TOKEN": "IQoJb3JpZ2luX2VjEJr//////////wEaCXVz+ZWFzdC0xIkcw=",
    "ANTHROPIC_AUTH_TOKEN": "local-server-token-7f3a9c21",
}


def places(run: op.Run, runtime: op.Runtime, cassette) -> list[str]:
    found = [str(run.error or ""), repr(run), repr(runtime), repr(runtime.model), str(vars(run)), cassette.read_text()]
    found += [e.model_dump_json() for e in run.events]
    found += [json.dumps(m.model_dump(mode="json")) for m in run.messages]
    return found + list(render_bundle(run).values())


def assert_nowhere(key: str, found: list[str]) -> None:
    for place in found:
        assert key not in place
        assert key[4:20] not in place, "not even a fragment of it"


def leaky() -> op.Tool:
    @op.function(register_globally=False)
    def connect(host: str) -> str:
        """Connect to a host.

        Args:
            host: Where to.
        """
        import os

        raise PermissionError(f"{host} refused {os.environ['OPENAI_API_KEY']} (and {SECRET})")

    return connect


@each_provider
@pytest.mark.parametrize("variable", list(KEYS))
async def test_a_401_echoing_a_key_of_any_shape_leaks_nowhere(case, server, variable, monkeypatch, tmp_path):
    key = KEYS[variable]
    monkeypatch.setenv(variable, key)
    server.script(Turn.http_error(401, f"Incorrect API key provided: {key}. Get one at example.com."))
    runtime = case.runtime(server, record=tmp_path / "run.json")
    run = await runtime.arun("Hi.")

    assert run.stop_reason == "error"
    assert "HTTP 401" in str(run.error) and "Incorrect API key provided: ***. Get one at example.com." in str(run.error)
    with pytest.raises(op.RunError) as raised:
        raise op.RunError(run)
    assert_nowhere(key, [*places(run, runtime, tmp_path / "run.json"), str(raised.value)])


@each_provider
async def test_a_tool_raising_with_keys_in_its_message_is_masked_for_the_model_too(case, server, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["OPENAI_API_KEY"])
    server.script(Turn(calls=[Call("connect", {"host": "db"})]), Turn(text="It refused."))
    runtime = case.runtime(server, record=tmp_path / "run.json")  # api_key=SECRET, the runtime's own
    run = await runtime.arun("Connect.", tools=[leaky()])

    assert run.stop_reason == "stop", run.error
    (result,) = run.tool_results
    assert result.content[0].text == "Error: connect raised PermissionError: db refused *** (and ***)"
    sent = case.results(server.bodies()[1])  # what the provider was sent in the next round
    assert [text for _, text, _ in sent] == [result.content[0].text]
    found = places(run, runtime, tmp_path / "run.json") + [json.dumps(body) for body in server.bodies()]
    assert_nowhere(KEYS["OPENAI_API_KEY"], found)
    assert_nowhere(SECRET, found)


@each_provider
async def test_a_streamed_reply_echoing_a_key_never_shows_part_of_it(case, server, monkeypatch, tmp_path):
    key = KEYS["ANTHROPIC_AUTH_TOKEN"]
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", key)
    server.script(Turn(text=f"Your token is {key}, keep it safe.", chunk_size=5))
    runtime = case.runtime(server, record=tmp_path / "run.json")
    run = await runtime.arun("What is my token?")

    assert run.stop_reason == "stop", run.error
    assert run.text == "Your token is ***, keep it safe."
    deltas = [e.update.delta for e in run.events if e.type == "message_update"]
    assert "".join(deltas) == run.text
    assert all("local" not in delta for delta in deltas)
    assert_nowhere(key, places(run, runtime, tmp_path / "run.json"))


async def test_the_missing_key_message_keeps_its_words(server):
    # Masking takes the value after "api_key=", never the words that follow "api_key= ".
    runtime = op.Runtime(model="anthropic:claude-sonnet-4-5", base_url=server.url)  # no key anywhere
    run = await runtime.arun("Hi.")
    assert run.stop_reason == "error" and not server.requests
    assert run.error.kind == "credentials" and run.error.provider == "anthropic" and run.error.status is None
    summary, provider_said = run.error.message, run.error.detail
    assert summary.endswith(
        "no API key: set ANTHROPIC_API_KEY (in the environment, a .env file next to the "
        "notebook, Colab's secrets, or %agent key anthropic) or pass api_key="
    )
    assert provider_said is not None and provider_said.startswith("CredentialsError")
