"""What the test ``run.to_test`` writes replays and compares (engine/_run_test.py; issue
45's mutation survivors): the cassette numbers each round and holds what its request
held; each answer the user gave in step mode is given again when the test replays it —
denied, edited, skipped with its reason; a result is compared when it is a success or a
failure of at most 2,000 characters, and a longer one is checked by its call alone; a
tool whose function's name is no Python name is refused, saying what to do; the file's
header, its folders made, only non-default settings written, ``tools_from`` as a dotted
module or with no tools, and each refusal's exact words."""

from __future__ import annotations

import importlib
import importlib.util
import json
import textwrap
import types
from pathlib import Path

import pytest
from written_tests import import_fresh, pytest_on

import openprogram_jupyter as op

from .conftest import call


def _notebook_tools(tmp_path: Path, source: str, *names: str) -> list[op.FunctionTool]:
    """Tools defined as a notebook defines them (in ``__main__``): their source is copied."""
    module = tmp_path / "cell_tools.py"
    module.write_text(textwrap.dedent(source))
    namespace: dict = {"__name__": "__main__"}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    return [op.function(namespace[name], register_globally=False) for name in names]


def _written_module(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"written_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cassette_numbers_each_round_and_holds_what_its_request_held(tmp_path):
    (tool,) = _notebook_tools(
        tmp_path,
        '''
        def find_city(city: str) -> str:
            """Look a city up."""
            return city.upper()
    ''',
        "find_city",
    )
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="oslo"), "Oslo."])).run("Find Oslo.", tools=[tool])
    run.to_test(tmp_path / "test_oslo.py")
    cassette = json.loads((tmp_path / "test_oslo.cassette.json").read_text())
    assert [(r["round"], r["request"]) for r in cassette["rounds"]] == [
        (1, {"tools": ["find_city"], "last_user_text": "Find Oslo."}),
        (2, {"tools": ["find_city"], "last_user_text": "Find Oslo."}),
    ]


def test_each_answer_the_user_gave_is_given_again_when_the_test_replays(tmp_path):
    marker = tmp_path / "dropped.txt"
    drop_table, count_rows = _notebook_tools(
        tmp_path,
        f'''
        from pathlib import Path


        def drop_table(table: str) -> str:
            """Drop a table."""
            Path({str(marker)!r}).write_text(table)
            return "dropped " + table


        def count_rows(table: str) -> int:
            """Count a table's rows."""
            return len(table)
    ''',
        "drop_table",
        "count_rows",
    )
    answers = iter([False, op.edit(table="orders"), op.skip("not now"), True])
    model = op.ScriptedModel(
        [
            [
                call("drop_table", table="users"),
                call("count_rows", table="users"),
                call("drop_table", table="logs"),
                call("count_rows", table="items"),
            ],
            "Done.",
        ]
    )
    run = op.Runtime(model=model).run(
        "Tidy up.", tools=[drop_table, count_rows], step=True, approve=lambda request: next(answers)
    )
    recorded = [(r.status, r.text, r.details.get("approval")) for r in run.tool_results]
    assert [status for status, _, _ in recorded] == ["denied", "done", "skipped", "done"] and not marker.exists()

    written = _written_module(run.to_test(tmp_path / "test_tidy.py"))
    replayed = written.replayed()
    assert [(r.status, r.text, r.details.get("approval")) for r in replayed.tool_results] == recorded
    assert not marker.exists()  # neither the denied nor the skipped drop ran


def test_a_result_is_compared_up_to_2000_characters_and_a_longer_one_by_its_call_alone(tmp_path):
    (noise,) = _notebook_tools(
        tmp_path,
        '''
        import secrets


        def noise(length: int) -> str:
            """Random text of a given length."""
            return secrets.token_hex(length)[:length]
    ''',
        "noise",
    )
    for length, passes in ((2001, True), (2000, False)):
        model = op.ScriptedModel([call("noise", length=length), "Noise."])
        run = op.Runtime(model=model).run("Make noise.", tools=[noise])
        code, output = pytest_on(run.to_test(tmp_path / f"test_noise_{length}.py"))
        if passes:
            assert code == 0, output
        else:
            assert code == 1 and "call 1, noise, returned '" in output, output


def test_a_failed_calls_error_is_compared(tmp_path):
    (find_city,) = _notebook_tools(
        tmp_path,
        '''
        def find_city(city: str) -> str:
            """Look a city up."""
            raise LookupError("no city " + city)
    ''',
        "find_city",
    )
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="atlantis"), "None."])).run(
        "Find Atlantis.", tools=[find_city]
    )
    assert run.tool_results[0].status == "error"
    path = run.to_test(tmp_path / "test_atlantis.py")
    path.write_text(path.read_text().replace('"no city "', '"unknown city "'))
    code, output = pytest_on(path)
    assert code == 1 and "1 failed, 1 passed" in output and "call 1, find_city, returned" in output, output


def test_a_tool_whose_function_has_no_python_name_is_refused_saying_what_to_do(tmp_path):
    def find_city(city: str) -> str:
        """Look a city up."""
        return city.upper()

    tool = op.function(find_city, name="find_city", register_globally=False)
    find_city.__name__ = "find-city"
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="oslo"), "Oslo."])).run("go", tools=[tool])
    with pytest.raises(op.SetupError) as refused:
        run.to_test(tmp_path / "test_city.py")
    assert str(refused.value) == (
        "to_test: the source of the tool 'find_city' cannot be written into the test; "
        "put the tools in a module and pass tools_from='module'"
    )
    assert not (tmp_path / "test_city.py").exists()


