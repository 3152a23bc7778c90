"""``%agent pin`` in process (issue 47): a session's message by number, or a call's result
of the latest run by id or ROUND/N, pinned so that a compacting cell keeps it; the
listings; every bad input refused naming the problem."""

from __future__ import annotations

import re

import pytest
from IPython.core.error import UsageError

import openprogram_jupyter as op

LONG = "x" * 3_000  # two of these pass a 1,000-token compact threshold


@pytest.fixture(autouse=True)
def _fresh_kernel_state(clean_registry, shell, monkeypatch):
    """No session and no latest run from another test (the in-process shell is shared)."""
    from openprogram_jupyter.jupyter import _LOADED
    from openprogram_jupyter.jupyter._sessions import Sessions

    magics = _LOADED[id(shell)]
    monkeypatch.setattr(magics, "sessions", Sessions())
    monkeypatch.setattr(magics.runtimes.namespace_runtime, "last_run", None)
    yield


def _session(shell) -> op.ScriptedModel:
    """Session ``chat`` of two cells; the model then writes a summary and answers once more."""
    model = op.ScriptedModel(["first answer", "second answer", "the summary", "third answer"])
    shell.user_ns["m"] = model
    assert shell.run_cell(f"%%agent -m m -s chat\nRule: answer in French. {LONG}").success
    assert shell.run_cell(f"%%agent -m m -s chat\nQuestion two. {LONG}").success
    return model


def _compacting_cell(shell, model: op.ScriptedModel) -> list[str]:
    assert shell.run_cell("%%agent -m m -s chat --compact 1000 --keep-last 1\nQuestion three.").success
    return [message.text for message in model.requests[-1].messages]


def test_a_pinned_session_message_is_kept_by_the_next_cells_compaction(shell, capsys):
    model = _session(shell)
    shell.run_line_magic("agent", "pin -s chat 1")
    out = capsys.readouterr().out
    assert "Pinned message 1 of session chat: compaction keeps it whole." in out
    assert f"   1 pinned user: Rule: answer in French. {'x' * 55}…" in out
    sent = _compacting_cell(shell, model)
    assert sent[0] == f"Rule: answer in French. {LONG}"  # pinned: verbatim, first
    assert sent[1].startswith("[Summary of 3 earlier messages") and sent[1].endswith("the summary")
    assert sent[2:] == ["Question three."]


def test_without_the_pin_the_same_cell_summarises_that_message(shell):
    model = _session(shell)
    sent = _compacting_cell(shell, model)
    assert sent[0].startswith("[Summary of 4 earlier messages") and sent[1:] == ["Question three."]


def test_the_session_listing_numbers_its_messages_and_marks_the_pinned(shell, capsys):
    _session(shell)
    shell.run_line_magic("agent", "pin -s chat 3")
    capsys.readouterr()
    shell.run_line_magic("agent", "pin -s chat")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "session chat: 4 message(s)"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "   1        user",
        "   2        assistant",
        "   3 pinned user",
        "   4        assistant",
    ]
    shell.run_line_magic("agent", "pin")
    assert capsys.readouterr().out.splitlines() == [
        "session chat: 1 pinned message(s)",
        f"   3 pinned user: Question two. {'x' * 65}…",
    ]


def _tool_run(shell) -> op.Run:
    @op.function
    def fetch(page: int) -> str:
        """Fetch a page."""
        return f"page {page}"

    shell.user_ns["m"] = op.ScriptedModel(
        [
            op.ToolCall(name="fetch", arguments={"page": 1}, id="call_a"),
            [
                op.ToolCall(name="fetch", arguments={"page": 2}, id="call_b"),
                op.ToolCall(name="fetch", arguments={"page": 3}, id="call_c"),
            ],
            "done",
        ]
    )
    assert shell.run_cell("%%agent -m m --tools fetch -s pages -o r\nRead.").success
    return shell.user_ns["r"]


def test_a_call_result_of_the_latest_run_is_pinned_by_id_or_round_and_number(shell, capsys):
    run = _tool_run(shell)
    shell.run_line_magic("agent", "pin 2/2")
    assert (
        "Pinned the result of fetch (call_c) of the latest run: compaction keeps it, and the reply that made its "
        "call, in every request that carries it." in capsys.readouterr().out
    )
    shell.run_line_magic("agent", "pin call_a")
    assert [m.tool_call_id for m in run.tool_results if m.pinned] == ["call_a", "call_c"]
    shell.run_line_magic("agent", "pin -s pages")  # the session holds the run's own messages
    assert "   3 pinned result of fetch (call_a): page 1" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("pin -s chat 2", "message 2 of session chat is a reply of the model, which cannot be pinned alone; pin"),
        ("pin -s chat 5", "N is a message number from 1 to 4, got '5'"),
        ("pin -s chat one", "N is a message number from 1 to 4, got 'one'"),
        ("pin -s nope 1", "no session 'nope' (sessions: chat)"),
        ("pin -s", "-s takes a session name"),
        ("pin call_zzz", "the latest run has no call 'call_zzz'"),
        ("pin 9/1", "the latest run has rounds 1 to"),
        ("pin a b", "expected -s NAME [N]"),
        ("pin 'open", "No closing quotation"),
    ],
)
def test_bad_input_is_refused_naming_the_problem(shell, line, words):
    _session(shell)
    with pytest.raises(UsageError, match=re.escape(words)):
        shell.run_line_magic("agent", line)


def test_with_no_run_yet_a_call_cannot_be_pinned(shell):
    with pytest.raises(UsageError, match="no run yet in this kernel"):
        shell.run_line_magic("agent", "pin 1/1")
