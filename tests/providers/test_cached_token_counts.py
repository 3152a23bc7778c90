"""Cached prompt tokens as each provider counts them, read into one ``Usage``: ``input`` is
the prompt's uncached part, ``cache_read`` / ``cache_write`` the cached parts, whichever
way the provider adds them up (OpenAI Chat, Responses and Gemini count the cached tokens
inside the prompt's total; Anthropic and Bedrock apart from it) (issue 45 item 3)."""

from __future__ import annotations

import pytest
from fakeserver import Turn

from .cases import CASE_IDS, CASES

# What each server was told: 12,000 prompt tokens, 3,000 of them read from the cache, 500
# written to it (where the API reports writes), 250 output tokens.
EXPECTED = {
    "openai": (9_000, 3_000, 0),
    "openai-responses": (9_000, 3_000, 0),
    "gemini": (9_000, 3_000, 0),
    "anthropic": (12_000, 3_000, 500),
    "bedrock": (12_000, 3_000, 500),
}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_the_uncached_prompt_and_each_cached_part_are_counted_once(case, server):
    server.script(Turn(text="Hi.", input_tokens=12_000, cached_tokens=3_000, cache_write_tokens=500, output_tokens=250))
    run = await case.runtime(server).arun("Hi.")
    usage = run.messages[-1].usage
    assert (usage.input, usage.cache_read, usage.cache_write, usage.output) == (*EXPECTED[case.prefix], 250)
