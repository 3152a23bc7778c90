"""Limits that end with an answer: max_cost, max_tokens and max_iterations make one last
round without tools when the model still wants them (docs/semantics.md, "Limits")."""

from __future__ import annotations

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.errors import SetupError
from openprogram_jupyter.render import render_bundle

from .conftest import call


def costly(item: op.ToolCall | str, *, cost: float | None = 0.02, tokens: int = 1000) -> op.AssistantMessage:
    """One scripted reply that used ``tokens`` tokens costing ``cost`` dollars."""
    content = [op.TextContent(text=item)] if isinstance(item, str) else [item]
    usage = op.Usage(input=tokens - 100, output=100, total_tokens=tokens, cost=cost)
    return op.AssistantMessage(content=content, usage=usage)


def add_tool():
    @op.function
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    return add


def notices(run: op.Run) -> list[str]:
    return [e.update.delta for e in run.events if e.type == "message_update" and e.update.kind == "notice"]


def test_max_cost_ends_with_a_last_tool_free_round_whose_text_is_the_answer():
    add = add_tool()
    script = [costly(call("add", a=i, b=1)) for i in range(5)]
    model = op.ScriptedModel([*script[:3], costly("Sums so far: 1, 2, 3.")])
    run = op.Runtime(model=model).run("Add many.", tools=[add], max_cost=0.05)

    assert run.text == "Sums so far: 1, 2, 3."
    assert run.rounds == 4 and [r.tool_choice for r in model.requests] == ["auto", "auto", "auto", "none"]
    assert run.stop_reason == run.limit == "max_cost"
    assert [n for n in notices(run) if "max_cost=$0.05" in n and "no tools" in n]
    assert "max_cost=$0.05" in model.requests[-1].system and "Do not call any tool" in model.requests[-1].system
    assert model.requests[0].system is None
    assert [e.final_for for e in run.events if e.type == "turn_start"] == [None, None, None, "max_cost"]


def test_max_tokens_ends_the_same_way_and_names_its_limit():
    add = add_tool()
    model = op.ScriptedModel(
        [costly(call("add", a=1, b=1), tokens=600), costly(call("add", a=2, b=1), tokens=600), "Done with what I have."]
    )
    run = op.Runtime(model=model).run("Add.", tools=[add], max_tokens=1000)
    assert run.rounds == 3 and run.limit == "max_tokens" and run.text == "Done with what I have."
    assert any("max_tokens=1,000; spent 1,200" in n for n in notices(run))


def test_max_tokens_is_reached_when_the_tokens_spent_equal_it():
    add = add_tool()
    model = op.ScriptedModel(
        [
            costly(call("add", a=1, b=1), tokens=500),
            costly(call("add", a=2, b=1), tokens=500),
            "Done at exactly the limit.",
            "never",
        ]
    )
    run = op.Runtime(model=model).run("Add.", tools=[add], max_tokens=1000)
    assert (run.rounds, run.limit, run.stop_reason) == (3, "max_tokens", "max_tokens")
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none"]
    assert any("max_tokens=1,000; spent 1,000" in n for n in notices(run))


def test_max_cost_is_reached_when_the_cost_spent_equals_it():
    add = add_tool()
    model = op.ScriptedModel(
        [
            costly(call("add", a=1, b=1), cost=0.25),
            costly(call("add", a=2, b=1), cost=0.25),
            "Done at exactly the limit.",
            "never",
        ]
    )
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.5)
    assert (run.rounds, run.limit, run.stop_reason) == (3, "max_cost", "max_cost")
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none"]


def test_max_cost_just_above_what_was_spent_is_not_reached():
    add = add_tool()
    model = op.ScriptedModel(
        [costly(call("add", a=1, b=1), cost=0.25), costly(call("add", a=2, b=1), cost=0.25), "Done, under the limit."]
    )
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.5001)
    assert (run.rounds, run.limit, run.stop_reason) == (3, None, "stop")
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "auto"]


def test_the_round_cap_also_ends_with_an_answer_and_keeps_its_stop_reason():
    add = add_tool()
    model = op.ScriptedModel([call("add", a=1, b=1), call("add", a=2, b=1), "Two sums: 2 and 3."])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_iterations=3)
    assert (run.stop_reason, run.limit, run.rounds, run.text) == (
        "max_iterations",
        "max_iterations",
        3,
        "Two sums: 2 and 3.",
    )


