"""Run settings: one declaration each (openprogram_jupyter/engine/settings.py), merged Runtime →
inherited → run, and everything that lists them generated from it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated

import pytest
from typing_extensions import TypedDict

import openprogram_jupyter as op
from openprogram_jupyter.engine.settings import DEFAULTS, SETTINGS, Flag, Setting, declared_settings, markdown_table
from openprogram_jupyter.tools.registry import Registry

from .conftest import call

REPO = Path(__file__).resolve().parents[2]


def test_the_docs_table_is_the_generated_one():
    assert markdown_table() in (REPO / "docs" / "settings.md").read_text(), (
        "docs/settings.md shows an old settings table: paste the output of settings.markdown_table()"
    )


def test_a_runtime_holds_defaults_and_a_run_lays_its_own_over_them():
    model = op.ScriptedModel([call("add", a=1, b=2), call("add", a=3, b=4), "done"])
    rt = op.Runtime(model=model, max_iterations=5, system="Be brief.")
    spec = rt.prepare("Add.", tools=[], max_iterations=2)
    assert spec.settings["max_iterations"] == 2
    assert spec.settings["system"] == "Be brief."  # the Runtime's, not overwritten by the run
    assert spec.settings["max_tool_calls"] == DEFAULTS["max_tool_calls"] == 500
    assert rt.settings["max_iterations"] == 5, "a run's keyword leaves the Runtime as it was"
    assert set(spec.settings) == set(SETTINGS)


def test_a_bad_setting_is_refused_where_it_is_given_naming_it():
    with pytest.raises(op.SetupError, match=r"^max_tool_calls must be a positive int or None, got 0$"):
        op.Runtime(model="offline", max_tool_calls=0)
    with pytest.raises(op.SetupError, match=r"^capture_wire must be True or False, got 'yes'$"):
        op.Runtime(model="offline").prepare("x", capture_wire="yes")
    with pytest.raises(op.SetupError, match=r"^not a run option: max_iteration \(see help"):
        op.Runtime(model="offline").prepare("x", max_iteration=3)
    with pytest.raises(op.SetupError, match=r"^not a run setting: top_k \(settings: system, "):
        op.Runtime(model="offline", top_k=5)


def test_the_settings_property_is_a_copy():
    rt = op.Runtime(model="offline")
    rt.settings["max_iterations"] = 1
    assert rt.settings["max_iterations"] == 20


def test_a_nested_run_inherits_only_the_settings_declared_inherited():
    seen = {}

    @op.agentic_function(register_globally=False)
    def helper(runtime=None) -> str:
        """Ask a helper."""
        nested = runtime.prepare("inner", tools=[])
        seen.update(nested.settings)
        return "ok"

    rt = op.Runtime(model=op.ScriptedModel([call("helper"), "done"]))
    rt.run(
        "Use the helper.",
        tools=[helper],
        text_tool_calls=True,
        capture_wire=True,
        max_iterations=3,
        system="outer only",
    )
    assert (seen["text_tool_calls"], seen["capture_wire"]) == (True, True)
    assert (seen["max_iterations"], seen["system"]) == (20, None), "caps and prompts are each run's own"


def test_a_nested_run_can_turn_an_inherited_setting_off():
    seen = {}

    @op.agentic_function(register_globally=False)
    def helper(runtime=None) -> str:
        """Ask a helper."""
        seen.update(runtime.prepare("inner", tools=[], capture_wire=False).settings)
        return "ok"

    op.Runtime(model=op.ScriptedModel([call("helper"), "done"])).run("Go.", tools=[helper], capture_wire=True)
    assert seen["capture_wire"] is False


def test_replace_keeps_every_keyword_of_the_runtime_but_the_changed_ones(tmp_path):
    def approve(request):
        return True

    registry = Registry()
    rt = op.Runtime(
        model="offline",
        approve=approve,
        tools_deny=["rm"],
        max_depth=3,
        cancel_grace=1.5,
        registry=registry,
        record=tmp_path / "c.json",
        text_tool_calls=True,
        capture_wire=True,
        max_cost=0.5,
    )
    other = op.ScriptedModel(["hi"])
    copy = rt.replace(model=other)
    assert copy.model_spec is other
    assert copy.registry is registry
    assert (copy.approve, copy.tools_deny, copy.max_depth, copy.cancel_grace) == (approve, ["rm"], 3, 1.5)
    assert copy.record == tmp_path / "c.json"
    assert copy.settings == rt.settings
    assert copy.replace(max_cost=None).settings["max_cost"] is None
    assert copy.settings["max_cost"] == 0.5


def test_a_fork_on_another_model_keeps_wire_capture_and_text_tool_calls():
    rt = op.Runtime(model=op.ScriptedModel([call("add", a=1, b=2), call("add", a=3, b=4), "done"]))

    @op.function(register_globally=False)
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    run = rt.run("Add twice.", tools=[add], capture_wire=True, text_tool_calls=True, max_cost=2.0)
    forked = rt.fork(run, 2, model=op.ScriptedModel(["forked answer"]), tools=[add])
    assert forked.text == "forked answer"
    assert forked.spec.settings["capture_wire"] and forked.spec.settings["text_tool_calls"]
    assert forked.spec.settings["max_cost"] == 2.0
    assert forked.wire_log is not None, "the fork captured its own rounds"


def test_a_new_setting_is_one_declaration(tmp_path):
    """Declare a setting in a copy of the package; it is a keyword, a checked value, a flag,
    in the usage and in the docs table, with nothing else written."""
    copy = tmp_path / "openprogram_jupyter"
    shutil.copytree(REPO / "openprogram_jupyter", copy, ignore=shutil.ignore_patterns("__pycache__"))
    settings = copy / "engine" / "settings.py"
    source = settings.read_text()
    anchor = "\n\ndef declared_settings("
    declaration = textwrap.indent(
        textwrap.dedent("""
        shout_level: Annotated[int | None, Setting(
            None, _Whole(1, "a positive int"), "how loudly to answer", Flag("--shout-level", "N|none", _Capped("x")))]
    """),
        "    ",
    )
    settings.write_text(source.replace(anchor, declaration.rstrip() + "\n" + anchor, 1))
    probe = textwrap.dedent("""
        import openprogram_jupyter as op
        from openprogram_jupyter.jupyter._options import USAGE, parse_options
        from openprogram_jupyter.engine.settings import markdown_table
        spec = op.Runtime(model="offline", shout_level=2).prepare("x", tools=[])
        assert spec.settings["shout_level"] == 2, spec.settings
        assert op.Runtime(model="offline").prepare("x", shout_level=7).settings["shout_level"] == 7
        try:
            op.Runtime(model="offline").prepare("x", shout_level=0)
        except op.SetupError as error:
            assert str(error) == "shout_level must be a positive int or None, got 0", error
        else:
            raise AssertionError("not checked")
        assert parse_options("--shout-level 4").run_options == {"shout_level": 4}
        assert "[--shout-level N|none]" in USAGE, USAGE
        assert "| `shout_level` | `None` | `--shout-level N\\\\|none` | how loudly to answer. |" in markdown_table()
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


