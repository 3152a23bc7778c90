"""Property tests where the input space is large: a deny rule can never be bypassed, and a
secret split anywhere across streamed pieces is never shown or stored whole."""

from __future__ import annotations

import contextlib
import fnmatch
import json

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import openprogram_jupyter as op
from openprogram_jupyter.core._secrets import MASK, Secrets, StreamMask

from .conftest import call

FAST = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

name_chars = st.sampled_from("abcdrop_*?[]!-.é日")
tool_names = st.text(st.sampled_from("abcdrop_-.é日"), min_size=1, max_size=10)
globs = st.text(name_chars, min_size=1, max_size=8).filter(lambda g: "(" not in g and "=" not in g)
values = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))


@FAST
@given(deny=globs, allow=globs, name=tool_names)
def test_deny_wins_over_every_allow_for_each_name_its_glob_matches(deny, allow, name):
    decision = op.policy(allow=[allow, "*"], deny=[deny]).decide(name, {})
    if fnmatch.fnmatchcase(name, deny):
        assert decision is not None and decision.action == "deny"
    else:
        assert decision is not None and decision.action == "allow"


@FAST
@given(value=values, other=st.dictionaries(st.sampled_from(["x", "y", "path"]), values, max_size=2))
def test_an_argument_deny_rule_matches_whatever_else_the_call_holds(value, other):
    """A deny rule naming an argument's exact value (a glob can hold no edge white space)."""
    text = value if isinstance(value, str) else json.dumps(value)
    assume(text and text == text.strip())
    glob = "".join("[*]" if c == "*" else "[?]" if c == "?" else "[[]" if c == "[" else c for c in text)
    decision = op.policy(allow=["*"], deny=[f"rm(path={glob})"]).decide("rm", {**other, "path": value})
    assert decision is not None and decision.action == "deny"


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.lists(st.fixed_dictionaries({"table": st.text(max_size=6)}), min_size=1, max_size=3))
def test_a_denied_tool_never_runs_whatever_its_arguments(arguments):
    ran: list[str] = []

    def drop_table(table: str) -> str:
        """Drop a table."""
        ran.append(table)
        return "dropped"

    tool = op.function(drop_table, register_globally=False)
    model = op.ScriptedModel([[call("drop_table", **a) for a in arguments], "done"])
    run = op.Runtime(model=model).run("go", tools=[tool], approve=op.policy(allow=["*"], deny=["drop_*"]))
    assert ran == [] and all(r.status == "denied" for r in run.tool_results)


secrets = st.text(st.characters(codec="utf-8", categories=["L", "N", "P"]), min_size=8, max_size=24)


@FAST
@given(secret=secrets, before=st.text(max_size=20), after=st.text(max_size=20), cuts=st.lists(st.integers(0, 80)))
def test_a_secret_cut_anywhere_across_streamed_pieces_is_never_shown_whole(secret, before, after, cuts):
    text = f"{before}{secret}{after}"
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    known = Secrets([secret])
    stream = StreamMask(known)
    shown = "".join(stream.feed(0, piece) for piece in pieces) + "".join(stream.flush().values())
    assert secret not in shown and MASK in shown
    stored = known.mask_pieces(pieces)
    assert secret not in "".join(stored) and len(stored) == len(pieces)


# Text made of what masking reacts to: known values, keys' shapes, whitespace, words.
_words = st.sampled_from(
    ["sk-", "abcdef1234", "Bearer ", "api_key=", "AKIA", "AIza", " ", "\n", "  \t", "x", "é", "***"]
)


@FAST
@given(
    secret=secrets,
    parts=st.lists(st.one_of(_words, st.just("SECRET")), max_size=60),
    length=st.integers(0, 120),
    repeat=st.integers(1, 40),
)
def test_masking_a_texts_start_shows_what_masking_the_whole_shows(secret, parts, length, repeat):
    """Issue 45, item 2: a long text's start masked on its own (how a cut reply or result
    is shown) shows the same characters as the whole text masked, wherever a secret or a
    key falls across the end of the part masked."""
    from openprogram_jupyter.render._format import shorten, truncate

    text = "".join(secret if part == "SECRET" else part for part in parts) * repeat
    known = Secrets([secret])
    masked, end = known.mask_start(text, length)
    whole = known.mask(text)
    assert masked[:length] == whole[:length]
    assert end == len(text) or len(masked) > length
    with remember_only(secret):
        cut, note = truncate(text, length)
        assert cut == whole[: length or None] and (note is None) == (length == 0 or len(whole) <= length)
        if length >= 2:
            line = " ".join(whole.split())
            assert shorten(text, length) == (line if len(line) <= length else line[: length - 1] + "…")


@contextlib.contextmanager
def remember_only(secret: str):
    """The process's known secrets are exactly ``secret`` while the block runs."""
    from openprogram_jupyter.core import _secrets

    saved, variables = set(_secrets._remembered), dict(_secrets._variables)
    _secrets._remembered.clear()
    _secrets._variables.clear()
    _secrets.remember(secret)
    try:
        yield
    finally:
        _secrets._remembered.clear()
        _secrets._remembered.update(saved)
        _secrets._variables.update(variables)