@pytest.mark.parametrize("cap", [2, 3, 5])
def test_a_round_cap_of_n_sends_exactly_n_requests_the_last_without_tools(cap):
    """The answer round at a round cap is the cap's own last round, never one more."""
    add = add_tool()
    model = op.ScriptedModel([call("add", a=i, b=1) for i in range(cap + 5)])
    run = op.Runtime(model=model).run("Add forever.", tools=[add], max_iterations=cap)
    assert len(model.requests) == cap == run.rounds
    assert [r.tool_choice for r in model.requests] == ["auto"] * (cap - 1) + ["none"]
    assert (run.stop_reason, run.limit) == ("max_iterations", "max_iterations")
    assert run.tool_results[-1].status == "skipped"  # the call it made anyway did not run


@pytest.mark.parametrize("cap", [0, 1])
def test_a_round_cap_of_one_round_keeps_its_tools(cap):
    add = add_tool()
    model = op.ScriptedModel([call("add", a=1, b=1), "never"])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_iterations=cap)
    assert len(model.requests) == 1 and model.requests[0].tool_choice == "auto"
    assert run.tool_results[0].status == "done" and run.stop_reason == "max_iterations"


def test_without_finish_at_limit_the_cap_s_last_round_keeps_its_tools():
    add = add_tool()
    model = op.ScriptedModel([call("add", a=i, b=1) for i in range(5)])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_iterations=3, finish_at_limit=False)
    assert [r.tool_choice for r in model.requests] == ["auto"] * 3
    assert [r.status for r in run.tool_results] == ["done"] * 3


def test_finish_at_limit_false_ends_at_the_limit_without_a_last_round():
    add = add_tool()
    model = op.ScriptedModel([costly(call("add", a=i, b=1)) for i in range(5)])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.03, finish_at_limit=False)
    assert run.rounds == 2 and model.rounds_played == 2
    assert run.stop_reason == run.limit == "max_cost"
    assert "none" not in [r.tool_choice for r in model.requests]


def test_a_call_made_anyway_in_the_last_round_is_answered_not_run():
    ran = []

    @op.function
    def record(n: int) -> int:
        """Record n."""
        ran.append(n)
        return n

    model = op.ScriptedModel([call("record", n=1), [op.TextContent(text="One more."), call("record", n=2)]])
    model.script[1] = op.AssistantMessage(content=model.script[1])
    run = op.Runtime(model=model).run("Go.", tools=[record], max_iterations=2)
    assert ran == [1]
    last = run.tool_results[-1]
    assert last.status == "skipped" and last.is_error and "this last round was for the answer" in last.text
    assert run.text == "One more." and run.stop_reason == "max_iterations"


def test_a_limit_crossed_by_the_final_answer_ends_as_a_normal_stop():
    add = add_tool()
    model = op.ScriptedModel([costly(call("add", a=1, b=1)), costly("The sum is 2.")])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.03)
    assert (run.stop_reason, run.limit, run.rounds) == ("stop", None, 2)


def test_a_model_without_a_price_says_once_that_max_cost_cannot_be_checked():
    add = add_tool()
    model = op.ScriptedModel([costly(call("add", a=i, b=1), cost=None) for i in range(3)] + ["done"])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.01)
    unpriced = [n for n in notices(run) if "cannot be checked" in n]
    assert len(unpriced) == 1 and "register_price" in unpriced[0]
    assert run.stop_reason == "stop" and run.rounds == 4


def test_nested_runs_spend_from_the_budget_of_the_run_that_opened_them():
    inner = op.ScriptedModel([costly("inner answer", cost=0.04)])

    @op.function
    def ask() -> str:
        """Ask a nested model."""
        return op.Runtime(model=inner).exec("inner", toolset="none")

    model = op.ScriptedModel([costly(call("ask"), cost=0.001), "Enough."])
    run = op.Runtime(model=model).run("Go.", tools=[ask], max_cost=0.03)  # 0.001 + the nested 0.04
    assert run.limit == "max_cost" and run.rounds == 2 and run.text == "Enough."


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("max_cost", -1),
        ("max_cost", 0),
        ("max_cost", "0.05"),
        ("max_cost", True),
        ("max_cost", float("nan")),
        ("max_tokens", 0),
        ("max_tokens", 2.5),
        ("finish_at_limit", "yes"),
    ],
)
def test_a_bad_limit_is_refused_before_anything_is_sent(option, value):
    model = op.ScriptedModel(["never"])
    with pytest.raises(SetupError, match=option):
        op.Runtime(model=model).run("Go.", **{option: value})
    assert model.rounds_played == 0