# -- what mutmut found unpinned in engine/settings.py (docs/testing.md, "Mutation tool") -------


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("system", 3, "system must be a str or None, got int"),
        ("step", 1, "step must be True or False, got 1"),
        ("parallel_tool_calls", "no", "parallel_tool_calls must be True or False, got 'no'"),
        ("max_cost", 0, "max_cost must be a positive number (dollars) or None, got 0"),
        ("max_cost", float("inf"), "max_cost must be a positive number (dollars) or None, got inf"),
        ("max_cost", True, "max_cost must be a positive number (dollars) or None, got True"),
        ("trace", "yes", "trace must be True, False or an OpenTelemetry tracer provider, got 'yes'"),
        ("tool_choice", 3, None),
    ],
)
def test_each_check_refuses_with_the_setting_s_name_and_what_it_got(setting, value, message):
    with pytest.raises(op.SetupError) as refused:
        op.Runtime(model="offline").prepare("x", **{setting: value})
    assert refused.value.option == setting
    if message is not None:
        assert str(refused.value) == message


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (1023, "1023"),
        (126_977, "126977"),
        ("max", "'max'"),
        (True, "True"),
        (10**29, "100000000000000000000000000000"),
        (10**30, "a 31-digit number"),
        (10**40 - 1, "a 40-digit number"),
        (-(10**35), "a 36-digit number"),
    ],
)
def test_a_bad_reasoning_value_is_named_and_a_huge_number_by_its_size(value, named):
    with pytest.raises(op.SetupError) as refused:
        op.Runtime(model="offline").prepare("x", reasoning=value)
    assert refused.value.option == "reasoning"
    assert str(refused.value) == (
        f"reasoning must be 'low', 'medium', 'high', a token budget from 1,024 to 126,976, or None, got {named}"
    )


