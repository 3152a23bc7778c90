"""The sampling controls (``temperature``, ``stop_sequences``, ``max_output_tokens``) reach
every provider with its real client, in the provider's own fields; one a provider does not
take is left out, and a notice in the run says which (docs/settings.md)."""

from __future__ import annotations

import pytest
from fakeserver import Turn

from .cases import CASE_IDS, CASES

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

# Where each API takes them, written out from its documentation: (temperature, stop, output cap).
FIELDS = {
    "openai": lambda body: (body.get("temperature"), body.get("stop"), body.get("max_completion_tokens")),
    "openai-responses": lambda body: (body.get("temperature"), body.get("stop"), body.get("max_output_tokens")),
    "anthropic": lambda body: (body.get("temperature"), body.get("stop_sequences"), body.get("max_tokens")),
    "gemini": lambda body: tuple(
        (body.get("generationConfig") or {}).get(key) for key in ("temperature", "stopSequences", "maxOutputTokens")
    ),
    "bedrock": lambda body: tuple(
        (body.get("inferenceConfig") or {}).get(key) for key in ("temperature", "stopSequences", "maxTokens")
    ),
}
EXPECTED = {
    "openai": (0.7, ["END"], 40),
    "openai-responses": (0.7, None, 40),  # the Responses API has no stop sequences
    "anthropic": (0.7, ["END"], 40),
    "gemini": (0.7, ["END"], 40),
    "bedrock": (0.7, ["END"], 40),
}


def _notices(run) -> list[str]:
    """The run's notices, each without the ``<model>: `` every provider notice starts with."""
    return [
        e.update.delta.split(": ", 1)[1] for e in run.events if e.type == "message_update" and e.update.kind == "notice"
    ]


async def test_temperature_stop_sequences_and_the_output_cap_are_sent_in_the_provider_s_fields(case, server):
    server.script(Turn(text="hi"))
    run = await case.runtime(server).arun(
        "Hello.", tools=[], temperature=0.7, stop_sequences=["END"], max_output_tokens=40
    )
    assert server.rejections == [] and run.stop_reason == "stop", run.error
    [request] = server.requests
    assert FIELDS[case.prefix](request.body) == EXPECTED[case.prefix]
    dropped = [note for note in _notices(run) if "stop sequences" in note]
    if case.prefix == "openai-responses":
        assert dropped == ["OpenAI Responses takes no stop sequences: stop_sequences=['END'] were not sent"]
    else:
        assert dropped == []


async def test_without_them_nothing_is_sent(case, server):
    server.script(Turn(text="hi"))
    await case.runtime(server).arun("Hello.", tools=[])
    temperature, stop, _ = FIELDS[case.prefix](server.requests[0].body)
    assert (temperature, stop) == (None, None)


async def test_a_temperature_above_anthropic_s_range_is_sent_as_its_maximum_saying_so(case, server):
    server.script(Turn(text="hi"))
    run = await case.runtime(server).arun("Hello.", tools=[], temperature=1.5)
    temperature, _, _ = FIELDS[case.prefix](server.requests[0].body)
    notes = [note for note in _notices(run) if "temperature" in note]
    if case.prefix == "anthropic":
        assert temperature == 1.0
        assert notes == ["Anthropic takes a temperature from 0 to 1: temperature=1.5 was sent as 1"]
    else:
        assert temperature == 1.5 and notes == []
