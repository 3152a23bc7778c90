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
    assert usage.cost == pytest.approx(
        library_cost(
            case, input=usage.input, cache_read=usage.cache_read, cache_write=usage.cache_write, output=usage.output
        ),
        rel=1e-12,
    )
    assert usage.cost > 0


async def test_a_model_the_library_does_not_know_reads_price_unknown_and_max_cost_says_so_once(server):
    case = CASES[0]
    server.script(
        Turn(calls=[Call("add", {"a": 1, "b": 2})], input_tokens=100, output_tokens=10),
        Turn(calls=[Call("add", {"a": 3, "b": 4})], input_tokens=100, output_tokens=10),
        Turn(text="3 and 7.", input_tokens=100),
    )
    runtime = case.runtime(server).replace(model="openai:a-model-no-one-prices")
    run = await runtime.arun("Add.", tools=make_tools(), max_cost=0.01)
    assert run.usage.cost is None
    header = render_plain(run).splitlines()[0]
    assert "price unknown" in header and "$" not in header
    assert "price unknown" in render_html(run)
    notices = [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]
    assert [n for n in notices if "cannot be checked" in n] == [
        "max_cost=$0.01 cannot be checked: the price of openai:a-model-no-one-prices is unknown (add it with "
        "openprogram_jupyter.models.pricing.register_price); max_tokens and max_iterations still apply"
    ]


@pytest.mark.parametrize("known", [True, False], ids=["known", "unknown"])
async def test_a_run_looks_its_model_up_in_the_library_once(known, server, monkeypatch):
    """The library's lookup scans every model of the provider (for a model it does not
    know, on every call): a run asks it once per model, not per reply or per round, and
    each reply's cost is still the library's own for its usage."""
    from genai_prices import data_snapshot

    from openprogram_jupyter.models import pricing

    looked_up = []
    find = data_snapshot.DataSnapshot.find_provider_model

    def counted(self, model_ref, *args):
        looked_up.append(model_ref)
        return find(self, model_ref, *args)

    monkeypatch.setattr(data_snapshot.DataSnapshot, "find_provider_model", counted)
    monkeypatch.setattr(pricing, "_FOUND", {})
    case = next(c for c in CASES if c.prefix == "anthropic")
    runtime = case.runtime(server) if known else case.runtime(server).replace(model="anthropic:no-one-prices-it")
    server.script(
        *(
            Turn(calls=[Call("add", {"a": n, "b": 1})], input_tokens=100 + n, cached_tokens=n, output_tokens=10)
            for n in range(3)
        ),
        Turn(text="Done.", input_tokens=200, output_tokens=5),
    )
    run = await runtime.arun("Add.", tools=make_tools())
    assert len(run.tool_results) == 3
    assert looked_up == [case.model_id if known else "no-one-prices-it"]
    replies = [m for m in run.messages if m.role == "assistant"]
    costs = [m.usage.cost for m in replies]
    if not known:
        assert costs == [None] * 4
        return
    assert costs == pytest.approx(
        [
            library_cost(
                case,
                input=m.usage.input,
                cache_read=m.usage.cache_read,
                cache_write=m.usage.cache_write,
                output=m.usage.output,
            )
            for m in replies
        ],
        rel=1e-12,
    )


def test_a_new_price_snapshot_is_looked_up_anew(monkeypatch):
    """A price update (the library's auto-update replaces its snapshot) is not hidden by a
    model found in the snapshot before, and the cost is the library's under the new one."""
    import genai_prices
    from genai_prices import data_snapshot

    from openprogram_jupyter.core.messages import Usage
    from openprogram_jupyter.models import pricing

    looked_up = []
    find = data_snapshot.DataSnapshot.find_provider_model

    def counted(self, model_ref, *args):
        looked_up.append(self)
        return find(self, model_ref, *args)

    monkeypatch.setattr(data_snapshot.DataSnapshot, "find_provider_model", counted)
    monkeypatch.setattr(pricing, "_FOUND", {})
    usage = Usage(input=1_000, output=100, cache_read=500)
    before = pricing.cost_of("anthropic:claude-sonnet-4-5", usage)
    updated = data_snapshot.DataSnapshot(providers=data_snapshot.get_snapshot().providers, from_auto_update=True)
    monkeypatch.setattr(data_snapshot, "_custom_snapshot", updated)
    after = pricing.cost_of("anthropic:claude-sonnet-4-5", usage)
    assert looked_up[0] is not updated and looked_up[-1] is updated and len(looked_up) == 2
    expected = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1_500, cache_read_tokens=500, output_tokens=100),
        "claude-sonnet-4-5",
        provider_id="anthropic",
    ).total_price
    assert before == after == pytest.approx(float(expected), rel=1e-12)