@pytest.mark.parametrize("value", [None, "low", "medium", "high", 1024, 126_976])
def test_every_allowed_reasoning_value_is_kept_as_given(value):
    assert op.Runtime(model="offline", reasoning=value).settings["reasoning"] == value


def test_the_flags_read_their_text_as_the_keyword_s_value():
    reasoning, max_cost = SETTINGS["reasoning"].flag.parse, SETTINGS["max_cost"].flag.parse
    assert [reasoning(t) for t in ("LOW", "Medium", "high", "2,048", "4_096")] == ["low", "medium", "high", 2048, 4096]
    assert [max_cost(t) for t in ("$0.05", "2")] == [0.05, 2.0]
    with pytest.raises(ValueError) as bad_reasoning:
        reasoning("lots")
    assert str(bad_reasoning.value) == "expected low, medium, high or a number of tokens, got 'lots'"
    with pytest.raises(ValueError) as bad_amount:
        max_cost("five")
    assert str(bad_amount.value) == "expected an amount in dollars such as 0.05, got 'five'"


def test_a_setting_that_is_not_one_lists_every_setting():
    with pytest.raises(op.SetupError) as refused:
        op.Runtime(model="offline", top_k=5, top_p=1)
    assert str(refused.value) == f"not a run setting: top_k, top_p (settings: {', '.join(SETTINGS)})"


def test_tracing_is_on_with_true_or_a_tracer_provider_and_off_with_false():
    class Provider:
        def get_tracer(self, *args, **kwargs):
            raise AssertionError("not traced in this test")

    provider = Provider()
    assert op.Runtime(model="offline", trace=provider).settings["trace"] is provider
    assert op.Runtime(model="offline", trace=True).settings["trace"] is True
    assert op.Runtime(model="offline", trace=False).settings["trace"] is False


# Checks and flag parsers are callable objects, so what they do is decided when they are
# called: these tests reach them through the settings a user gives.
WHOLE_NUMBER_SETTINGS = [
    # setting, smallest allowed, what the refusal calls an allowed value
    ("max_iterations", None, "an int"),
    ("max_tool_calls", 1, "a positive int"),
    ("max_tokens", 1, "a positive int"),
    ("context_window", 1, "a positive int"),
]


@pytest.mark.parametrize(("setting", "minimum", "kind"), WHOLE_NUMBER_SETTINGS)
def test_a_whole_number_setting_keeps_none_and_its_smallest_value_and_refuses_the_rest(setting, minimum, kind):
    runtime = op.Runtime(model="offline")
    assert runtime.prepare("x", **{setting: None}).settings[setting] is None
    smallest = -5 if minimum is None else minimum
    assert runtime.prepare("x", **{setting: smallest}).settings[setting] == smallest
    refused_values = [True, 2.0, "3"] + ([] if minimum is None else [minimum - 1])
    for value in refused_values:
        with pytest.raises(op.SetupError) as refused:
            runtime.prepare("x", **{setting: value})
        assert str(refused.value) == f"{setting} must be {kind} or None, got {value!r}"
        assert refused.value.option == setting


