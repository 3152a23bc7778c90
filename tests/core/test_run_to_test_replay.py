"""What the test ``run.to_test`` writes replays and compares (engine/_run_test.py; issue
45's mutation survivors): the cassette numbers each round and holds what its request
held; each answer the user gave in step mode is given again when the test replays it —
denied, edited, skipped with its reason; a result is compared when it is a success or a
failure of at most 2,000 characters, and a longer one is checked by its call alone; a
tool whose function's name is no Python name is refused, saying what to do."""

from __future__ import annotations

import importlib.util
import json
import textwrap
import types
from pathlib import Path

import pytest
from written_tests import pytest_on

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
