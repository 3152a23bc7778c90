"""Generated code (``run.to_code()``, ``run.to_test()``) holds untrusted text only as data:
values are masked before they become literals, never the rendered source."""

from __future__ import annotations

import ast
import math
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from written_tests import pytest_on

import openprogram_jupyter as op
from openprogram_jupyter.core._code_writer import CodeWriter, UnwritableValue
from openprogram_jupyter.core._secrets import Secrets, remember

from .conftest import call

KEY = "sk-code-writer-0123456789abcdef"
remember(KEY)  # as an api_key= given to any Runtime of the kernel is


def echo(text: str) -> str:
    """Echo the text."""
    return text


def evaluated(node: ast.expr):
    """The value of a literal the writer built (``float('nan')`` and the like included)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "float"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
    ):
        return float(node.args[0].value)
    if isinstance(node, ast.List):
        return [evaluated(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(evaluated(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return {evaluated(k): evaluated(v) for k, v in zip(node.keys, node.values, strict=True)}
    return ast.literal_eval(node)


def same(a, b) -> bool:
    """Equality in which NaN equals NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return len(a) == len(b) and all(same(a[k], b[k]) for k in a if k in b) and a.keys() == b.keys()
    return a == b


def names_in(source: str) -> set[str]:
    return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}


# -- the exploits of the issue: each closed a literal early through masking of the source ------

ESCAPED_QUOTE_ANSWER = 'Bearer z\'+str(__import__("os").system("touch M")), case_sensitive=True)#'
ESCAPED_QUOTE_ARGUMENT = 'api_key=z\'if __import__("os").system("touch M")else"")#'


def test_an_escaped_quote_in_a_key_shape_stays_inside_its_literal_in_the_written_test(tmp_path):
    tool = op.function(echo, register_globally=False)
    model = op.ScriptedModel([call("echo", text="hi"), ESCAPED_QUOTE_ANSWER])
    path = op.Runtime(model=model).run("go", tools=[tool]).to_test(tmp_path / "test_quote.py")
    source = path.read_text()
    assert "system" not in {n.attr for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Attribute)}
    code, output = pytest_on(path)
    assert code == 0 and "2 passed" in output, output
    assert not (tmp_path / "M").exists()


def test_an_escaped_quote_in_a_key_shaped_argument_stays_inside_its_literal_in_to_code(tmp_path):
    tool = op.function(echo, register_globally=False)
    model = op.ScriptedModel([call("echo", text=ESCAPED_QUOTE_ARGUMENT), "done"])
    source = op.Runtime(model=model).run("go", tools=[tool]).to_code()
    tree = ast.parse(source)
    assert "system" not in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    (assign,) = [node for node in tree.body if isinstance(node, ast.Assign)]
    masked = 'api_key=***\'if __import__("os").system("touch M")else"")#'
    assert evaluated(assign.value.keywords[0].value) == masked


def test_a_tool_body_using_an_api_key_keyword_is_copied_as_it_is(tmp_path):
    tool = op.function(uses_a_client, register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("uses_a_client", token="abc"), "ok"])).run("go", tools=[tool])
    source = run.to_test(tmp_path / "test_client.py").read_text()
    assert "return str(sorted(dict(api_key=token)))" in source
    compile(source, "test_client.py", "exec")


def uses_a_client(token: str) -> str:
    """Make a client."""
    return str(sorted(dict(api_key=token)))


def test_non_finite_numbers_are_written_as_float_calls():
    writer = CodeWriter(Secrets())
    assert writer.literal([math.nan, math.inf, -math.inf, 1.5]) == "[float('nan'), float('inf'), float('-inf'), 1.5]"
    assert same(eval(writer.literal({"x": math.nan})), {"x": math.nan})


def test_values_that_are_not_plain_data_are_refused_by_name():
    plain = "(None, bool, int, float, str, bytes, list, tuple, dict)"
    with pytest.raises(UnwritableValue, match=re.escape(f"a set is not plain data {plain} and cannot be written")):
        CodeWriter(Secrets()).literal({"a": {1, 2}})


def test_a_pick_with_arguments_that_are_not_plain_data_becomes_a_comment():
    tool = op.function(echo, register_globally=False)
    import datetime

    model = op.ScriptedModel([call("echo", text="x"), "ok"])
    run = op.Runtime(model=model).run(
        "go", tools=[tool], step=True, approve=lambda request: op.edit(text=datetime.date(2020, 1, 2))
    )
    source = run.to_code()
    compile(source, "code", "exec")
    assert "its arguments cannot be written: a date is not plain data" in source


def test_a_secret_in_a_tool_source_is_masked_by_value_only(tmp_path):
    module = tmp_path / "keyed.py"
    module.write_text(f'def keyed(city: str) -> str:\n    """Look up."""\n    return "{KEY}" + city\n')
    namespace: dict = {"__name__": "__main__"}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    import linecache

    linecache.checkcache(str(module))
    tool = op.function(namespace["keyed"], register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("keyed", city="a"), "ok"])).run("go", tools=[tool])
    source = run.to_test(tmp_path / "test_keyed.py").read_text()
    assert KEY not in source and 'return "***" + city' in source


# -- property tests: any text, anywhere -------------------------------------------------------

