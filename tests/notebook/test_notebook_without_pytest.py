"""After the README's interactive setup (no pytest), ``notebooks/tool-design.ipynb`` runs to
the end and its pytest cells say in one line what to install; the README says to make a
virtual environment first and which extra brings pytest (issue 43, items 3 and 12)."""

from __future__ import annotations

import asyncio
import re

import pytest

from .conftest import CURRENT
from .kernels import REPO
from .test_notebooks import NOTEBOOKS, execute

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_tool_design_runs_to_the_end_without_pytest_and_says_what_to_install(kernelspecs, tmp_path, monkeypatch):
    stub = tmp_path / "no-pytest" / "pytest"
    stub.mkdir(parents=True)  # `import pytest` fails in the kernel and in `python -m pytest`, as when not installed
    (stub / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'pytest'\", name='pytest')\n")
    notebook_dir = tmp_path / "notebooks"
    notebook_dir.mkdir()
    copy = notebook_dir / "tool-design.ipynb"
    copy.write_text((NOTEBOOKS / "tool-design.ipynb").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(stub.parent))
    notebook = asyncio.run(execute(copy, CURRENT))  # raises CellExecutionError on a failing cell
    said = [
        output
        for cell in notebook.cells
        if "pytest_says(" in cell.get("source", "")
        for output in cell.get("outputs", [])
    ]
    texts = [o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in said]
    assert len(texts) == 2 and all("pip install pytest" in t and t.count("\n") <= 1 for t in texts), texts


def test_the_readme_says_make_a_venv_then_two_commands_and_names_the_pytest_extra():
    quickstart = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    before_block, block = quickstart.split("```bash", 1)
    assert "python -m venv" in before_block and "activate" in before_block
    commands = block.split("```", 1)[0].strip().splitlines()
    assert len(commands) == 2, commands
    extra = re.search(r"`pip install -e '\.\[notebook,(\w+)\]'[^`]*` brings pytest", quickstart)
    assert extra is not None and "%agent test" in quickstart, quickstart
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    extras = pyproject.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    assert re.search(rf'^{extra.group(1)} = \[[^\]]*"pytest>=', extras, re.MULTILINE), extra.group(1)


pytestmark = pytest.mark.slow
