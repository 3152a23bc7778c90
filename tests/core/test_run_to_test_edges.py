"""Where ``run.to_test`` writes the tools and what it writes for runs at the edges
(engine/_run_test.py; docs/testing.md, "Mutation tool"): every tool named on the one
``tools_from`` line, a package's tool found with one ``sys.path`` line and nothing more,
the package's search tool left out, a run that travelled (its tools known by name only),
a run without a stop reason, an auth header in the prompt scrubbed as in the cassette, and
the written file's blank lines."""

from __future__ import annotations

import pickle
import sys
import textwrap
import types
from pathlib import Path

import pytest
from written_tests import import_fresh, pytest_on

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
    (solids,) = import_fresh(tmp_path, "solids")
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
    # the file's prompt is the cassette's, scrubbed alike (the header's value, "Bearer" with it)
    assert "PROMPT = 'Call the API with Authorization: ***'\n" in path.read_text()
    code, output = pytest_on(path)
    assert code == 0, output


# -- what a copied tool's source imports, and where a tool is found ----------------------------

DECORATED = '''
from collections.abc import Mapping
from datetime import date
from math import sqrt

import openprogram_jupyter as op
from openprogram_jupyter import function

EPOCH = date(2000, 1, 1)


@op.function(register_globally=False)
def count_keys(data: dict) -> int:
    """Count a mapping's keys."""
    assert isinstance(data, Mapping) and EPOCH.year == 2000
    return int(sqrt(len(data) ** 2))


@function(register_globally=False)
def double(n: int) -> int:
    """Double a number."""
    return 2 * n
'''


def test_a_copied_tool_imports_what_its_source_uses_and_the_package_once(tmp_path):
    module = tmp_path / "cell_tools.py"
    module.write_text(textwrap.dedent(DECORATED))
    namespace: dict = {"__name__": "__main__"}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    tools = [namespace["count_keys"], namespace["double"]]
    model = op.ScriptedModel([[call("count_keys", data={"a": 1}), call("double", n=2)], "1 and 4."])
    run = op.Runtime(model=model).run("Count and double.", tools=tools)
    source = run.to_test(tmp_path / "tests" / "test_cell.py").read_text()
    lines = source.splitlines()
    assert lines.count("import openprogram_jupyter as op") == 1
    assert sum("import function" in line for line in lines) == 1
    assert "from collections.abc import Mapping" in lines and "from math import sqrt" in lines
    assert not any("EPOCH" in line and "import" in line for line in lines)  # a value, not importable by name


def _module_tool(tmp_path: Path, module_name: str, source: str, *, file: bool = True) -> op.FunctionTool:
    """The tool ``tool`` of a module made from ``source`` and put in ``sys.modules`` as
    ``module_name`` (with a file, or without one)."""
    path = tmp_path / "made_tools.py"
    path.write_text(textwrap.dedent(source))
    module = types.ModuleType(module_name)
    if file:
        module.__file__ = str(path)
    sys.modules[module_name] = module
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return module.tool


TOOL_SOURCE = '''
import openprogram_jupyter as op


def bump(n: int) -> int:
    return n + 1


@op.function(register_globally=False)
def tool(n: int) -> int:
    """Add one."""
    return bump(n)
'''


def _written(tmp_path: Path, tool: op.FunctionTool, name: str = "test_made.py") -> str:
    run = op.Runtime(model=op.ScriptedModel([call(tool.name, n=1), "2."])).run("Add one.", tools=[tool])
    return run.to_test(tmp_path / name).read_text()


def test_a_tool_of_a_script_run_as_main_is_copied_not_imported_from_main(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])  # put back afterwards
    source = _written(tmp_path, _module_tool(tmp_path, "__main__", TOOL_SOURCE))
    # neither the tool nor the helper it uses is imported from the script (the notebook's own
    # helpers are left out: a tool that needs one takes tools_from)
    assert "__main__" not in source and "def tool(n: int) -> int:" in source


FACTORY_SOURCE = '''
import openprogram_jupyter as op


def make():
    def add_one(n: int) -> int:
        """Add one."""
        return n + 1

    return op.function(add_one, register_globally=False)


tool = make()
'''


def test_a_tool_its_module_does_not_hold_by_name_is_copied_and_its_test_passes(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "factory_tools", raising=False)
    tool = _module_tool(tmp_path, "factory_tools", FACTORY_SOURCE)
    source = _written(tmp_path, tool)
    assert "from factory_tools import" not in source and "def add_one(n: int) -> int:" in source
    code, output = pytest_on(tmp_path / "test_made.py")
    assert code == 0, output


def test_a_tool_of_a_module_without_a_file_is_refused_asking_for_a_module(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "fileless_tools", raising=False)
    tool = _module_tool(tmp_path, "fileless_tools", TOOL_SOURCE, file=False)
    (tmp_path / "made_tools.py").unlink()  # its source can be found nowhere
    with pytest.raises(op.SetupError) as refused:
        _written(tmp_path, tool)
    assert str(refused.value) == (
        "to_test: the source of the tool 'tool' cannot be written into the test; "
        "put the tools in a module and pass tools_from='module'"
    )


def test_a_secret_in_a_copied_tool_s_code_that_masking_would_break_is_refused_naming_the_tool(tmp_path):
    from openprogram_jupyter.core._secrets import remember

    number = "9081726354" + tmp_path.name[-4:].replace("_", "1").replace("-", "2")
    number = "".join(c if c.isdigit() else "7" for c in number)
    remember(number)
    (tool,) = _notebook_tools(
        tmp_path,
        f'''
        def add_code(n: int) -> int:
            """Add the code."""
            return n + {number}
        ''',
        "add_code",
    )
    run = op.Runtime(model=op.ScriptedModel([call("add_code", n=1), "done"])).run("Add.", tools=[tool])
    with pytest.raises(op.SetupError) as refused:
        run.to_test(tmp_path / "test_code.py")
    assert str(refused.value) == (
        "the source of the tool 'add_code' holds a secret inside code that masking would break; "
        "move the secret to an environment variable"
    )