SPECIALS = [
    "\u2028",
    "\u2029",
    "\u0085",
    "\x0c",
    "\r",
    "\n",
    "'",
    '"',
    "\\",
    "#",
    "'''",
    '"""',
    "\\'",
    "Bearer ",
    "api_key=",
    "sk-",
    KEY,
    "AIza",
    "\x00",
    "{",
    "}",
    "\ud83d",
]
texts = st.lists(st.one_of(st.text(max_size=12), st.sampled_from(SPECIALS)), max_size=6).map("".join)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=8,
)
FAST_LITERALS = settings(max_examples=200, deadline=None, derandomize=True)
tool_names = st.one_of(st.sampled_from(["echo", "lookup"]), texts.filter(bool))


@st.composite
def runs(draw):
    """A scripted run: rounds of picks of ``echo`` (with any text) and of any name, any answer."""
    rounds = []
    for _ in range(draw(st.integers(1, 3))):
        any_arguments = st.dictionaries(texts, json_values, max_size=3)
        picks = [
            call("echo", text=draw(texts))
            if draw(st.booleans())
            else op.ToolCall(name=draw(tool_names), arguments=draw(any_arguments))
            for _ in range(draw(st.integers(1, 2)))
        ]
        rounds.append(picks)
    answer, prompt = draw(texts), draw(texts)
    tool = op.function(echo, register_globally=False)
    return op.Runtime(model=op.ScriptedModel([*rounds, answer or "done"])).run(
        prompt if prompt.strip() else f"go {prompt}", tools=[tool]
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(runs())
@example(
    op.Runtime(model=op.ScriptedModel([call("echo", text=ESCAPED_QUOTE_ARGUMENT), ESCAPED_QUOTE_ANSWER])).run(
        "go", tools=[op.function(echo, register_globally=False)]
    )
)
def test_to_code_compiles_names_only_its_own_and_every_literal_is_the_masked_value(run):
    source = run.to_code()
    tree = ast.parse(source)
    done = [r for r in run.tool_results if r.status == "done"]
    assert names_in(source) <= {"echo", "float", "op"} | {f"echo_{n}" for n in range(1, len(done) + 1)}
    calls = [node.value for node in tree.body if isinstance(node, ast.Assign)]
    picked = {r.tool_call_id: r for r in done}
    wanted = [c for m in run.messages if isinstance(m, op.AssistantMessage) for c in m.tool_calls if c.id in picked]
    assert len(calls) == len(wanted)
    writer = CodeWriter()
    for node, tool_call in zip(calls, wanted, strict=True):
        written = {keyword.arg: evaluated(keyword.value) for keyword in node.keywords}
        assert same(written, writer.masked(tool_call.arguments))
    assert KEY not in source


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(runs())
def test_to_test_compiles_names_only_its_own_and_every_literal_is_the_masked_value(run):
    with tempfile.TemporaryDirectory() as folder:
        source = run.to_test(Path(folder) / "test_any.py").read_text()
    tree = ast.parse(source)
    assert names_in(source) <= {
        "Path",
        "op",
        "function",
        "CASSETTE",
        "PROMPT",
        "SETTINGS",
        "TOOLS",
        "replayed",
        "recorded",
        "results",
        "len",
        "number",
        "name",
        "text",
        "result",
        "scrub",
        "returned",
        "enumerate",
        "zip",
        "float",
        "echo",
        "str",
        "__file__",
    }
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    from openprogram_jupyter.models.replay import scrub

    assert evaluated(constants["PROMPT"]) == scrub(run.messages[0].text)
    assert KEY not in source


@FAST_LITERALS
@given(value=st.one_of(json_values, st.tuples(json_values, json_values), st.binary(max_size=8)))
def test_every_plain_value_becomes_a_literal_of_its_masked_self(value):
    writer = CodeWriter()
    written = writer.literal(value)
    assert same(evaluated(ast.parse(written, mode="eval").body), writer.masked(value))
    assert names_in(written) <= {"float"}


def test_the_secrets_given_are_the_ones_masked():
    writer = CodeWriter(Secrets(["my-own-secret-value"]))
    assert writer.literal(["my-own-secret-value", "ok"]) == "['***', 'ok']"
    assert writer.comment("uses my-own-secret-value") == "# uses ***"


def test_a_tool_name_that_is_a_keyword_or_no_identifier_is_called_through_the_registry():
    from openprogram_jupyter.core._code_writer import is_plain_name

    assert [is_plain_name(name) for name in ("area", "class", "1st", "with-dash", "_x")] == [
        True,
        False,
        False,
        False,
        True,
    ]


def test_copied_source_that_masking_would_break_is_refused_naming_the_tool():
    writer = CodeWriter(Secrets(["return city"]))
    said = (
        "the source of the tool 'echo' holds a secret inside code that masking would break; "
        "move the secret to an environment variable"
    )
    with pytest.raises(op.SetupError, match=re.escape(said)):
        writer.verbatim("def echo(city):\n    return city\n", what="the tool 'echo'")


def test_argument_names_that_are_not_identifiers_are_passed_as_a_dict():
    writer = CodeWriter(Secrets())
    assert writer.keywords({"a": 1, "b": "x"}) == "a=1, b='x'"
    assert writer.keywords({"a-b": 1, "c": "x"}) == "**{'a-b': 1, 'c': 'x'}"


def test_a_writer_given_a_scrub_masks_with_it():
    writer = CodeWriter(Secrets(), scrub=lambda value: "scrubbed")
    assert writer.literal("anything") == "'scrubbed'" and writer.comment("text") == "# scrubbed"