def test_the_saved_transcript_marks_the_last_round_and_names_the_limit():
    add = add_tool()
    model = op.ScriptedModel([costly(call("add", a=1, b=1)), costly(call("add", a=2, b=1)), "Partial."])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.03)
    bundle = render_bundle(run)
    for mime in ("text/html", "text/markdown", "text/plain"):
        assert "round 3 · last round, without tools (max_cost)" in bundle[mime], mime
        assert "stopped at the cost limit (max_cost)" in bundle[mime], mime


def test_a_run_that_ends_above_its_budget_says_so_in_every_view():
    """--max-cost 0.001 with a priced model: the round that crossed it spent ten times the
    budget, and the transcript said only 'finished'."""
    add = add_tool()
    model = op.ScriptedModel([costly(call("add", a=1, b=1), cost=0.0009), costly("Done.", cost=0.009)])
    run = op.Runtime(model=model).run("Add.", tools=[add], max_cost=0.001)
    assert run.stop_reason == "stop"
    bundle = render_bundle(run)
    for mime in ("text/plain", "text/html"):
        assert "over budget: spent $0.0099 of $0.001" in bundle[mime], mime
    assert "over budget: spent \\$0.0099 of \\$0.001" in bundle["text/markdown"]  # not TeX math
    within = op.Runtime(model=op.ScriptedModel([costly("Done.", cost=0.0005)])).run("Hi.", tools=[], max_cost=0.001)
    assert "over budget" not in render_bundle(within)["text/plain"]


# -- the output cap a budget puts on each round -------------------------------------------------


def test_a_token_budget_caps_each_round_at_what_is_left():
    model = op.ScriptedModel(
        [costly(call("add", a=1, b=1), tokens=1000), costly(call("add", a=2, b=1), tokens=1000), "So far: 2 and 3."]
    )
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_tokens=2_500)
    caps = [request.max_output_tokens for request in model.requests]
    # 2,500 at first; then less what was spent and the 900 the next input takes at least
    # (round 3 is still asked, 2,000 < 2,500, with the floor of 1 token).
    assert caps == [2_500, 2_500 - 1_000 - 900, 1]
    assert run.stop_reason == "stop"


def test_the_answer_round_at_a_limit_is_not_capped():
    model = op.ScriptedModel([costly(call("add", a=1, b=1), tokens=1000), "So far: 2."])
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_tokens=1_000)
    assert run.stop_reason == "max_tokens" and len(model.requests) == 2
    assert [request.max_output_tokens for request in model.requests] == [1_000, None]
    assert model.requests[1].tool_choice == "none"


def test_the_cap_is_never_below_one_token():
    model = op.ScriptedModel([costly(call("add", a=1, b=1), tokens=1000), costly("Done.", tokens=10)])
    op.Runtime(model=model).run("Add.", tools=[add_tool()], max_tokens=1_500)
    assert [request.max_output_tokens for request in model.requests] == [1_500, 1]  # 1,500 - 1,000 - 900 < 1


def test_with_two_budgets_the_tighter_one_caps(monkeypatch):
    from openprogram_jupyter.models import pricing

    monkeypatch.setitem(pricing.PRICES, "priced-script", pricing.Price(input=1.0, output=10.0))
    model = op.ScriptedModel(["Done."], name="priced-script")
    op.Runtime(model=model).run("Hi.", tools=[], max_tokens=50_000, max_cost=0.01)  # $0.01 buys 1,000 output tokens
    assert model.requests[0].max_output_tokens == 1_000
    model = op.ScriptedModel(["Done."], name="priced-script")
    op.Runtime(model=model).run("Hi.", tools=[], max_tokens=500, max_cost=0.01)
    assert model.requests[0].max_output_tokens == 500


# -- what mutmut found unpinned (docs/testing.md, "Mutation tool") ------------------------------


def test_a_reply_without_a_total_counts_every_kind_of_token_against_max_tokens():
    """A provider that gives no total: input, output, cache reads and cache writes all count."""
    usage = op.Usage(input=500, output=100, cache_read=300, cache_write=50, cost=0.0)
    first = op.AssistantMessage(content=[call("add", a=1, b=1)], usage=usage)
    model = op.ScriptedModel([first, "So far: 2."])
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_tokens=950)
    assert run.limit == "max_tokens"
    assert any("max_tokens=950; spent 950" in n for n in notices(run))


