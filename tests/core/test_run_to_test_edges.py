"""Where ``run.to_test`` writes the tools and what it writes for runs at the edges
(engine/_run_test.py; docs/testing.md, "Mutation tool"): every tool named on the one
``tools_from`` line, a package's tool found with one ``sys.path`` line and nothing more,
the package's search tool left out, a run that travelled (its tools known by name only),
a run without a stop reason, an auth header in the prompt scrubbed as in the cassette, and
the written file's blank lines."""

from __future__ import annotations

import importlib
import pickle
import sys
import textwrap
import types
from pathlib import Path

import pytest
from written_tests import pytest_on

import openprogram_jupyter as op

from .conftest import call

COMMENT = "# The tools: imported from their modules, or as the notebook defined them."


def _notebook_tools(tmp_path: Path, source: str, *names: str) -> list[op.FunctionTool]:
    """Tools defined as a notebook defines them (in ``__main__``): their source is copied."""
    module = tmp_path / "cell_tools.py"
    module.write_text(textwrap.dedent(source))
    namespace: dict = {"__name__": "__main__"}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    return [op.function(namespace[name], register_globally=False) for name in names]


CITY_TOOLS = '''
import openprogram_jupyter as op


def find_city(city: str) -> str:
    """Look a city up."""
    return city.upper()


def shout(text: str) -> str:
    """Shout the text."""
    return text.upper() + "!"
'''


def _two_tool_run(tmp_path: Path) -> op.Run:
    tools = _notebook_tools(tmp_path, CITY_TOOLS, "find_city", "shout")
    model = op.ScriptedModel([[call("find_city", city="oslo"), call("shout", text="hi")], "OSLO and HI!"])
    return op.Runtime(model=model).run("Find Oslo and shout hi.", tools=tools)


def test_tools_from_imports_every_tool_on_one_line(tmp_path):
    source = _two_tool_run(tmp_path).to_test(tmp_path / "test_two.py", tools_from="city_tools").read_text()
    assert "from city_tools import find_city, shout\n" in source
    assert "TOOLS = [find_city, shout]\n" in source


def test_copied_tools_are_two_blank_lines_apart_and_no_run_of_blank_lines_is_longer(tmp_path):
    source = _two_tool_run(tmp_path).to_test(tmp_path / "test_two.py").read_text()
    assert "    return city.upper()\n\n\ndef shout(text: str) -> str:\n" in source
    assert "\n\n\n\n" not in source
    assert COMMENT in source.splitlines()


def _import_fresh(folder: Path, *names: str) -> list[types.ModuleType]:
    """``names`` imported from ``folder``, none of them taken from ``sys.modules``."""
    for name in names:
        sys.modules.pop(name, None)
    sys.path.insert(0, str(folder))
    try:
        return [importlib.import_module(name) for name in names]
    finally:
        sys.path.remove(str(folder))


def test_a_tool_from_a_package_s_init_above_the_test_takes_one_path_line_after_the_comment(tmp_path):
    package = tmp_path / "solids"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import openprogram_jupyter as op\n\n\n"
        "@op.function(register_globally=False)\n"
        "def volume(side: float) -> float:\n"
        '    """A cube\'s volume."""\n'
        "    return side**3\n"
    )
    (solids,) = _import_fresh(tmp_path, "solids")
    run = op.Runtime(model=op.ScriptedModel([call("volume", side=2), "8."])).run("Volume?", tools=[solids.volume])
    path = run.to_test(tmp_path / "tests" / "test_volume.py")
    lines = path.read_text().splitlines()
    start = lines.index(COMMENT)
    assert lines[start : start + 4] == [
        COMMENT,
        "import sys",
        "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))",
        "from solids import volume",
    ]
    assert sum("sys.path" in line for line in lines) == 1
    assert "\n\n\n\n" not in path.read_text()
    code, output = pytest_on(path)
    assert code == 0, output


def test_the_package_s_search_tool_is_not_among_the_written_tools(tmp_path):
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    def weather(city: str) -> str:
        """The weather in a city."""
        return "sun"

    tools = [op.function(echo, register_globally=False), op.function(weather, register_globally=False, defer=True)]
    run = op.Runtime(model=op.ScriptedModel([call("echo", text="a"), "done"])).run("Echo.", tools=tools)
    assert "tool_search" in run.tools
    source = run.to_test(tmp_path / "test_echo.py", tools_from="echo_tools").read_text()
    assert "from echo_tools import echo, weather\n" in source and "TOOLS = [echo, weather]\n" in source


def _travelled(tmp_path: Path) -> op.Run:
    (tool,) = _notebook_tools(tmp_path, CITY_TOOLS, "find_city")
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="oslo"), "Oslo."])).run("Go.", tools=[tool])
    travelled = pickle.loads(pickle.dumps(run))
    assert travelled.spec is None
    return travelled


def test_a_run_that_travelled_is_written_with_tools_from_and_refused_without(tmp_path):
    travelled = _travelled(tmp_path)
    source = travelled.to_test(tmp_path / "test_far.py", tools_from="city_tools").read_text()
    assert "from city_tools import find_city\n" in source and "SETTINGS = {}\n" in source
    with pytest.raises(op.SetupError) as refused:
        travelled.to_test(tmp_path / "test_near.py")
    assert str(refused.value) == (
        "to_test: the source of the tool 'find_city' cannot be written into the test; "
        "put the tools in a module and pass tools_from='module'"
    )


def test_a_run_without_a_stop_reason_is_tested_as_ending_normally(tmp_path):
    run = op.Run("run_s", "scripted", [])
    run.messages = [op.UserMessage(content="Hi."), op.AssistantMessage(content=[op.TextContent(text="Hello.")])]
    assert run.stop_reason is None
    path = run.to_test(tmp_path / "test_hi.py")
    assert ".stopped('stop'))" in path.read_text()
    code, output = pytest_on(path)
    assert code == 0, output


def test_an_auth_header_in_the_prompt_is_scrubbed_in_the_test_as_in_its_cassette(tmp_path):
    prompt = "Call the API with Authorization: Bearer tok9f8e7d6c5b4a"
    run = op.Runtime(model=op.ScriptedModel(["Done."])).run(prompt)
    path = run.to_test(tmp_path / "test_auth.py")
    for written in (path, tmp_path / "test_auth.cassette.json"):
        assert "tok9f8e7d6c5b4a" not in written.read_text(), written.name
    code, output = pytest_on(path)
    assert code == 0, output
