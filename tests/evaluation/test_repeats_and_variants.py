"""op.evaluate(repeat=k): pass@k, pass^k, Wilson intervals, flaky prompts; variants=: paired
comparison with McNemar's exact test; dry_run= and max_cost=."""

from __future__ import annotations

import threading

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.lab.evaluation._stats import mcnemar_exact, wilson

from .scenario import careful, numbers, plain_add, prompts, right_sum


def mixed() -> op.ScriptedModel:
    """Right every time on prompts 0 and 1, on the first of its runs of prompts 2 and 3
    (whichever repeat that is), never on 4 and 5."""
    seen: dict[int, int] = {}
    lock = threading.Lock()

    def answer(request):
        a, b = numbers(request)
        with lock:
            seen[a] = seen.get(a, 0) + 1
            first = seen[a] == 1
        right = a < 2 or (a < 4 and first)
        return f"The sum is {a + b if right else a + b + 1}."

    return op.ScriptedModel([answer], name="mixed")


def test_repeat_runs_each_prompt_k_times_and_the_summary_gives_pass_at_k_and_pass_hat_k():
    ev = op.evaluate(prompts(6), models=[mixed()], expect=right_sum, repeat=3, concurrency=4, progress=False)
    assert len(ev.rows) == 18
    assert [(row.prompt, row.repeat) for row in ev.rows[:4]] == [
        ("Add 0 and 1.", 0),
        ("Add 0 and 1.", 1),
        ("Add 0 and 1.", 2),
        ("Add 1 and 2.", 0),
    ]
    (line,) = ev.summary()
    assert (line.prompts, line.repeats, line.runs, line.passed) == (6, 3, 18, 8)
    assert (line.pass_at_k, line.pass_all_k, line.flaky) == (4, 2, 2)
    assert line.pass_at_k_rate == pytest.approx(4 / 6) and line.pass_all_k_rate == pytest.approx(2 / 6)
    assert line.pass_at_k_interval == pytest.approx((0.3000, 0.9032), abs=5e-4)
    assert line.pass_all_k_interval == pytest.approx((0.0968, 0.7000), abs=5e-4)


def test_where_flaky_finds_the_repeats_of_prompts_that_passed_only_sometimes():
    ev = op.evaluate(prompts(6), models=[mixed()], expect=right_sum, repeat=3, progress=False)
    flaky = ev.where(flaky=True)
    assert sorted({row.prompt for row in flaky.rows}) == ["Add 2 and 3.", "Add 3 and 4."]
    assert len(flaky.rows) == 6 and sum(row.passed for row in flaky.rows) == 2
    assert len(ev.where(flaky=False).rows) == 12
    with pytest.raises(TypeError, match="flaky"):
        ev.where(flaky="yes")


def test_wilson_intervals_of_known_counts():
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=5e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=5e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=5e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="3 successes in 2 trials"):
        wilson(3, 2)


def test_mcnemar_exact_p_values_computed_by_hand():
    # 9 and 2 discordant pairs: 2 × (C(11,0) + C(11,1) + C(11,2)) / 2^11 = 2 × 67 / 2048
    assert mcnemar_exact(2, 9) == pytest.approx(134 / 2048)
    assert mcnemar_exact(9, 2) == mcnemar_exact(2, 9)
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)  # 0.03125
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0


