"""run.to_test(path): a run becomes a pytest file and a cassette; pytest passes offline, and
fails naming the call when a tool change alters it."""

from __future__ import annotations

import ast
import textwrap

import pytest
from fakeserver import Call, FakeServer, Turn
from written_tests import import_fresh, pytest_on

import openprogram_jupyter as op

from .conftest import call

KEY = "sk-test-to-test-0123456789abcdef"


def find_city(city: str) -> str:
    """Look a city up."""
    return city.upper()


@pytest.fixture
def recorded_over_the_wire():
    """A four-round run of a real client against the loopback server, which is gone after."""
    tool = op.function(find_city, register_globally=False)
    with FakeServer() as server:
        server.script(
            *[Turn(calls=[Call("find_city", {"city": c})]) for c in ("paris", "lyon", "nice")],
            Turn(text="Paris, Lyon and Nice."),
        )
        runtime = op.Runtime(model="openai:gpt-4.1-mini", api_key=KEY, base_url=server.openai_base_url)
        run = runtime.run("Find Paris, Lyon and Nice.", tools=[tool], max_iterations=9)
    assert run.rounds == 4 and run.stop_reason == "stop"
    return run


def test_the_test_passes_offline_and_fails_naming_the_call_a_schema_change_breaks(tmp_path, recorded_over_the_wire):
    path = recorded_over_the_wire.to_test(tmp_path / "test_cities.py")
    assert (tmp_path / "test_cities.cassette.json").exists()
    code, output = pytest_on(path)
    assert code == 0 and "2 passed" in output, output

    source = path.read_text()
    path.write_text(
        source.replace("def find_city(city: str)", "def find_city(place: str)").replace(
            "return city.upper()", "return place.upper()"
        )
    )
    code, output = pytest_on(path)
    assert code == 1, output
    assert 'op.check: expected pick 1 to be find_city(city="paris") that ran and returned' in output


def test_the_test_fails_when_a_result_changes(tmp_path, recorded_over_the_wire):
    path = recorded_over_the_wire.to_test(tmp_path / "test_cities.py")
    path.write_text(path.read_text().replace("return city.upper()", "return city.upper().replace('NICE', 'NIZZA')"))
    code, output = pytest_on(path)
    assert code == 1 and "1 failed, 1 passed" in output, output
    assert "call 3, find_city, returned 'NIZZA'; recorded 'NICE'" in output


def test_tools_from_a_module_are_imported_and_edits_to_it_count(tmp_path):
    module = tmp_path / "city_tools.py"
    module.write_text(
        textwrap.dedent('''
        import openprogram_jupyter as op

        @op.function(register_globally=False)
        def find_city(city: str) -> str:
            """Look a city up."""
            return city.upper()
    ''')
    )
    (city_tools,) = import_fresh(tmp_path, "city_tools")
    model = op.ScriptedModel([call("find_city", city="oslo"), "Oslo."])
    run = op.Runtime(model=model).run("Find Oslo.", tools=[city_tools.find_city])
    path = run.to_test(tmp_path / "tests" / "test_oslo.py", tools_from="city_tools")
    assert "from city_tools import find_city" in path.read_text()
    assert "def find_city" not in path.read_text()
    code, output = pytest_on(path, extra_path=tmp_path)
    assert code == 0, output
    module.write_text(module.read_text().replace("return city.upper()", "return city.title()"))
    code, output = pytest_on(path, extra_path=tmp_path)
    assert code == 1 and "call 1, find_city, returned 'Oslo'; recorded 'OSLO'" in output, output


