"""``op.rerun_all``'s report as a user reads it, its defaults, the runtime each rerun runs
on, and what a rerun says it replays (what mutmut found unpinned in engine/rerun.py;
docs/testing.md, "Mutation tool")."""

from __future__ import annotations

import pickle
import re

import pytest

import openprogram_jupyter as op
from openprogram_jupyter.core import _ambient, _viewer

from .conftest import call
from .test_rerun import PROMPT, SCRIPT, define_find_city


@pytest.fixture
def recorded():
    """test_rerun's four-round run: three look-ups, then the answer."""
    define_find_city()
    model = op.ScriptedModel(list(SCRIPT))
    return op.Runtime(model=model).run(PROMPT), model


def _report(run):
    other = op.Runtime(model=op.ScriptedModel([call("find_city", city="nice"), "Nice."])).run("Find Nice.")
    define_find_city({"paris": "PARIGI"})  # the three-city run diverges at round 1, the other not
    return op.rerun_all({"three <cities>": run, "nice only": other})


def test_the_report_reads_as_lines_of_text(recorded):
    run, _ = recorded
    assert repr(_report(run)) == "\n".join(
        [
            "1 of 2 run(s) diverged",
            "  three <cities> · round 1 · find_city · find_city returned a different result",
            "  nice only · — · no divergence",
        ]
    )


def test_the_report_shows_in_a_notebook_as_a_captioned_table_escaped(recorded):
    run, _ = recorded
    html = _report(run)._repr_html_()
    assert html.startswith('<div class="mathjax_ignore tex2jax_ignore"><div><div>1 of 2 run(s) diverged</div><table>')
    assert html.endswith("</table></div></div><!--/math-inert-->")  # made inert for MathJax once, as a whole
    assert re.findall(r"<th [^>]*>([^<]*)</th>", html) == ["run", "diverged at", "call", "why"]
    assert ">three &lt;cities&gt;</td>" in html and "<cities>" not in html
    assert ">round 1</td>" in html and ">no divergence</td>" in html


def test_rerun_all_stops_each_run_at_its_divergence_unless_told_live(recorded):
    run, model = recorded
    define_find_city({"nice": "NIZZA"})
    [row] = op.rerun_all([run])
    assert row.rerun.stop_reason == "diverged" and row.rerun.rounds == 3
    assert len(model.requests) == 4  # the recording's: the model was not asked again


def test_rerun_all_gives_each_rerun_the_options_it_is_given(recorded):
    run, _ = recorded
    define_find_city({"nice": "NICE (checked 12:04)"})
    [row] = op.rerun_all([run], same=lambda recorded, now: now.text.startswith(recorded.text))
    assert row.divergence is None and row.rerun.stop_reason == "stop"


def test_rerun_all_reruns_each_run_on_its_own_runtime_else_on_the_notebook_s(recorded):
    run, _ = recorded
    restored = pickle.loads(pickle.dumps(run))  # a run kept without its Runtime
    assert restored.runtime is None
    own, kept = op.rerun_all([run, restored])
    assert own.rerun.runtime is run.runtime
    assert kept.rerun.runtime is _ambient.ambient_runtime() and kept.divergence is None


def test_a_rerun_says_which_run_it_replays_by_its_variable_else_its_id(recorded, monkeypatch):
    run, _ = recorded
    notice = ": the recorded reply (no model request); its calls ran again"
    assert f"rerun of {run.run_id}{notice}" in repr(run.rerun())
    monkeypatch.setattr(_viewer, "_namer", lambda obj: "first" if obj is run else None)
    assert f"rerun of first{notice}" in repr(run.rerun())


def test_a_rerun_whose_tool_is_gone_says_it_is_the_rerun_that_needs_it(recorded):
    run, _ = recorded
    restored = pickle.loads(pickle.dumps(run))  # kept without the tools it ran with
    op.default_registry.clear()
    with pytest.raises(op.SetupError) as refused:
        restored.rerun(runtime=op.Runtime(model=op.ScriptedModel([])))
    assert str(refused.value) == (
        "rerun: the run used the tool 'find_city', which is no longer registered; pass tools=[...]"
    )
