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
