"""``python -m openprogram_jupyter run NOTEBOOK`` (the README's Quickstart): a notebook runs
headless on the offline model; its cells print with their outputs; a failing cell, a
missing file and a file that is not a notebook each end with their own exit status and a
message naming the problem. ``scripts/run_quickstart.py`` still runs the quickstart."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from .kernels import REPO

pytestmark = pytest.mark.slow


def run_module(*arguments: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openprogram_jupyter", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
    )


def write_notebook(path, *sources: str) -> None:
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources]), path)


def test_a_notebook_runs_offline_and_prints_each_cell_with_its_outputs(tmp_path):
    path = tmp_path / "two.ipynb"
    shows_model = "import os\nprint(os.environ['OPENPROGRAM_MODEL'], repr(os.environ['OPENAI_API_KEY']))"
    write_notebook(path, shows_model, "6 * 7")
    done = run_module("run", str(path))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[:6] == [
        "In [1]: import os",
        "        print(os.environ['OPENPROGRAM_MODEL'], repr(os.environ['OPENAI_API_KEY']))",
        "offline ''",
        "",
        "In [2]: 6 * 7",
        "42",
    ]
    assert nbformat.read(path, as_version=4).cells[0].outputs == []  # the file is left as it was


def test_a_failing_cell_prints_the_cells_up_to_it_and_exits_1(tmp_path):
    path = tmp_path / "fails.ipynb"
    write_notebook(path, "x = 1", "1 / 0", "print('never')")
    done = run_module("run", str(path))
    assert done.returncode == 1
    assert "ZeroDivisionError: division by zero" in done.stdout
    assert "In [3]: print('never')" in done.stdout and "\nnever\n" not in done.stdout  # not run after the failure
    assert "a cell failed: ZeroDivisionError: division by zero\n" in done.stderr


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.ipynb", None, "no notebook at "),
        ("text.ipynb", "not json at all", "is not a notebook nbformat can read"),
    ],
)
def test_what_is_not_a_notebook_exits_2_naming_the_problem(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    done = run_module("run", str(path))
    assert done.returncode == 2 and message in done.stderr and str(path) in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_no_command_is_a_usage_error():
    done = run_module()
    assert done.returncode == 2 and "run" in done.stderr


def test_the_old_script_still_runs_the_quickstart():
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "run_quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "This is the offline model" in done.stdout