def _city_run(**settings: object) -> op.Run:
    tool = op.function(find_city, register_globally=False)
    model = op.ScriptedModel([call("find_city", city="oslo"), "Oslo."])
    return op.Runtime(model=model).run("Find Oslo.", tools=[tool], **settings)


def find_city(city: str) -> str:
    """Look a city up."""
    return city.upper()


def test_the_written_file_says_what_it_is_and_its_cassette_names_the_model(tmp_path):
    run = _city_run()
    source = run.to_test(tmp_path / "deep" / "er" / "test_oslo.py").read_text()  # its folders are made
    assert source.splitlines()[:3] == [
        f"# A regression test for the run {run.run_id} (model scripted), written by openprogram-jupyter (run.to_test).",
        "# Its model's replies are played back from the cassette beside this file (no network, no key)",
        "# while the tools run for real. After an intended change, write it again with run.to_test(path).",
    ]
    assert "from openprogram_jupyter import function  # noqa: F401 (for the tools' decorators)" in source
    cassette = json.loads((tmp_path / "deep" / "er" / "test_oslo.cassette.json").read_text())
    assert cassette["model"] == "scripted"


def test_only_the_settings_that_differ_from_the_defaults_are_written(tmp_path):
    source = _city_run(max_iterations=7, max_tool_calls=500).to_test(tmp_path / "test_oslo.py").read_text()
    assert "SETTINGS = {'max_iterations': 7}\n" in source  # max_tool_calls=500 is the default


def test_tools_from_a_dotted_module_are_imported_from_it(tmp_path):
    source = _city_run().to_test(tmp_path / "test_oslo.py", tools_from="city.tools").read_text()
    assert "from city.tools import find_city\n" in source


def test_tools_from_with_a_tool_name_that_is_no_python_name_is_refused_naming_the_tools(tmp_path):
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    tools = [op.function(lookup, name="find-city", register_globally=False), op.function(find_city)]
    model = op.ScriptedModel([call("find-city", city="oslo"), "Oslo."])
    run = op.Runtime(model=model).run("go", tools=tools)
    with pytest.raises(op.SetupError) as refused:
        run.to_test(tmp_path / "test_x.py", tools_from="city_tools")
    assert str(refused.value) == (
        "to_test: a tool name is not a Python name, so it cannot be imported; tools: 'find-city', 'find_city'"
    )


def test_a_run_without_tools_imports_nothing_from_tools_from(tmp_path):
    run = op.Runtime(model=op.ScriptedModel(["Hello."])).run("Hi.")
    path = run.to_test(tmp_path / "test_hi.py", tools_from="city_tools")
    assert "city_tools" not in path.read_text()
    code, output = pytest_on(path)
    assert code == 0, output


def test_a_run_with_a_prompt_but_no_reply_is_refused(tmp_path):
    run = op.Run("run_q", "scripted", [])
    run.messages.append(op.UserMessage(content="Hi."))  # stopped before its first reply
    with pytest.raises(op.SetupError, match=r"^to_test: run run_q has no prompt and recorded round to test$"):
        run.to_test(tmp_path / "test_q.py")
    assert not (tmp_path / "test_q.py").exists()


def test_a_path_that_cannot_be_written_is_named_in_full(tmp_path):
    run = _city_run()
    with pytest.raises(op.SetupError) as refused:
        run.to_test(tmp_path / "test_x.txt")
    assert (
        str(refused.value)
        == f"to_test: the test is a Python file; {str(tmp_path / 'test_x.txt')!r} does not end in .py"
    )
    (tmp_path / "plain").write_text("x")
    with pytest.raises(op.SetupError) as refused:
        run.to_test(tmp_path / "plain" / "test_b.py")
    plain, path = str(tmp_path / "plain"), str(tmp_path / "plain" / "test_b.py")
    assert str(refused.value) == f"to_test: {plain!r} is a file, so {path!r} cannot be made in it"


TOOL_MODULE = '''
import openprogram_jupyter as op


@op.function(register_globally=False)
def {name}(width: float, height: float) -> float:
    """{doc}"""
    return {body}
'''


def test_tools_from_a_package_above_the_test_are_imported_by_their_dotted_names(tmp_path):
    package = tmp_path / "shapes"
    package.mkdir()
    (package / "__init__.py").write_text(TOOL_MODULE.format(name="area", doc="An area.", body="width * height"))
    (package / "edges.py").write_text(
        TOOL_MODULE.format(name="perimeter", doc="A perimeter.", body="2 * (width + height)")
    )
    shapes, edges = import_fresh(tmp_path, "shapes", "shapes.edges")
    model = op.ScriptedModel([[call("area", width=2, height=3), call("perimeter", width=2, height=3)], "6 and 10."])
    run = op.Runtime(model=model).run("Measure.", tools=[shapes.area, edges.perimeter])
    path = run.to_test(tmp_path / "tests" / "test_shapes.py")
    source = path.read_text()
    assert "from shapes import area\nfrom shapes.edges import perimeter\n" in source
    assert "import sys\nsys.path.insert(0, str(Path(__file__).resolve().parents[1]))\n" in source
    code, output = pytest_on(path)
    assert code == 0, output


def test_a_tool_from_a_module_in_the_tests_own_folder_is_imported_without_a_path(tmp_path):
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "room_tools.py").write_text(TOOL_MODULE.format(name="floor", doc="A floor.", body="width * height"))
    (room_tools,) = import_fresh(folder, "room_tools")
    run = op.Runtime(model=op.ScriptedModel([call("floor", width=2, height=3), "6."])).run(
        "Floor?", tools=[room_tools.floor]
    )
    source = run.to_test(folder / "test_room.py").read_text()
    assert "from room_tools import floor\n" in source and "sys.path" not in source
    code, output = pytest_on(folder / "test_room.py")
    assert code == 0, output
