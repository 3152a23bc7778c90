"""The package's shape: imports go one way, no module imports itself in a circle, and
modules and functions stay small. docs/architecture.md explains the layers."""

from __future__ import annotations

import ast
import configparser
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "openprogram_jupyter"
ROOT = "openprogram_jupyter"

CONTRACTS = PACKAGE.parent / ".importlinter"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(name: str) -> bool:
    return (PACKAGE.parent / Path(*name.split(".")) / "__init__.py").exists()


def exists(name: str) -> bool:
    path = PACKAGE.parent / Path(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path) -> set[str]:
    """The package modules ``path`` imports anywhere (functions included), except under
    ``if TYPE_CHECKING:``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith(ROOT))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith(ROOT):
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    found.add(submodule if exists(submodule) else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    found.discard(name)
    return found


GRAPH = {module_name(path): imports_of(path) for path in sorted(PACKAGE.rglob("*.py"))}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in graph:
        if node not in index:
            connect(node)
    return groups


def test_the_import_graph_is_read_from_every_module():
    # A check that reads nothing passes everything: make sure it sees real imports.
    assert len(GRAPH) > 40
    assert "openprogram_jupyter.engine.execute" in GRAPH["openprogram_jupyter.engine.runtime"]  # the one lazy import
    assert "openprogram_jupyter.engine.loop" in GRAPH["openprogram_jupyter.engine.execute"]


def test_no_module_imports_itself_in_a_circle():
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_layer_contracts_hold():
    """import-linter checks the contracts in .importlinter (type-checking imports included);
    .ci/run runs it too, as ``lint-imports``."""
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(CONTRACTS)) == 0, "lint-imports: a contract is broken (run it to see)"


def _placed_in_layers() -> dict[Path, set[str]]:
    """Each folder a layers contract of .importlinter names as its container, and the names
    its layers place."""
    config = configparser.ConfigParser()
    config.read(CONTRACTS)
    placed = {}
    for section in config.sections():
        if config[section].get("type") != "layers":
            continue
        folder = PACKAGE.parent / Path(*config[section]["containers"].strip().split("."))
        layers = config[section]["layers"]
        placed[folder] = {name.strip() for line in layers.splitlines() for name in line.replace("|", ":").split(":")}
    return placed


def test_every_module_of_a_layered_folder_has_a_layer():
    """A new module or folder in the package root, the engine or the lab is placed in a
    layer of .importlinter, so the contract speaks of it."""
    placed = _placed_in_layers()
    assert {PACKAGE, PACKAGE / "engine", PACKAGE / "lab"} <= set(placed)
    for folder, names in placed.items():
        present = {path.stem for path in folder.glob("*.py") if path.name != "__init__.py"}
        present |= {path.parent.name for path in folder.glob("*/__init__.py")}
        assert present - names == set(), f"add these to the layers of {folder.name} in .importlinter"


def test_the_package_root_holds_its_public_names_and_layer_folders_only():
    # __main__.py is `python -m openprogram_jupyter run NOTEBOOK`, the layer above jupyter/.
    assert sorted(path.name for path in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py"]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_and_functions_stay_small(path):
    source = path.read_text()
    assert len(source.splitlines()) <= 500, f"{path.name} has {len(source.splitlines())} lines (at most 500)"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= 60, f"{path.name}: {node.name} has {length} lines (at most 60)"
        if isinstance(node, ast.ClassDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= 250, f"{path.name}: class {node.name} has {length} lines (at most 250)"


def test_no_import_points_up_even_to_annotate():
    contracts = configparser.ConfigParser()
    contracts.read(REPO / ".importlinter")
    assert contracts["importlinter"]["exclude_type_checking_imports"] == "False"
    for name in contracts.sections():
        ignored = contracts[name].get("ignore_imports", "").split()
        assert ignored == [], f"{name} ignores {ignored}: annotate with a protocol declared low, never ignore"


def test_the_pre_commit_hooks_run_what_ci_runs():
    entries = re.findall(r"^\s*entry: (.+)$", (REPO / ".pre-commit-config.yaml").read_text(), re.M)
    ci = (REPO / ".ci" / "run").read_text()
    expected = ["-m ruff check", "-m ruff format", "-m mypy", "lint-imports"]
    for command in expected:
        assert command in ci, f".ci/run no longer runs {command}"
        assert any(command in entry for entry in entries), f".pre-commit-config.yaml does not run {command}"