def test_the_answer_round_of_a_round_cap_names_the_cap_to_the_model_and_the_user():
    model = op.ScriptedModel([call("add", a=1, b=1), "Only 2 so far."])
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_iterations=2)
    what = "the last round of its round cap (max_iterations=2)"
    assert f"This run has reached {what}." in model.requests[-1].system
    assert f"the run reached {what}: this last round has no tools" in notices(run)[-1]


def test_the_unpriced_notice_says_what_still_applies():
    model = op.ScriptedModel([costly(call("add", a=1, b=1), cost=None), "done"], name="no-price-model")
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_cost=0.01)
    assert [n for n in notices(run) if "cannot be checked" in n] == [
        "max_cost=$0.01 cannot be checked: the price of no-price-model is unknown "
        "(add it with openprogram_jupyter.models.pricing.register_price); max_tokens and "
        "max_iterations still apply"
    ]


def priced_model(monkeypatch, replies, *, input: float, output: float) -> op.ScriptedModel:
    from openprogram_jupyter.models import pricing

    monkeypatch.setitem(pricing.PRICES, "priced-script", pricing.Price(input=input, output=output))
    return op.ScriptedModel(replies, name="priced-script")


def test_a_cost_budget_caps_the_next_round_at_what_is_left_after_its_input(monkeypatch):
    """$10 budget, $2 spent, the next input 900 tokens at $1,000/M = $0.90: $7.10 left buys
    7.1e6 / 3 output tokens at $3/M."""
    usage = op.Usage(input=900, output=100, total_tokens=1000, cost=2.0)
    first = op.AssistantMessage(content=[call("add", a=1, b=1)], usage=usage)
    model = priced_model(monkeypatch, [first, "Done."], input=1000.0, output=3.0)
    op.Runtime(model=model).run("Add.", tools=[add_tool()], max_cost=10.0)
    assert model.requests[1].max_output_tokens == 2_366_666


def test_an_unknown_cost_caps_no_round_even_for_a_priced_model_name(monkeypatch):
    model = priced_model(monkeypatch, [costly(call("add", a=1, b=1), cost=None), "Done."], input=1.0, output=10.0)
    op.Runtime(model=model).run("Add.", tools=[add_tool()], max_cost=0.01)
    assert model.requests[1].max_output_tokens is None


@pytest.mark.parametrize(("output", "cap"), [(0.0, None), (0.5, 20_000)])
def test_a_free_output_price_caps_nothing_and_a_cheap_one_caps_by_its_price(monkeypatch, output, cap):
    model = priced_model(monkeypatch, ["Done."], input=0.0, output=output)
    run = op.Runtime(model=model).run("Hi.", tools=[], max_cost=0.01)
    assert model.requests[0].max_output_tokens == cap and run.text == "Done."


def test_an_answer_round_whose_reply_fails_says_its_calls_were_not_run_for_that():
    failed = op.AssistantMessage(content=[call("add", a=2, b=2)], stop_reason="error", error_message="overloaded")
    model = op.ScriptedModel([call("add", a=1, b=1), failed])
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_iterations=2)
    last = run.tool_results[-1]
    assert last.status == "skipped" and last.text.startswith("not run: the model's reply failed before it was complete")
    assert run.stop_reason == "max_iterations" and "overloaded" in str(run.error)


def test_an_answer_round_cut_by_a_stop_ends_the_run_as_stopped():
    cut = op.AssistantMessage(content=[op.TextContent(text="Partial")], stop_reason="aborted")
    model = op.ScriptedModel([call("add", a=1, b=1), cut])
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_iterations=2)
    assert run.stop_reason == "aborted"


def test_a_call_in_an_answer_round_cut_by_a_stop_says_the_reply_failed():
    cut = op.AssistantMessage(content=[call("add", a=2, b=2)], stop_reason="aborted")
    model = op.ScriptedModel([call("add", a=1, b=1), cut])
    run = op.Runtime(model=model).run("Add.", tools=[add_tool()], max_iterations=2)
    assert run.stop_reason == "aborted"
    assert run.tool_results[-1].text.startswith("not run: the model's reply failed before it was complete")
