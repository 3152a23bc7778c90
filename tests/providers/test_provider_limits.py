"""A cost limit against the loopback server, with each provider's real client: the run
ends after one last round sent with tool_choice "none", whose text is the answer."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

from openprogram_jupyter.core.messages import Usage
from openprogram_jupyter.models.pricing import cost_of

from .cases import CASE_IDS, CASES, make_tools
from .test_provider_runs import EXPECTED_NONE

pytestmark = pytest.mark.parametrize("case", CASES, ids=CASE_IDS)

IN, OUT = 200_000, 2_000  # tokens per round: a cost that a few rounds make visible


async def test_a_cost_limit_smaller_than_three_rounds_ends_with_a_tool_free_answer(case, server):
    per_round = cost_of(case.model, Usage(input=IN, output=OUT))
    assert per_round, f"no price for {case.model}"
    server.script(
        Turn(calls=[Call("add", {"a": 1, "b": 2})], input_tokens=IN, output_tokens=OUT),
        Turn(calls=[Call("add", {"a": 3, "b": 4})], input_tokens=IN, output_tokens=OUT),
        Turn(text="So far: 3 and 7.", input_tokens=IN, output_tokens=OUT),
        Turn(calls=[Call("add", {"a": 7, "b": 1})]),  # never asked for: the limit comes first
    )
    # 200,000 tokens a round would fill Claude's window: this test is about cost, so the window is widened.
    run = await case.runtime(server).arun(
        "Add up.", tools=make_tools(), max_cost=per_round * 1.5, context_window=10_000_000
    )

    assert server.rejections == []
    assert run.text == "So far: 3 and 7."
    assert (run.rounds, len(server.requests)) == (3, 3)
    assert run.stop_reason == run.limit == "max_cost"
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    assert any(f"max_cost=${per_round * 1.5:g}" in n for n in notices)
    if case.prefix != "bedrock":  # Converse cannot say "none" once the history has tool blocks
        assert case.choice(server.requests[2].body) == EXPECTED_NONE[case.prefix]
    assert "Do not call any tool now" in str(server.requests[2].body)