@op.function(name="add", register_globally=False)
def add_broken(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b + (1 if a < 9 else 0)  # wrong for the first nine prompts


def test_variants_run_every_prompt_under_each_and_compare_pairs_them():
    ev = op.evaluate(
        prompts(11),
        models=[careful()],
        variants={"short": [add_broken], "long": [plain_add]},
        expect=right_sum,
        progress=False,
    )
    assert len(ev.rows) == 22 and ev.variants == ["short", "long"]
    assert [(row.variant, row.passed) for row in ev.rows[:2]] == [("short", False), ("long", True)]
    summary = {line.variant: line for line in ev.summary()}
    assert (summary["short"].passed, summary["long"].passed) == (2, 11)
    paired = ev.compare("short", "long")
    assert (len(paired.pairs), len(paired.only_a), len(paired.only_b)) == (11, 0, 9)
    assert paired.p_value == pytest.approx(2 / 2**9)
    assert paired.sentence() == (
        "long passes 9 prompts short fails, short passes 0 long fails; p = 0.0039: significant at 5 %: long is better"
    )
    assert "Add 0 and 1." in repr(paired) and "<details>" in paired._repr_html_()
    assert [row.variant for row in ev.where(variant="long").rows] == ["long"] * 11


def test_the_sentence_of_nine_against_two_is_not_yet_significant():
    from openprogram_jupyter.lab.evaluation._paired import PairedComparison
    from openprogram_jupyter.lab.evaluation._report import EvalRow

    def pair(a_passes: bool, b_passes: bool) -> tuple[EvalRow, EvalRow]:
        return (EvalRow("p", "m", "pass" if a_passes else "fail"), EvalRow("p", "m", "pass" if b_passes else "fail"))

    pairs = [pair(False, True)] * 9 + [pair(True, False)] * 2 + [pair(True, True)] * 5
    assert PairedComparison("short", "long", pairs).sentence() == (
        "long passes 9 prompts short fails, short passes 2 long fails; p = 0.065: not yet significant"
    )


def test_a_variant_may_be_a_dict_of_run_options_and_bad_variants_are_named():
    def says(request):
        return f"system: {request.system}"

    ev = op.evaluate(
        ["Hi."],
        models=[op.ScriptedModel([says], name="echo")],
        variants={"terse": {"system": "Be terse."}, "chatty": {"system": "Be chatty."}},
        progress=False,
    )
    assert [row.answer for row in ev.rows] == ["system: Be terse.", "system: Be chatty."]
    with pytest.raises(TypeError, match="variant 'x' must be a list of tools or a dict of run options"):
        op.evaluate(["Hi."], models=[careful()], variants={"x": 3}, progress=False)
    with pytest.raises(ValueError, match="variants is empty"):
        op.evaluate(["Hi."], models=[careful()], variants={}, progress=False)
    with pytest.raises(ValueError, match="no variant 'both'"):
        ev.compare("terse", "both")
    with pytest.raises(ValueError, match="repeat must be a positive int"):
        op.evaluate(["Hi."], models=[careful()], repeat=0, progress=False)


def test_dry_run_counts_runs_and_requests_and_runs_nothing():
    started = []
    plan = op.evaluate(
        prompts(5),
        models=[op.ScriptedModel([lambda request: started.append(1) or "x"], name="m")],
        tools=[plain_add],
        repeat=2,
        variants={"a": [plain_add], "b": [plain_add]},
        expect=op.judge("anything", model=op.ScriptedModel(["x"], name="j")),
        dry_run=True,
        max_iterations=4,
    )
    assert started == [] and isinstance(plan, op.EvaluationPlan)
    assert plan.runs == 20 and plan.requests == (40, 120)  # 20 runs + 20 gradings; 20 × 4 + 20 × 2
    assert str(plan).startswith("20 run(s) (5 prompt(s) × 1 model(s) × 2 variant(s) × 2 repeat(s)), 40 to 120 requests")
    assert "no price known for m" in str(plan)


def test_dry_run_estimates_a_floor_of_the_cost_where_the_price_is_known():
    plan = op.evaluate(["x" * 4000], models=["openai:gpt-4.1-mini"], tools=[], dry_run=True)
    (floor,) = plan.cost_floor.values()
    assert floor == pytest.approx(1000 * 0.40 / 1_000_000, rel=0.05)  # ~1,000 input tokens at $0.40 per million
    assert "at least $0.0004" in str(plan)


def test_max_cost_caps_the_whole_evaluation_and_the_rows_not_started_say_so():
    priced = op.ScriptedModel(
        [op.AssistantMessage(content=[op.TextContent(text="ok")], usage=op.Usage(total_tokens=5, cost=0.5))],
        name="priced",
    )
    ev = op.evaluate(prompts(6), models=[priced], max_cost=1.0, concurrency=1, progress=False)
    assert [row.verdict for row in ev.rows] == ["pass", "pass", "stopped", "stopped", "stopped", "stopped"]
    assert ev.rows[2].why == ("not started: the evaluation's runs had cost $1.0000, reaching its max_cost of $1.0000")
    with pytest.raises(ValueError, match="max_cost must be a positive number"):
        op.evaluate(["Hi."], models=[priced], max_cost=-1, progress=False)
