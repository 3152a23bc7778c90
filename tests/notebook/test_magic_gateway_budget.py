"""A ``%%agent`` cell whose gateway refuses a spent budget (docs/teaching.md, "Keys students
never see") shows the course's one line in its transcript and fails with one line, never
a traceback; the student's gateway key comes from the environment, as a hub puts it."""

from __future__ import annotations

import pytest
from fakeserver import FakeServer, Turn

import openprogram_jupyter as op

STUDENT_KEY = "sk-student-gateway-key-7f3a"  # made up
REFUSAL = {
    "error": {
        "message": "Budget has been exceeded! Current cost: 0.51, Max budget: 0.5",
        "type": "budget_exceeded",
        "param": None,
        "code": "400",
    }
}


@pytest.fixture
def gateway(monkeypatch, clean_registry):
    """A loopback stand-in for the gateway, its URL and the student's key in the environment."""
    with FakeServer() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", STUDENT_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.openai_base_url)
        yield fake


@pytest.mark.parametrize("status", [400, 429])
def test_a_spent_budget_fails_the_cell_with_one_line(shell, capsys, gateway, status):
    gateway.script(Turn(status=status, error_body=REFUSAL))
    result = shell.run_cell("%%agent -m openai:gpt-4.1-mini -o r\nHi.")

    assert not result.success
    printed = capsys.readouterr()
    both = printed.out + printed.err
    line = (
        f"openai:gpt-4.1-mini failed, HTTP {status}, budget_exceeded: the course's budget for you is spent; "
        "the gateway says: Budget has been exceeded! Current cost: 0.51, Max budget: 0.5"
    )
    assert both.count(line) == 1  # in the transcript, once
    assert "Traceback" not in both
    assert result.error_in_exec._render_traceback_() == [
        "RunFailed: the run ended with the error shown above (the Run is in r; "
        "pass --keep-going to let the notebook carry on)"
    ]
    assert str(result.error_in_exec).startswith(line)  # what papermill or a CI log reads
    assert gateway.requests[0].headers["authorization"] == f"Bearer {STUDENT_KEY}"
    assert gateway.requests[0].body["model"] == "gpt-4.1-mini"  # the gateway's model_name
    assert len(gateway.requests) == 1
    assert STUDENT_KEY not in both
    shell.user_ns.pop("r", None)


def test_exec_in_a_cell_fails_with_one_line_and_is_still_a_run_error(shell, capsys, gateway):
    gateway.script(Turn(status=400, error_body=REFUSAL))
    result = shell.run_cell("import openprogram_jupyter as op\nop.Runtime(model='openai:gpt-4.1-mini').exec('Hi.')")

    assert isinstance(result.error_in_exec, op.RunError)
    printed = capsys.readouterr()
    both = printed.out + printed.err
    assert "Traceback" not in both and "File " not in both
    assert result.error_in_exec._render_traceback_() == [
        "BudgetSpentError: the run failed after 1 round(s): openai:gpt-4.1-mini failed, HTTP 400, budget_exceeded: "
        "the course's budget for you is spent; the gateway says: Budget has been exceeded! Current cost: 0.51, "
        "Max budget: 0.5"
    ]
    assert result.error_in_exec.run.error.kind == "budget"