@pytest.mark.parametrize(
    ("setting", "counted"),
    [("max_iterations", "rounds"), ("max_tool_calls", "calls"), ("max_tokens", "tokens"), ("context_window", "tokens")],
)
def test_a_cap_s_flag_reads_none_in_any_case_and_numbers_with_separators(setting, counted):
    parse = SETTINGS[setting].flag.parse
    assert [parse(text) for text in ("none", "NONE", "Inf", "unlimited")] == [None] * 4
    assert [parse(text) for text in ("12", "1,000", "1_000")] == [12, 1000, 1000]
    with pytest.raises(ValueError) as refused:
        parse("lots")
    assert str(refused.value) == f"expected a whole number of {counted} or 'none', got 'lots'"


def test_an_amount_flag_takes_a_dollar_sign_and_nothing_else_before_the_number():
    parse = SETTINGS["max_cost"].flag.parse
    assert parse("$0.05") == 0.05
    with pytest.raises(ValueError) as refused:
        parse("X0.05")
    assert str(refused.value) == "expected an amount in dollars such as 0.05, got 'X0.05'"


# "opentelemetry" alone is a namespace package another distribution may provide without the API.
@pytest.mark.parametrize("missing", [("opentelemetry", "opentelemetry.trace"), ("opentelemetry.trace",)])
def test_without_opentelemetry_trace_is_refused_naming_the_setting_and_the_install_line(monkeypatch, missing):
    import importlib.util

    from openprogram_jupyter.core._install import install_hint

    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):  # as if the otel extra were not installed
        return None if name in missing else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(op.SetupError) as refused:
        op.Runtime(model="offline", trace=True)
    assert str(refused.value) == f"trace: tracing needs OpenTelemetry's API: {install_hint('otel')}"
    assert "opentelemetry-api" in str(refused.value)
    assert refused.value.option == "trace"


_LOUD = Setting(False, lambda name, value: value, "shout", Flag("--loud"))
_LEVEL = Setting(1, lambda name, value: value, "how loud")


class _Declared(TypedDict, total=False):
    loud: Annotated[bool, "a note", _LOUD]
    level: Annotated[int, _LEVEL, 3]


class _Undeclared(TypedDict, total=False):
    loud: Annotated[bool, _LOUD]
    bare: int


class _Twice(TypedDict, total=False):
    loud: Annotated[bool, _LOUD, _LEVEL]


def test_the_declarations_are_read_in_order_each_key_s_one_setting_beside_other_metadata():
    assert list(declared_settings(_Declared).items()) == [("loud", _LOUD), ("level", _LEVEL)]
    with pytest.raises(TypeError) as missing:
        declared_settings(_Undeclared)
    assert str(missing.value) == "_Undeclared.bare must be Annotated with one Setting, has 0"
    with pytest.raises(TypeError) as twice:
        declared_settings(_Twice)
    assert str(twice.value) == "_Twice.loud must be Annotated with one Setting, has 2"


def test_the_sampling_controls_are_checked_naming_the_setting():
    rt = op.Runtime(model="offline")
    with pytest.raises(op.SetupError, match=r"^temperature must be a number from 0 to 2 or None, got 2.5$"):
        rt.prepare("x", temperature=2.5)
    with pytest.raises(op.SetupError, match=r"^temperature must be a number from 0 to 2 or None, got True$"):
        rt.prepare("x", temperature=True)
    with pytest.raises(op.SetupError, match=r"^stop_sequences must be a list of at most 16 non-empty strings"):
        rt.prepare("x", stop_sequences="END")
    with pytest.raises(op.SetupError, match=r"^max_output_tokens must be a positive int or None, got 0$"):
        rt.prepare("x", max_output_tokens=0)
    spec = rt.prepare("x", temperature=1, stop_sequences=["a", "a", "b"], max_output_tokens=5)
    assert (spec.settings["temperature"], spec.settings["stop_sequences"]) == (1.0, ("a", "b"))
