"""ev.compare of two variants as the user reads it: the sentence, the text and HTML views
of the discordant pairs, which rows pair up, and the errors naming a bad comparison."""

from __future__ import annotations

import re

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.lab.evaluation._paired import PairedComparison
from openprogram_jupyter.lab.evaluation._report import EvalRow
from openprogram_jupyter.render import render_html

from .scenario import careful, plain_add, prompts, right_sum

NUMBER = "text-align:right;vertical-align:top;white-space:nowrap;padding:2px 8px"
TEXT = "text-align:left;vertical-align:top;padding:2px 8px"


def row(prompt: str, verdict: str, **fields) -> EvalRow:
    return EvalRow(prompt, "m", verdict, **fields)  # type: ignore[arg-type]


def one_each_way() -> PairedComparison:
    """One pair passed under short alone (repeat 1, no picks, an HTML-looking why on
    long's side), one under long alone (repeat 0, two picks, short says why), one that
    agrees."""
    return PairedComparison(
        "short",
        "long",
        [
            (
                row("Add 1 and 2.", "fail", picks=["add", "check"], tokens=12, number=1, why="wrong sum"),
                row("Add 1 and 2.", "pass", picks=["add"], tokens=30, number=2),
            ),
            (
                row("Add <1> $x$.", "pass", tokens=5, number=3, repeat=1),
                row("Add <1> $x$.", "fail", tokens=1234, number=4, repeat=1, why="<b>no</b>"),
            ),
            (row("Agreed.", "pass", number=5), row("Agreed.", "pass", number=6)),
        ],
    )


def cells(html: str, tag: str) -> list[tuple[str, str]]:
    """Every ``tag`` cell of ``html`` as (style, content), in document order."""
    return re.findall(rf'<{tag} style="([^"]*)">(.*?)</{tag}>', html)


def test_a_tie_names_the_second_variant_first_and_one_prompt_is_singular():
    assert one_each_way().sentence() == (
        "long passes 1 prompt short fails, short passes 1 long fails; p = 1: not yet significant"
    )


def test_the_variant_ahead_is_named_first_whichever_of_the_two_it_is():
    pairs = [(row("p", "pass"), row("p", "fail"))] * 2 + [(row("q", "pass"), row("q", "pass"))]
    assert PairedComparison("short", "long", pairs).sentence() == (
        "short passes 2 prompts long fails, long passes 0 short fails; p = 0.5: not yet significant"
    )


def test_the_text_view_lists_each_discordant_pair_with_its_repeat_picks_and_tokens():
    assert repr(one_each_way()).split("\n") == [
        "long passes 1 prompt short fails, short passes 1 long fails; p = 1: not yet significant",
        "  'Add <1> $x$.' on m (repeat 1): short pass [] 5 tokens | long fail [] 1234 tokens",
        "  'Add 1 and 2.' on m: short fail [add, check] 12 tokens | long pass [add] 30 tokens",
    ]


def test_the_html_view_is_math_inert_with_both_sides_columns_and_numbers_right_aligned():
    html = one_each_way()._repr_html_()
    assert html.startswith('<div class="mathjax_ignore tex2jax_ignore"><div class="openprogram-comparison">')
    heads = cells(html, "th")
    assert [text for _, text in heads] == [
        "prompt",
        "model",
        "repeat",
        "short: result",
        "short: picks",
        "short: tokens",
        "short: run",
        "long: result",
        "long: picks",
        "long: tokens",
        "long: run",
    ]
    assert [i for i, (style, _) in enumerate(heads) if style == NUMBER] == [2, 5, 9]
    assert {style for i, (style, _) in enumerate(heads) if i not in (2, 5, 9)} == {TEXT}
    body = [text for _, text in cells(html, "td")]
    assert body == [
        "Add &lt;1&gt; $x$.",
        "<code>m</code>",
        "1",
        "✓ pass",
        "—",
        "5",
        "#3",
        "✗ fail<br><small>&lt;b&gt;no&lt;/b&gt;</small>",
        "—",
        "1,234",
        "#4",
        "Add 1 and 2.",
        "<code>m</code>",
        "0",
        "✗ fail<br><small>wrong sum</small>",
        "add, check",
        "12",
        "#1",
        "✓ pass",
        "add",
        "30",
        "#2",
    ]


def broken_for_the_first_nine() -> op.Evaluation:
    @op.function(name="add", register_globally=False)
    def add_broken(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b + (1 if a < 9 else 0)

    return op.evaluate(
        prompts(11),
        models=[careful()],
        variants={"short": [add_broken], "long": [plain_add]},
        expect=right_sum,
        progress=False,
    )


def test_each_side_of_a_pair_opens_on_its_own_run_under_its_row_number():
    ev = broken_for_the_first_nine()
    html = ev.compare("short", "long")._repr_html_()
    for shown in ev.rows[:2]:  # "Add 0 and 1." under short (answered 2), then under long
        assert f">#{shown.number}</summary>{render_html(shown.run)}</details>" in html


def test_rows_filtered_out_under_one_variant_leave_the_others_paired_with_their_own_prompt():
    ev = broken_for_the_first_nine()
    view = ev.where(lambda r: r.variant == "short" or r.prompt not in ("Add 0 and 1.", "Add 1 and 2."))
    paired = view.compare("short", "long")
    assert [(x.prompt, y.prompt) for x, y in paired.pairs] == [(p, p) for p in prompts(11)[2:]]
    assert (len(paired.only_a), len(paired.only_b)) == (0, 7)


def test_a_prompt_given_twice_pairs_each_copy_with_the_same_copy_under_the_other_variant():
    ev = op.evaluate(
        ["Add 1 and 2.", "Add 1 and 2."],
        models=[careful()],
        variants={"a": [plain_add], "b": [plain_add]},
        expect=right_sum,
        progress=False,
    )
    pairs = [(x.number, y.number) for x, y in ev.compare("a", "b").pairs]
    by_variant = {v: [r.number for r in ev.rows if r.variant == v] for v in ("a", "b")}
    assert pairs == list(zip(by_variant["a"], by_variant["b"], strict=True)) and len(pairs) == 2


def test_a_bad_comparison_says_which_variants_there_are_or_that_it_named_one_twice():
    ev = op.evaluate(
        ["Hi."],
        models=[careful()],
        variants={"terse": {"system": "Be terse."}, "chatty": {"system": "Be chatty."}},
        progress=False,
    )
    with pytest.raises(ValueError) as unknown:
        ev.compare("terse", "both")
    assert str(unknown.value) == "no variant 'both' in this evaluation: the variants are 'terse', 'chatty'"
    with pytest.raises(ValueError) as twice:
        ev.compare("terse", "terse")
    assert str(twice.value) == "compare needs two different variants, got 'terse' twice"
