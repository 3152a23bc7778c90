"""Kernel fixtures: every real-kernel test runs on ipykernel ≥ 7.4 and on ipykernel 6.29."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from .kernels import ensure_legacy_venv, write_kernelspec

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
