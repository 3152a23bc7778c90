"""A test ``run.to_test`` writes compares each tool's live result masked as its recorded one
was (engine/_run_test.py): a result that holds a token, a key or an auth header — masked
(``***``) in the written file — passes on unchanged tools, succeeded or failed; the token
is never written into the test or its cassette; and a changed result still fails, naming
the call with the live result masked."""

from __future__ import annotations

import base64
import hashlib
import textwrap
from pathlib import Path

from written_tests import pytest_on

import openprogram_jupyter as op

from .conftest import call

# Each token is made by the tool from its argument, so neither its source (copied into the
# written test) nor this file's literals hold it.
HEADER_TOOLS = '''
import base64
import hashlib


def headers_for(user: str) -> str:
    """The headers a request for a user carries."""
    token = hashlib.sha256(user.encode()).hexdigest()[:24]
    basic = base64.b64encode(f"{user}:{token}".encode()).decode()
    return (
        f"status ok\\nAuthorization: Bearer {token}\\nProxy-Authorization: Basic {basic}"
        f"\\nX-Other: sk-{token}\\napi_key={token}"
    )


def failing_call(user: str) -> str:
    """Calls the API for a user, and fails."""
    token = hashlib.sha256(user.encode()).hexdigest()[:24]
    raise PermissionError(f"refused: Authorization: Bearer {token} (sk-{token})")
'''


def _notebook_tools(tmp_path: Path, *names: str) -> list[op.FunctionTool]:
    """Tools defined as a notebook defines them (in ``__main__``): their source is copied."""
    module = tmp_path / "cell_tools.py"
    module.write_text(textwrap.dedent(HEADER_TOOLS))
    namespace: dict = {"__name__": "__main__"}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    return [op.function(namespace[name], register_globally=False) for name in names]


def _run(tmp_path: Path, tool_name: str) -> tuple[op.Run, str]:
    """A run calling ``tool_name`` for one user, and the token that tool puts in its result."""
    (tool,) = _notebook_tools(tmp_path, tool_name)
    model = op.ScriptedModel([call(tool_name, user="ada"), "Done."])
    run = op.Runtime(model=model).run("Call the API for ada.", tools=[tool])
    return run, hashlib.sha256(b"ada").hexdigest()[:24]


def _written_holds_no(token: str, test_file: Path) -> None:
    """Neither the test nor its cassette holds ``token``, nor the Basic credentials made of it."""
    basic = base64.b64encode(f"ada:{token}".encode()).decode()
    for written in (test_file, test_file.with_name(test_file.stem + ".cassette.json")):
        text = written.read_text()
        assert token not in text, f"{written.name} holds the token"
        assert basic not in text, f"{written.name} holds the Basic credentials"


def test_a_result_holding_a_token_and_key_shapes_passes_on_unchanged_tools(tmp_path):
    run, token = _run(tmp_path, "headers_for")
    (result,) = run.tool_results
    assert result.status == "done" and f"Bearer {token}" in result.text  # a success keeps shapes
    test_file = run.to_test(tmp_path / "test_headers.py")
    _written_holds_no(token, test_file)
    code, output = pytest_on(test_file)
    assert code == 0, output


def test_a_failed_call_whose_error_holds_a_token_passes_on_unchanged_tools(tmp_path):
    run, token = _run(tmp_path, "failing_call")
    (result,) = run.tool_results
    assert result.status == "error" and token not in result.text  # a failure's text is masked
    test_file = run.to_test(tmp_path / "test_failing.py")
    _written_holds_no(token, test_file)
    code, output = pytest_on(test_file)
    assert code == 0, output


def test_a_changed_result_still_fails_showing_the_live_result_masked(tmp_path):
    run, token = _run(tmp_path, "headers_for")
    test_file = run.to_test(tmp_path / "test_changed.py")
    test_file.write_text(test_file.read_text().replace('f"status ok', 'f"status down'))
    code, output = pytest_on(test_file)
    assert code == 1 and "1 failed, 1 passed" in output, output
    assert "call 1, headers_for, returned 'status down\\nAuthorization: ***" in output, output
    assert token not in output
