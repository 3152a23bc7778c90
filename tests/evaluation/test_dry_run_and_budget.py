"""dry_run's plan as the user reads it — its sentence, and its cost floor: the prompt, the
system prompt and the tools' schemas at 4 characters a token, per model, over every run —
and max_cost with runs whose price is not known."""

from __future__ import annotations

import json

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core.messages import Usage
from openprogram_jupyter.models.pricing import cost_of

from .scenario import plain_add, prompts

PRICED = "openai:gpt-4.1-mini"


def input_cost(tokens: int) -> float:
    cost = cost_of(PRICED, Usage(input=tokens))
    assert cost is not None
    return cost


def shout(text: str) -> str:
    """Shout a text (a plain function as a tool)."""
    return text.upper()


def test_the_sentence_of_one_variant_and_one_repeat_names_every_model_without_a_price():
    plan = op.evaluate(
        prompts(3),
        models=[op.ScriptedModel(["x"], name="first"), op.ScriptedModel(["x"], name="second")],
        dry_run=True,
        max_iterations=5,
    )
    assert str(plan) == (
        "6 run(s) (3 prompt(s) × 2 model(s)), 6 to 30 requests; cost not estimated: no price known for first, second"
    )


def test_the_floor_counts_the_prompt_the_system_prompt_and_each_tools_schema_at_four_characters_a_token():
    prompt = "Add 2 and 3, please."
    system = "Be brief. " * 41
    plan = op.evaluate([prompt], models=[PRICED], tools=[plain_add, shout], system=system, dry_run=True)
    sent = prompt + system + json.dumps([plain_add.spec, "shout"])
    assert plan.cost_floor == {PRICED: pytest.approx(input_cost(len(sent) // 4))}


def test_a_tiny_request_counts_one_token_and_every_run_of_a_model_adds_to_its_floor():
    tiny = op.evaluate(["x"], models=[PRICED], tools=[], dry_run=True)
    assert tiny.cost_floor == {PRICED: pytest.approx(input_cost(1))}
    unpriced = op.ScriptedModel(["x"], name="unpriced")
    plan = op.evaluate(
        ["x" * 400, "x" * 800],
        models={"unpriced": unpriced, "priced": PRICED},
        tools=[],
        dry_run=True,
    )
    # "[]" is the empty list of schemas: 402 and 802 characters, 100 and 200 tokens
    assert plan.cost_floor == {"unpriced": None, "priced": pytest.approx(input_cost(100) + input_cost(200))}


def test_a_model_made_by_a_function_has_no_price_to_look_up():
    plan = op.evaluate(["Hi."], models={"made": lambda: op.ScriptedModel(["hi"], name="made")}, dry_run=True)
    assert plan.cost_floor == {"made": None}
    assert str(plan).endswith("cost not estimated: no price known for made")


def test_runs_whose_price_is_not_known_count_nothing_towards_max_cost():
    unpriced = op.ScriptedModel(["ok"], name="unpriced")
    ev = op.evaluate(prompts(4), models=[unpriced], max_cost=1.5, concurrency=1, progress=False)
    assert [row.verdict for row in ev.rows] == ["pass"] * 4
    assert all(row.cost is None for row in ev.rows)
