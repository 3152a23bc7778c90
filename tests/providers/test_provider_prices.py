"""Every cost is genai-prices' own figure for the same usage and model, on all five
providers through their real clients (cached tokens included); a model it does not know
reads "price unknown" — never $0 — and a cost limit says, once, that it cannot be kept."""

from __future__ import annotations

import pytest
from fakeserver import Call, Turn

from openprogram_jupyter.render import render_html, render_plain

from .cases import CASE_IDS, CASES, library_cost, make_tools


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
async def test_a_replys_cost_is_the_librarys_for_its_usage(case, server):
    server.script(Turn(text="Hi.", input_tokens=12_000, cached_tokens=3_000, output_tokens=250))
    run = await case.runtime(server).arun("Hi.")
    usage = run.usage
    assert usage.cache_read == 3_000 and usage.output == 250, usage
    assert usage.cost == pytest.approx(library_cost(case, input=usage.input, cache_read=usage.cache_read,
                                                    cache_write=usage.cache_write, output=usage.output), rel=1e-12)
    assert usage.cost > 0


async def test_a_model_the_library_does_not_know_reads_price_unknown_and_max_cost_says_so_once(server):
    case = CASES[0]
    server.script(Turn(calls=[Call("add", {"a": 1, "b": 2})], input_tokens=100, output_tokens=10),
                  Turn(calls=[Call("add", {"a": 3, "b": 4})], input_tokens=100, output_tokens=10),
                  Turn(text="3 and 7.", input_tokens=100))
    runtime = case.runtime(server).replace(model="openai:a-model-no-one-prices")
    run = await runtime.arun("Add.", tools=make_tools(), max_cost=0.01)
    assert run.usage.cost is None
    header = render_plain(run).splitlines()[0]
    assert "price unknown" in header and "$" not in header
    assert "price unknown" in render_html(run)
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    assert [n for n in notices if "cannot be checked" in n] == [
        "max_cost=$0.01 cannot be checked: the price of openai:a-model-no-one-prices is unknown (add it with "
        "openprogram_jupyter.models.pricing.register_price); max_tokens and max_iterations still apply"]