def test_the_names_a_tool_uses_are_imported_as_its_module_had_them(tmp_path):
    module = tmp_path / "shelf_tools.py"
    module.write_text(
        textwrap.dedent('''
        import datetime as dt
        import json
        from typing import Literal

        HELPER = "defined here: not importable by the test"

        def shelve(kind: Literal["book", "map"], year: int) -> str:
            """Shelve an item."""
            return json.dumps([kind, dt.date(year, 1, 1).isoformat()])
    ''')
    )
    (shelf_tools,) = import_fresh(tmp_path, "shelf_tools")
    shelf_tools.shelve.__module__ = "__main__"  # as if the notebook defined it: its source is copied
    tool = op.function(shelf_tools.shelve, register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("shelve", kind="map", year=1901), "Shelved."])).run(
        "Shelve it.", tools=[tool]
    )
    source = run.to_test(tmp_path / "test_shelve.py").read_text()
    assert "import datetime as dt\nimport json\nfrom typing import Literal\n" in source
    assert "HELPER" not in source and "import shelf_tools" not in source
    code, output = pytest_on(tmp_path / "test_shelve.py")
    assert code == 0, output


def test_text_from_the_run_never_becomes_code(tmp_path):
    hostile = "x'''\"\"\" ); import os; os.system('echo pwned') #\u2028print('pwned')\n\r\x0c"
    tool = op.function(find_city, register_globally=False)
    model = op.ScriptedModel([call("find_city", city=hostile), hostile])
    run = op.Runtime(model=model).run(hostile, tools=[tool])
    path = run.to_test(tmp_path / "test_hostile.py")
    tree = ast.parse(path.read_text())
    calls = {
        node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert "system" not in calls
    assert [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "os"] == []
    code, output = pytest_on(path)
    assert code == 0 and "pwned" not in output, output


def test_secrets_are_masked_in_the_test_and_the_cassette(tmp_path):
    def leaky(city: str) -> str:
        """Look a city up."""
        return f"{city} (looked up with {KEY})"

    tool = op.function(leaky, register_globally=False)
    from openprogram_jupyter.core._secrets import remember

    remember(KEY)  # as an api_key= given to any Runtime of the kernel is
    runtime = op.Runtime(model=op.ScriptedModel([call("leaky", city=KEY), f"Done with {KEY}."]))
    path = runtime.run(f"Use {KEY}.", tools=[tool]).to_test(tmp_path / "test_leak.py")
    for written in (path, tmp_path / "test_leak.cassette.json"):
        text = written.read_text()
        assert KEY not in text and "***" in text, written.name


def _without_source():
    namespace: dict = {}
    exec('def echo(city: str) -> str:\n    "Echo."\n    return city', namespace)  # no file holds its source
    return namespace["echo"]


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        (op.function(_without_source(), register_globally=False), "the source of the tool 'echo' cannot be written"),
        (
            {"spec": {"name": "ext", "parameters": {"type": "object", "properties": {}}}, "execute": lambda: "x"},
            "the source of the tool 'ext' cannot be written",
        ),
    ],
)
def test_a_tool_without_a_source_to_write_asks_for_a_module(tmp_path, tool, why):
    name = "ext" if isinstance(tool, dict) else "echo"
    run = op.Runtime(model=op.ScriptedModel([call(name), "ok"])).run("go", tools=[tool])
    with pytest.raises(op.SetupError, match=f"{why}.*tools_from='module'"):
        run.to_test(tmp_path / "test_x.py")
    assert not (tmp_path / "test_x.py").exists()


def test_bad_paths_and_modules_are_named(tmp_path):
    tool = op.function(find_city, register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="a"), "A."])).run("go", tools=[tool])
    with pytest.raises(op.SetupError, match=r"does not end in \.py"):
        run.to_test(tmp_path / "test_x.txt")
    with pytest.raises(op.SetupError, match="tools_from names a module"):
        run.to_test(tmp_path / "test_x.py", tools_from="my tools; import os")
    with pytest.raises(op.SetupError, match="no prompt and recorded round"):
        op.Run("run_empty", "scripted", []).to_test(tmp_path / "test_y.py")


