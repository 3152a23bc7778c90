"""Hypothesis strategies the fuzzers share: text in any Unicode (lone surrogates and the
planted key included) and JSON-like values (NaN, infinities, 10**30, deep nesting)."""

from __future__ import annotations

from hypothesis import strategies as st

from .conftest import PLANTED

any_char = st.characters(exclude_categories=())  # every code point, surrogates included
texts = st.one_of(
    st.text(any_char, max_size=40),
    st.sampled_from(
        [
            "",
            " ",
            "\x00",
            "\ud83d",
            "\ud83d\ude00",
            "\u202e",
            "```",
            "<script>",
            "{{",
            PLANTED,
            f"key={PLANTED}!",
            "\n" * 5,
        ]
    ),
    st.builds(lambda a, b: a + PLANTED + b, st.text(any_char, max_size=5), st.text(any_char, max_size=5)),
)
numbers = st.one_of(
    st.integers(),
    st.sampled_from([10**30, -(2**63), 2**64, 0]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e30, -1e308, 5e-324]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
json_like = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=4)),
    max_leaves=12,
)
arguments = st.dictionaries(texts, json_like, max_size=4)
