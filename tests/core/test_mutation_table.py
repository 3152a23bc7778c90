"""scripts/mutate.py's mutations stay applicable and documented.

The script itself runs on demand (it takes minutes); this checks, on every run of the
suite, what would make it report "snippet not found" or point at a test that no longer
exists, and that docs/testing.md's table lists every mutation with its killing test.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def load_script():
    name = "_scripts_mutate"
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "mutate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def load_mutations():
    return load_script().MUTATIONS


def test_the_mutations_have_distinct_names_and_the_docs_give_their_number():
    names = [m.name for m in load_mutations()]
    assert len(set(names)) == len(names)
    docs = (REPO / "docs" / "testing.md").read_text()
    assert f"`scripts/mutate.py` holds {len(names)} one-line mutations" in docs
    assert f"# all {len(names)}," in docs


def test_every_snippet_occurs_exactly_once_and_the_replacement_differs():
    for m in load_mutations():
        text = (REPO / "openprogram_jupyter" / m.file).read_text()
        assert text.count(m.original) == 1, f"{m.name}: snippet found {text.count(m.original)} times in {m.file}"
        assert m.replacement != m.original, m.name


def test_every_killing_test_exists():
    for m in load_mutations():
        assert m.tests, m.name
        for node in m.tests:
            path, _, function = node.partition("::")
            source = REPO / path
            assert source.is_file(), f"{m.name}: no file {path}"
            if function:
                defined = {
                    n.name
                    for n in ast.walk(ast.parse(source.read_text()))
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                }
                assert function.split("[")[0] in defined, f"{m.name}: no test {node}"


def test_docs_testing_lists_every_mutation_and_its_killing_test():
    doc = (REPO / "docs" / "testing.md").read_text()
    rows = {line.split("|")[1].strip().strip("`"): line for line in doc.splitlines() if line.startswith("| `")}
    for m in load_mutations():
        assert m.name in rows, f"docs/testing.md has no row for {m.name}"
        for node in m.tests:
            assert node.split("::")[-1] in rows[m.name], f"{m.name}: the row does not name {node}"


def test_docs_testing_gives_the_count_per_module():
    assert load_script().per_module_table() in (REPO / "docs" / "testing.md").read_text(), (
        "docs/testing.md's per-module table is stale: paste python scripts/mutate.py --per-module"
    )


@functools.cache
def load_mutation_tool():
    name = "_scripts_mutation"
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_mutation_tool_s_modules_and_tests_exist():
    for module, tests in load_mutation_tool().TESTS.items():
        assert (REPO / "openprogram_jupyter" / module).is_file(), module
        assert tests, module
        for test in tests:
            path = test.split("=", 1)[1] if test.startswith("--deselect=") else test
            assert (REPO / path.split("::")[0]).is_file(), f"{module}: no test file {test}"


def test_docs_testing_has_a_mutation_tool_row_for_every_module_of_the_table():
    doc = (REPO / "docs" / "testing.md").read_text()
    section = doc.split("## Mutation tool", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")}
    assert rows == set(load_mutation_tool().TESTS), "docs/testing.md, Mutation tool: one row per module of TESTS"


def test_the_mutation_tool_config_names_the_module_and_its_tests_only_in_the_copy():
    tool = load_mutation_tool()
    table = tool.mutmut_table("engine/_limits.py", ["tests/core/test_limits.py"])
    pyproject = tool.without_mutmut_table((REPO / "pyproject.toml").read_text()) + "\n" + table
    config = tomllib.loads(pyproject)["tool"]["mutmut"]
    assert config["only_mutate"] == ["openprogram_jupyter/engine/_limits.py"]
    assert config["pytest_add_cli_args_test_selection"] == ["tests/core/test_limits.py"]
    assert config["source_paths"] == ["openprogram_jupyter"]
    assert "only_mutate" not in tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]