def test_nothing_is_written_until_everything_is_checked(tmp_path):
    good = op.function(find_city, register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="a"), "A."])).run("go", tools=[good])
    path = run.to_test(tmp_path / "test_a.py")
    cassette = tmp_path / "test_a.cassette.json"
    before = path.read_text(), cassette.read_text()

    sourceless = op.function(_without_source(), register_globally=False)
    refused = op.Runtime(model=op.ScriptedModel([call("echo", city="b"), "B."])).run("go", tools=[sourceless])
    with pytest.raises(op.SetupError, match="cannot be written"):
        refused.to_test(path, overwrite=True)
    assert (path.read_text(), cassette.read_text()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_a.cassette.json", "test_a.py"]


def test_an_existing_test_is_kept_unless_overwrite_is_given(tmp_path):
    tool = op.function(find_city, register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="a"), "A."])).run("go", tools=[tool])
    path = run.to_test(tmp_path / "test_a.py")
    path.write_text("# mine\n")
    with pytest.raises(op.SetupError, match=r"test_a\.py' exists; pass overwrite=True"):
        run.to_test(path)
    assert path.read_text() == "# mine\n"
    assert "def test_the_run" in run.to_test(path, overwrite=True).read_text()


def test_a_folder_or_a_file_in_the_way_is_named_and_nothing_is_left(tmp_path):
    tool = op.function(find_city, register_globally=False)
    run = op.Runtime(model=op.ScriptedModel([call("find_city", city="a"), "A."])).run("go", tools=[tool])
    (tmp_path / "test_dir.py").mkdir()
    with pytest.raises(op.SetupError, match=r"test_dir\.py' is a folder"):
        run.to_test(tmp_path / "test_dir.py")
    (tmp_path / "plain").write_text("x")
    with pytest.raises(op.SetupError, match=r"plain' is a file"):
        run.to_test(tmp_path / "plain" / "test_b.py")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain", "test_dir.py"]


def test_a_tool_from_an_importable_module_is_imported_so_edits_to_it_count(tmp_path):
    module = tmp_path / "area_tools.py"
    module.write_text(
        textwrap.dedent('''
        import openprogram_jupyter as op

        @op.function(register_globally=False)
        def area(width: float, height: float) -> float:
            """The area of a rectangle."""
            return width * height
    ''')
    )
    (area_tools,) = import_fresh(tmp_path, "area_tools")
    run = op.Runtime(model=op.ScriptedModel([call("area", width=2, height=3), "6."])).run(
        "Area?", tools=[area_tools.area]
    )
    path = run.to_test(tmp_path / "tests" / "test_area.py")
    source = path.read_text()
    assert "from area_tools import area" in source and "def area" not in source
    assert "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))" in source
    code, output = pytest_on(path)
    assert code == 0, output
    module.write_text(module.read_text().replace("return width * height", "return width + height"))
    code, output = pytest_on(path)
    assert code == 1 and "call 1, area, returned '5.0'; recorded '6.0'" in output, output


def test_calls_the_user_refused_are_refused_again_in_the_written_test(tmp_path):
    marker = tmp_path / "dropped"
    source = textwrap.dedent(f'''
        from pathlib import Path


        def drop_table(table: str) -> str:
            """Drop a table."""
            Path({str(marker)!r}).write_text(table)
            return "dropped " + table


        def count_rows(table: str) -> int:
            """Count a table's rows."""
            return len(table)
    ''')
    module = tmp_path / "db_tools.py"
    module.write_text(source)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, str(module), "exec"), namespace)
    tools = [op.function(namespace[name], register_globally=False) for name in ("drop_table", "count_rows")]
    answers = iter([False, op.edit(table="orders"), op.skip("not now"), True])
    model = op.ScriptedModel(
        [
            [
                call("drop_table", table="users"),
                call("count_rows", table="users"),
                call("count_rows", table="x"),
                call("count_rows", table="items"),
            ],
            "Done.",
        ]
    )
    run = op.Runtime(model=model).run("Tidy up.", tools=tools, step=True, approve=lambda request: next(answers))
    assert [r.status for r in run.tool_results] == ["denied", "done", "skipped", "done"] and not marker.exists()

    path = run.to_test(tmp_path / "test_tidy.py")
    code, output = pytest_on(path)
    assert code == 0 and "2 passed" in output, output
    assert not marker.exists()
