"""The package in a real Pyodide under Node, no browser (issue 51 step 1).

The pyodide npm package (pinned in tests/pyodide/package.json, installed by ``.ci/run``
with ``npm ci``) runs ``lesson_in_pyodide.py``: micropip installs the package's wheel,
built here from the repository, beside the wheels of ``requirements/pyodide.txt``
(downloaded by ``.ci/run`` into ``.venvs/pyodide-wheels``); then ``import
openprogram_jupyter``, ``%load_ext``, the replay lesson of notebooks/ through ``await
runtime.arun`` with its real tool, ``op.check`` on it, the offline model recorded and
replayed, and the sync entry point's refusal. Nothing leaves the machine: micropip has no
index and the runner's ``fetch`` reaches 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PYODIDE = HERE / "node_modules" / "pyodide"
WHEELS = Path(os.environ.get("OPENPROGRAM_PYODIDE_WHEELS", REPO / ".venvs" / "pyodide-wheels"))
LESSON_CASSETTE = REPO / "notebooks" / "cassettes" / "lesson.json"


def _installed_or_say_how() -> str:
    node = shutil.which("node")
    if node is None or not (PYODIDE / "pyodide.mjs").is_file() or not any(WHEELS.glob("micropip-*.whl")):
        raise RuntimeError(
            "the Pyodide test needs node, `npm ci --prefix tests/pyodide` and the wheels of "
            f"requirements/pyodide.txt in {WHEELS} (bash .ci/run does all three); "
            f"node on PATH: {node is not None}, pyodide installed: {PYODIDE.is_dir()}"
        )
    return node


@pytest.fixture(scope="module")
def in_pyodide(tmp_path_factory) -> dict:
    """What lesson_in_pyodide.py recorded, run once for this module."""
    node = _installed_or_say_how()
    wheels = tmp_path_factory.mktemp("wheels")
    for wheel in WHEELS.glob("*.whl"):
        shutil.copy(wheel, wheels)
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(wheels)],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    work = tmp_path_factory.mktemp("work")
    shutil.copy(LESSON_CASSETTE, work / "lesson.json")
    finished = subprocess.run(
        [node, str(HERE / "run_in_pyodide.mjs"), str(wheels), str(work), str(HERE / "lesson_in_pyodide.py")],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    return json.loads((work / "result.json").read_text(encoding="utf-8"))


def test_micropip_installs_the_wheel_which_lacks_only_what_pyodide_itself_ships(in_pyodide):
    assert in_pyodide["platform"] == "emscripten"
    assert "openprogram_jupyter-0.1.0-py3-none-any.whl" in in_pyodide["installed"]
    # No wheel of these for Pyodide is on the package index (nh3; nbformat through
    # jsonschema's rpds-py): Pyodide's own repository, which JupyterLite installs from,
    # has them, so here they are the two requirements left unmet.
    assert in_pyodide["missing_requirements"] == ["nbformat", "nh3"]
    shipped = json.loads((PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))["packages"]
    assert {"nh3", "rpds-py"} <= shipped.keys()


def test_import_and_load_ext_load_nothing_a_browser_cannot_or_need_not(in_pyodide):
    assert in_pyodide["import_imported"] == ["openprogram_jupyter"]
    assert in_pyodide["load_ext"] == {"runtime_in_namespace": "Runtime", "imported": ["typing_extensions"]}
    assert in_pyodide["heavy_loaded"] == []


def test_the_replay_lesson_runs_its_real_tool_and_grades(in_pyodide):
    assert in_pyodide["replay"] == {
        "stop_reason": "stop",
        "rounds": 2,
        "text": "Cairo is the warmest today at 31.0 °C (Lisbon 19.5 °C, Oslo 4.0 °C).",
        "calls": [
            '  1. round 1: temperature(city="Oslo") → done: "4.0"',
            '  2. round 1: temperature(city="Lisbon") → done: "19.5"',
            '  3. round 1: temperature(city="Cairo") → done: "31.0"',
        ],
        "passed": ['called temperature(city="Cairo")', "temperature returned 31.0"],
    }


def test_the_offline_model_records_a_cassette_that_replays(in_pyodide):
    offline = in_pyodide["offline"]
    assert offline["recorded"].startswith("This is the offline model: no language model ran")
    assert "temperature: error: Error: temperature raised KeyError: 'example'" in offline["recorded"]
    assert offline["replayed"] == offline["recorded"]
    assert offline["stop_reason"] == "stop"


def test_the_blocking_entry_points_refuse_naming_the_awaited_one(in_pyodide):
    assert in_pyodide["sync_refused"] == (
        "Runtime.run needs a worker thread, and this Python (emscripten: Pyodide, as in JupyterLite, "
        "or WASI) cannot start one; use await runtime.arun(...)"
    )
