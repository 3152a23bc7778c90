"""Kernel fixtures: every real-kernel test runs on ipykernel ≥ 7.4 and on ipykernel 6.29."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .kernels import ensure_legacy_venv, write_kernelspec

# Variables the in-process magic tests create; removed after each so tests stay independent.
_TEST_VARIABLES = ("r", "m", "x", "point", "add", "options", "run")

CURRENT = "op-current"
LEGACY = "op-ipykernel-6.29"


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: starts real kernels or a browser (part of the default suite)")


def pytest_collection_modifyitems(items):
    for item in items:
        if "kernel_name" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def kernelspecs(tmp_path_factory) -> Path:
    """A JUPYTER_PATH entry holding our two kernelspecs (the legacy venv made on demand)."""
    root = tmp_path_factory.mktemp("kernelspecs")
    write_kernelspec(root, CURRENT, sys.executable)
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(root), *([old] if old else [])])
    yield root
    if old is None:
        os.environ.pop("JUPYTER_PATH", None)
    else:
        os.environ["JUPYTER_PATH"] = old


@pytest.fixture(scope="session")
def legacy_kernel(kernelspecs) -> str:
    write_kernelspec(kernelspecs, LEGACY, ensure_legacy_venv())
    return LEGACY


@pytest.fixture(params=[CURRENT, LEGACY], ids=["ipykernel-7.4+", "ipykernel-6.29"])
def kernel_name(request, kernelspecs) -> str:
    if request.param == LEGACY:
        return request.getfixturevalue("legacy_kernel")
    return CURRENT


# -- in-process magic tests (no kernel) ------------------------------------------------------


@pytest.fixture
def clean_registry():
    from openprogram_jupyter.tools.registry import default_registry

    default_registry.clear()
    yield
    default_registry.clear()


@pytest.fixture
def shell(monkeypatch, clean_registry):
    """IPython's shell in this process, with the extension loaded, no session open and no
    provider key set; the names the test adds to its namespace are removed after it."""
    from IPython.core.interactiveshell import InteractiveShell

    for key in ("OPENPROGRAM_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    from openprogram_jupyter.jupyter import _LOADED
    from openprogram_jupyter.jupyter._sessions import Sessions

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "openprogram_jupyter")
    # No session an earlier test of this worker opened (``-s lesson``, a restore) is there.
    _LOADED[id(ip)].sessions = Sessions()
    names_before = set(ip.user_ns)
    yield ip
    # What the test put in the namespace goes (a tool or a run another test left would be
    # offered by completion, or picked up by a later test), and the names tests share.
    for name in (set(ip.user_ns) - names_before).union(_TEST_VARIABLES):
        ip.user_ns.pop(name, None)
