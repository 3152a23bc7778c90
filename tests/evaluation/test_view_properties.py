"""Property tests of an evaluation's views: sorting and filtering keep every row once, in the
order asked, and compare pairs the k-th run of a prompt on one model with the k-th on the
other (issue 45, item 2)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from openprogram_jupyter.lab.evaluation._report import EvalRow, Evaluation

VERDICTS = ["pass", "fail", "error", "timeout", "stopped"]
MODELS = ["a", "b", "c"]
PROMPTS = ["one", "two", "three", "Four"]

rows = st.lists(
    st.builds(
        EvalRow,
        prompt=st.sampled_from(PROMPTS),
        model=st.sampled_from(MODELS),
        verdict=st.sampled_from(VERDICTS),
        tokens=st.integers(0, 50),
        cost=st.one_of(st.none(), st.floats(0, 1, allow_nan=False)),
        seconds=st.floats(0, 10, allow_nan=False),
    ),
    max_size=12,
).map(lambda made: [_numbered(row, number) for number, row in enumerate(made, 1)])
KEYS = ["number", "prompt", "model", "verdict", "tokens", "cost", "seconds"]
FAST = settings(max_examples=150, deadline=None, derandomize=True)


def _numbered(row: EvalRow, number: int) -> EvalRow:
    row.number = number
    return row


def _evaluation(made: list[EvalRow]) -> Evaluation:
    return Evaluation(made, [m for m in MODELS if any(r.model == m for r in made)])


def _sort_value(row: EvalRow, key: str) -> object:
    if key == "cost":
        return math.inf if row.cost is None else row.cost
    if key == "verdict":
        return row.verdict != "pass"
    return getattr(row, key)


@FAST
@given(made=rows, key=st.sampled_from(KEYS), descending=st.booleans())
def test_a_sort_keeps_every_row_once_in_the_order_asked(made, key, descending):
    ordered = _evaluation(made).sort(key, descending=descending).rows
    assert sorted(r.number for r in ordered) == [r.number for r in made]
    values = [_sort_value(r, key) for r in ordered]
    assert values == sorted(values, reverse=descending)


@FAST
@given(made=rows, model=st.sampled_from(MODELS), verdict=st.sampled_from(VERDICTS), text=st.sampled_from(["o", "f"]))
def test_a_filter_keeps_exactly_the_rows_that_match_in_their_order(made, model, verdict, text):
    evaluation = _evaluation(made)
    if model not in evaluation.models:
        return
    kept = evaluation.where(model=model, verdict=verdict, contains=text).rows
    expected = [r for r in made if r.model == model and r.verdict == verdict and text in r.prompt.lower()]
    assert [r.number for r in kept] == [r.number for r in expected]


@FAST
@given(made=rows)
def test_compare_pairs_the_kth_run_of_a_prompt_on_each_model_where_their_verdicts_differ(made):
    evaluation = _evaluation(made)
    if not {"a", "b"} <= set(evaluation.models):
        return
    by_prompt: dict[tuple[str, str], list[EvalRow]] = {}
    for row in made:
        by_prompt.setdefault((row.model, row.prompt), []).append(row)
    expected = [
        (row_a.number, row_b.number)
        for (model, prompt), on_a in by_prompt.items()
        if model == "a"
        for row_a, row_b in zip(on_a, by_prompt.get(("b", prompt), []), strict=False)
        if row_a.verdict != row_b.verdict
    ]
    pairs = [(row_a.number, row_b.number) for row_a, row_b in evaluation.compare("a", "b").pairs]
    assert sorted(pairs) == sorted(expected)
