"""Running a test file the package wrote (``run.to_test``, ``%agent test``) the way its
user would: ``python -m pytest`` on it in a fresh interpreter, from its own folder."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import types
from pathlib import Path


def pytest_on(path: Path, *, extra_path: Path | None = None) -> tuple[int, str]:
    """``(exit code, output)`` of pytest on ``path`` in a fresh interpreter, with no
    provider key in its environment (the written test must pass offline). Like every
    child of the suite, it starts without the environment's pytest plugins (tests/conftest.py).
    """
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("OPENAI_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # see import_fresh
    if extra_path is not None:
        env["PYTHONPATH"] = f"{extra_path}{os.pathsep}{env.get('PYTHONPATH', '')}"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore", str(path)],
        capture_output=True,
        text=True,
        cwd=path.parent,
        env=env,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


def import_fresh(folder: Path, *names: str) -> list[types.ModuleType]:
    """``names`` imported from ``folder``, none of them taken from ``sys.modules`` (a tool
    module an earlier test imported under the same name is not reused), and no bytecode
    written for them.

    A test edits a module and runs again within the same second; Python checks a ``.pyc``
    against its source by the source's size and modification time in whole seconds, so an
    edit of the same length (``upper`` → ``title``) would run the first version's bytecode.
    """
    for name in names:
        sys.modules.pop(name, None)
    sys.path.insert(0, str(folder))
    writing, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        return [importlib.import_module(name) for name in names]
    finally:
        sys.dont_write_bytecode = writing
        sys.path.remove(str(folder))
