"""What the client says and does for a server's features, against the stand-in server of
``feature_server.py`` (the npm reference server lacks them, or shows them only by chance)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import openprogram_jupyter as op

FEATURE_SERVER = [sys.executable, str(Path(__file__).with_name("feature_server.py"))]


@pytest.fixture
def feature(runtime):
    return op.mcp(command=FEATURE_SERVER, name="feat", runtime=runtime)


def test_the_client_introduces_itself_with_the_package_name_and_version(runtime, feature):
    runtime.model = op.ScriptedModel([op.ToolCall(name="feat_whoami", arguments={}), "ok"])
    run = runtime.run("who are you?")
    assert run.tool_results[0].text == f"openprogram-jupyter {op.__version__}"
